/**
 * What a browser bundle loads instead of worker-executor.ts (package.json `"browser"`
 * field): no `node:worker_threads`. The database only builds a WorkerExecutor on a
 * NodeFileSystem, which a browser bundle cannot construct, so this one is never reached;
 * it throws rather than pretend.
 */
import { type FileSystem, ShaleError } from "@shale/base";

export class WorkerExecutor {
  constructor(_size: number, _fs: FileSystem, _compactionPriority?: string) {
    throw ShaleError.notSupported(
      "background worker threads need Node.js, Deno or Bun; a browser bundle runs jobs inline",
    );
  }
}
