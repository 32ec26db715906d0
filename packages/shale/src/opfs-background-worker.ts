/**
 * `shale/opfs/background-worker` (`dist/opfs-background-worker.js`): the nested module worker
 * that runs a database's flushes and compactions over OPFS. The database's worker starts it
 * (`OpfsFileSystem`'s `backgroundWorkerUrl`, default `opfs-background-worker.js` beside the
 * module; a bundle builds this entry to that name) and sends it a client of its OPFS I/O
 * worker, which it reaches with `OpfsFileSystem.connect`. Loaded anywhere but a worker it
 * does nothing, so importing it is harmless.
 */
import { serveBackgroundJobs } from "@shale/db/internal";
import { type OpfsClientHandle, OpfsFileSystem } from "@shale/opfs";

interface Scope {
  WorkerGlobalScope?: unknown;
  postMessage(message: unknown): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  close(): void;
}

const scope = globalThis as unknown as Scope;
if (scope.WorkerGlobalScope !== undefined && typeof scope.addEventListener === "function") {
  // The client `OpfsFileSystem.open` posts to the workers it pre-starts (`{ type: "client" }`);
  // the database's init then names it as `{ attached: true }`.
  let attached: OpfsClientHandle | undefined;
  scope.addEventListener("message", (event) => {
    const m = event.data as { type?: string; fs?: OpfsClientHandle } | null;
    if (m?.type === "client") attached = m.fs;
  });
  serveBackgroundJobs(
    {
      postMessage: (m) => scope.postMessage(m),
      addEventListener: (type, listener) => scope.addEventListener(type, listener),
      close: () => scope.close(),
    },
    (handle) => {
      if ((handle as { attached?: boolean } | null)?.attached !== true)
        return OpfsFileSystem.connect(handle as OpfsClientHandle);
      if (attached === undefined) throw new Error("no OPFS client was posted to this worker");
      return OpfsFileSystem.connect(attached);
    },
  );
}
