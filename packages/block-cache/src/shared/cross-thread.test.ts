/**
 * SharedBlockCache from three threads at once: the main thread and two workers insert, look
 * up and erase blocks of known contents in a cache far smaller than them (evictions all the
 * time). Every hit's copy that its generation check accepts must be the block's bytes.
 */
import { tsWorker } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import { type HammerReport, hammer } from "./hammer.test-support.js";
import { SharedBlockCache } from "./shared-block-cache.js";

/** The worker: `hammer` on the cache's buffers once the main thread says go. */
const WORKER = `
const { hammer } = await import(workerData.support);
parentPort.postMessage("ready");
const go = new Int32Array(workerData.go);
Atomics.wait(go, 0, 0);
parentPort.postMessage(hammer(workerData.buffers, workerData.seed, workerData.ops));
`;

function startWorker(workerData: object): { ready: Promise<void>; done: Promise<HammerReport> } {
  const worker = tsWorker(WORKER, {
    support: new URL("./hammer.test-support.ts", import.meta.url).href,
    ...workerData,
  });
  let ready!: () => void;
  const readyP = new Promise<void>((r) => {
    ready = r;
  });
  const done = new Promise<HammerReport>((resolve, reject) => {
    worker.on("message", (m: "ready" | HammerReport) => {
      if (m === "ready") return ready();
      resolve(m);
      void worker.terminate();
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`worker exited with ${code}`)));
  });
  return { ready: readyP, done };
}

describe("SharedBlockCache across threads", () => {
  it("never hands out a torn or recycled block", async () => {
    // 256 blocks of up to 4 KiB over 64 KiB of 4 KiB slabs: most inserts evict.
    const cache = SharedBlockCache.create(64 * 1024, { slabSize: 4096 });
    const go = new SharedArrayBuffer(4);
    const ops = 200_000;
    const workers = [1, 2].map((w) =>
      startWorker({ buffers: cache.buffers(), seed: 0x1234 * w, ops, go }),
    );
    await Promise.all(workers.map((w) => w.ready));
    Atomics.store(new Int32Array(go), 0, 1);
    Atomics.notify(new Int32Array(go), 0);
    const main = hammer(cache.buffers(), 0x9999, ops);
    const reports = [main, ...(await Promise.all(workers.map((w) => w.done)))];
    for (const r of reports) {
      expect(r.torn).toBe(0);
      expect(r.checked).toBeGreaterThan(1000);
      expect(r.inserts).toBeGreaterThan(100);
    }
    const stats = cache.stats();
    expect(stats.usage).toBeLessThanOrEqual(stats.capacity);
    expect(stats.evictions).toBeGreaterThan(0);
  }, 60_000);
});
