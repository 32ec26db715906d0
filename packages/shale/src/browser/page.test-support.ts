/**
 * The test page's script (bundled with esbuild): starts the database worker and exposes
 * `window.shaleTest` for puppeteer: `call(cmd, args)` runs a command in the worker, `progress`
 * is the writer's last reported count, `openOnMainThread()` tries OPFS where it cannot run,
 * `openInWorker` is shale/opfs's page API.
 */
import { OpfsFileSystem, openInWorker } from "../opfs/index.js";

interface Reply {
  id?: number;
  value?: unknown;
  error?: { code: string; message: string };
  progress?: number;
}

interface PageWorker {
  postMessage(m: unknown): void;
  addEventListener(t: "message", l: (e: { data: Reply }) => void): void;
}
const WorkerClass = (globalThis as unknown as { Worker: new (u: string, o: object) => PageWorker })
  .Worker;
const worker = new WorkerClass("./db-worker.js", { type: "module" });
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
let nextId = 1;
const state = {
  progress: 0,
  openInWorker,
  call(cmd: string, args: unknown): Promise<unknown> {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, cmd, args });
    });
  },
  async openOnMainThread(): Promise<unknown> {
    try {
      await OpfsFileSystem.open("main-thread");
      return "opened";
    } catch (err) {
      return { code: (err as { code?: string }).code, message: (err as Error).message };
    }
  },
};
worker.addEventListener("message", (e) => {
  const r = e.data;
  if (r.progress !== undefined) {
    state.progress = r.progress;
    return;
  }
  const p = pending.get(r.id ?? 0);
  if (p === undefined) return;
  pending.delete(r.id ?? 0);
  if (r.error !== undefined) p.resolve({ error: r.error });
  else p.resolve(r.value);
});
(globalThis as unknown as { shaleTest: typeof state }).shaleTest = state;
