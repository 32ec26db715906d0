/**
 * Test helpers (`@shale/opfs/testing`): `FakeOpfs`, the OPFS handle API over a local
 * directory, and `openFakeOpfsFileSystem`, an `OpfsFileSystem` whose I/O worker is a Node
 * worker thread over a `FakeOpfs`. Node only.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { OpfsFileSystem, type OpfsFileSystemOptions } from "../opfs-file-system.js";
import type { FakeOpfsOptions } from "./fake-opfs.js";

export { FakeOpfs, type FakeOpfsOptions } from "./fake-opfs.js";

/** The built worker script: beside this module, or in dist/ when this runs from src/. */
function workerScript(): URL {
  const name = "node-io-worker.js";
  const here = new URL(`./${name}`, import.meta.url);
  if (existsSync(fileURLToPath(here))) return here;
  return new URL(`../../dist/testing/${name}`, import.meta.url);
}

/** Node options for the worker: the parent's minus `--conditions` (a test runner's "source"
 * condition would make it load TypeScript it cannot run) and `--input-type`. */
function workerExecArgv(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--conditions" || a === "-C" || a === "--input-type") i++;
    else if (!a.startsWith("--conditions=") && !a.startsWith("--input-type=")) out.push(a);
  }
  return out;
}

/**
 * Opens an `OpfsFileSystem` named `name` whose I/O worker is a Node worker thread over a
 * `FakeOpfs` with `fake`'s options (its `dir` holds the files).
 */
export async function openFakeOpfsFileSystem(
  name: string,
  fake: FakeOpfsOptions,
  options: Omit<OpfsFileSystemOptions, "worker" | "workerUrl"> = {},
): Promise<OpfsFileSystem> {
  const worker = new Worker(workerScript(), { workerData: fake, execArgv: workerExecArgv() });
  try {
    return await OpfsFileSystem.open(name, { ...options, worker });
  } catch (err) {
    await worker.terminate();
    throw err;
  }
}
