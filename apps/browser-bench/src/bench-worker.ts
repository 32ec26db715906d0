/**
 * The bench worker (bundled for the browser by main.ts): runs the workloads of one engine
 * and posts `{ results }` (or `{ error }`). shale runs on `OpfsFileSystem` with its
 * synchronous API; ShaleLevel (shale in a nested worker of its own, on OPFS) and
 * browser-level (IndexedDB) with the same Level code; SQLite-WASM with its statements (on
 * its "opfs" or "opfs-sahpool" VFS).
 */
import { ShaleLevel } from "@shale/level";
import { BrowserLevel } from "browser-level";
import { open } from "shale";
import { OpfsFileSystem } from "shale/opfs";
import { runSqlite } from "./sqlite-peer.js";
import {
  type BenchRequest,
  benchKey,
  checkScanBytes,
  randomIndexes,
  type WorkloadResult,
} from "./workloads.js";

const VALUE = "v".repeat(100);

/**
 * shale's workloads: "shale" with flushes and compactions in its nested background worker,
 * "shale-inline" with them on the database's worker. The fill turns the event loop every
 * 1000 puts, as an application fed by messages does (a nested worker takes no first job
 * while its parent blocks: nested-worker-executor.ts); a fallback to inline is an error here.
 */
async function runShale(req: BenchRequest): Promise<WorkloadResult[]> {
  const inline = req.engine === "shale-inline";
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (...a: unknown[]) => warnings.push(a.map(String).join(" "));
  const fs = await OpfsFileSystem.open(req.name, inline ? { backgroundWorkerUrl: false } : {});
  const db = await open("db", { fs });
  const out: WorkloadResult[] = [];
  const order = randomIndexes(req.num, req.num, 7);
  let t = performance.now();
  for (let i = 0; i < req.num; i++) {
    db.put(benchKey(order[i]!), VALUE);
    if (i % 1000 === 999) await new Promise((r) => setTimeout(r, 0));
  }
  out.push({
    name: "fillrandom",
    ops: req.num,
    seconds: (performance.now() - t) / 1000,
    found: req.num,
  });
  const reads = randomIndexes(req.reads, req.num, 11);
  t = performance.now();
  let found = 0;
  for (let i = 0; i < req.reads; i++) if (db.get(benchKey(reads[i]!)) !== undefined) found++;
  out.push({ name: "readrandom", ops: req.reads, seconds: (performance.now() - t) / 1000, found });
  // A turn of the event loop first, untimed: the driver enables the worker's profiler then.
  if (req.profile) await new Promise((r) => setTimeout(r, 200));
  for (const name of req.rescan ? ["readseq", "readseq2"] : ["readseq"]) {
    if (req.profile) console.profile(name);
    t = performance.now();
    found = 0;
    let bytes = 0;
    if (req.scan === "copy") {
      // Copies the bench's code owns: the iterator's for-of (its cursor's key()/value() are views).
      for (const [k, v] of db.iterator()) {
        found++;
        bytes += k.length + v.length;
      }
    } else {
      const it = db.iterator();
      for (it.seekToFirst(); it.valid(); it.next()) found++;
      it.close();
    }
    const seconds = (performance.now() - t) / 1000;
    if (req.profile) console.profileEnd(name);
    if (req.scan === "copy") checkScanBytes(req.engine, found, bytes);
    out.push({ name, ops: found, seconds, found });
  }
  const seeks = randomIndexes(req.seeks, req.num, 13);
  t = performance.now();
  found = 0;
  const cursor = db.iterator();
  const encoder = new TextEncoder();
  for (let i = 0; i < req.seeks; i++) {
    cursor.seek(encoder.encode(benchKey(seeks[i]!)));
    for (let j = 0; j < 11 && cursor.valid(); j++) {
      found++;
      cursor.next();
    }
  }
  cursor.close();
  out.push({ name: "seekrandom", ops: req.seeks, seconds: (performance.now() - t) / 1000, found });
  await db.close();
  await fs.close();
  console.warn = warn;
  if (warnings.length > 0) throw new Error(`${req.engine}: ${warnings.join("; ")}`);
  return out;
}

/** The Level API's calls: what browser-level and ShaleLevel both have. */
interface LevelLike {
  open(): Promise<void>;
  put(key: string, value: string): Promise<void>;
  get(key: string): Promise<string | undefined>;
  iterator(options?: { gte?: string; limit?: number }): AsyncIterable<[string, string]> & {
    all(): Promise<[string, string][]>;
  };
  close(): Promise<void>;
}

async function runLevel(req: BenchRequest): Promise<WorkloadResult[]> {
  const db: LevelLike =
    req.engine === "shale-level"
      ? new ShaleLevel<string, string>(req.name)
      : new BrowserLevel<string, string>(req.name);
  await db.open();
  const out: WorkloadResult[] = [];
  const order = randomIndexes(req.num, req.num, 7);
  let t = performance.now();
  for (let i = 0; i < req.num; i++) await db.put(benchKey(order[i]!), VALUE);
  out.push({
    name: "fillrandom",
    ops: req.num,
    seconds: (performance.now() - t) / 1000,
    found: req.num,
  });
  const reads = randomIndexes(req.reads, req.num, 11);
  t = performance.now();
  let found = 0;
  for (let i = 0; i < req.reads; i++)
    if ((await db.get(benchKey(reads[i]!))) !== undefined) found++;
  out.push({ name: "readrandom", ops: req.reads, seconds: (performance.now() - t) / 1000, found });
  // A turn of the event loop first, untimed: the driver enables the worker's profiler then.
  if (req.profile) await new Promise((r) => setTimeout(r, 200));
  for (const name of req.rescan ? ["readseq", "readseq2"] : ["readseq"]) {
    if (req.profile) console.profile(name);
    t = performance.now();
    found = 0;
    let bytes = 0;
    // Level's iterator yields copies (strings here) in either mode.
    for await (const [k, v] of db.iterator()) {
      found++;
      bytes += k.length + v.length;
    }
    const seconds = (performance.now() - t) / 1000;
    if (req.profile) console.profileEnd(name);
    if (req.scan === "copy") checkScanBytes(req.engine, found, bytes);
    out.push({ name, ops: found, seconds, found });
  }
  const seeks = randomIndexes(req.seeks, req.num, 13);
  t = performance.now();
  found = 0;
  for (let i = 0; i < req.seeks; i++) {
    found += (await db.iterator({ gte: benchKey(seeks[i]!), limit: 11 }).all()).length;
  }
  out.push({ name: "seekrandom", ops: req.seeks, seconds: (performance.now() - t) / 1000, found });
  await db.close();
  return out;
}

const scope = globalThis as unknown as {
  postMessage(m: unknown): void;
  addEventListener(t: "message", l: (e: { data: BenchRequest }) => void): void;
};
scope.addEventListener("message", (e) => {
  const req = e.data;
  const run =
    req.engine === "shale" || req.engine === "shale-inline"
      ? runShale
      : req.engine === "sqlite-wasm" || req.engine === "sqlite-sahpool"
        ? runSqlite
        : runLevel;
  run(req).then(
    (results) => scope.postMessage({ results }),
    (err: unknown) => scope.postMessage({ error: String((err as Error)?.stack ?? err) }),
  );
});
