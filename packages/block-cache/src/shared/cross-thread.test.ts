/**
 * SharedBlockCache from three threads at once: the main thread and two workers insert, look
 * up and erase blocks of known contents in a cache far smaller than them (evictions all the
 * time). Every hit's copy that its generation check accepts must be the block's bytes.
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { type HammerReport, hammer } from "./hammer.test-support.js";
import { SharedBlockCache } from "./shared-block-cache.js";

/** Loader hooks so that a worker can import this package's TypeScript sources. */
const TS_HOOKS = `
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from ${JSON.stringify(pathToFileURL(createRequire(import.meta.url).resolve("typescript")).href)};
export async function resolve(specifier, context, nextResolve) {
  const ctx = { ...context, conditions: [...context.conditions, "source"] };
  try {
    return await nextResolve(specifier, ctx);
  } catch (error) {
    if (specifier.endsWith(".js") && context.parentURL?.endsWith(".ts")) {
      return nextResolve(specifier.slice(0, -3) + ".ts", ctx);
    }
    throw error;
  }
}
export async function load(url, context, nextLoad) {
  if (!url.endsWith(".ts")) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const { outputText } = ts.transpileModule(readFileSync(file, "utf8"), {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
  });
  return { format: "module", source: outputText, shortCircuit: true };
}
`;

const WORKER = `
import { register } from "node:module";
import { parentPort, workerData } from "node:worker_threads";
register(workerData.hooks);
const { hammer } = await import(workerData.support);
parentPort.postMessage("ready");
const go = new Int32Array(workerData.go);
Atomics.wait(go, 0, 0);
parentPort.postMessage(hammer(workerData.buffers, workerData.seed, workerData.ops));
`;

const url = (s: string) => new URL(`data:text/javascript,${encodeURIComponent(s)}`);

function startWorker(workerData: object): { ready: Promise<void>; done: Promise<HammerReport> } {
  const worker = new Worker(url(WORKER), {
    workerData: {
      hooks: url(TS_HOOKS).href,
      support: new URL("./hammer.test-support.ts", import.meta.url).href,
      ...workerData,
    },
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
