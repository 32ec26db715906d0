/**
 * What a browser bundle loads instead of node-fs.ts (package.json `"browser"` field): the
 * same exports without `node:fs`, so `import { MemoryFileSystem } from "shale"` bundles for a
 * browser with no stubs. Constructing a NodeFileSystem there throws NotSupported; pass
 * `fs: new MemoryFileSystem()` (or your own FileSystem) to `open` instead.
 */
import { ShaleError } from "../errors.js";

export { DEFAULT_WRITE_BUFFER_SIZE } from "./buffered-writer.js";

export class NodeFileSystem {
  constructor() {
    throw ShaleError.notSupported(
      "NodeFileSystem needs node:fs (Node.js, Deno or Bun), and this is a browser bundle: " +
        "open the database with { fs: new MemoryFileSystem() } or another FileSystem",
    );
  }
}
