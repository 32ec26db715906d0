/**
 * Test helpers (`@shale/opfs/testing`): `FakeOpfs`, the OPFS handle API over a local
 * directory, and `openFakeOpfsFileSystem`, an `OpfsFileSystem` whose I/O worker is a Node
 * worker thread over a `FakeOpfs`. Node only.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { workerExecArgv } from "@shale/base";
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
