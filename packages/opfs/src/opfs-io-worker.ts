/**
 * The OPFS I/O worker's script (`@shale/opfs/io-worker`, `dist/opfs-io-worker.js`):
 * `OpfsFileSystem.open` starts it as a nested module worker of the database's worker. It
 * wires io-server.ts to the worker's `navigator`; loaded anywhere but a worker it does
 * nothing, so importing it is harmless.
 */

import { OpfsIoServer } from "./io-server.js";
import type { OpfsEnvironment } from "./opfs-api.js";

interface WorkerScope {
  WorkerGlobalScope?: unknown;
  navigator?: {
    storage?: OpfsEnvironment & { getDirectory(): ReturnType<OpfsEnvironment["getDirectory"]> };
    locks?: OpfsEnvironment["locks"];
  };
  postMessage(message: unknown): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
}

const scope = globalThis as unknown as WorkerScope;
const storage = scope.navigator?.storage;
const locks = scope.navigator?.locks;
if (scope.WorkerGlobalScope !== undefined && storage !== undefined && locks !== undefined) {
  const server = new OpfsIoServer(
    {
      getDirectory: () => storage.getDirectory(),
      locks,
      estimate: () => storage.estimate(),
    },
    { postMessage: (message) => scope.postMessage(message) },
  );
  scope.addEventListener("message", (event) => server.onMessage(event.data));
}
