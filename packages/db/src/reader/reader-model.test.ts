/**
 * The model test of worker readers (reader.ts): this thread writes a seeded random
 * workload (puts, deletes, range deletions, batches, flushes, compactions) and, after each
 * write returns, publishes how many were acknowledged in a SharedArrayBuffer; two worker
 * threads read meanwhile (test-fixtures/reader-worker.mjs, op "model"), each read noting
 * the acknowledged count before and after it. Every read must see:
 *
 * - every write acknowledged before it began (its sequence >= that write's);
 * - no write beyond the one in flight when it ended (never a future state);
 * - a whole state: a snapshot's sequence is the end of a batch, and its forward scan,
 *   backward scan, get and getMany are exactly the model's state there.
 *
 * `SHALE_STRESS=1` runs more operations and seeds.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SharedBlockCache } from "@shale/block-cache";
import { afterEach, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { WriteBatch } from "../write/write-batch.js";
import { ReaderWorker } from "./reader-worker.test-support.js";

const stress = process.env["SHALE_STRESS"] === "1";
const OPS = stress ? 20_000 : 1500;
const SEEDS = stress ? [1, 2, 3, 4, 5] : [7];
const KEYS = Array.from({ length: 40 }, (_, i) => `k${String(i).padStart(2, "0")}`);

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** xorshift32: the workload is the same for a seed. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}

interface Check {
  a0: number;
  a1: number;
  seq: number;
  entries: [string, string][];
  back: [string, string][];
  probe: string;
  viaGet: string | null;
  many: (string | null)[];
}
interface Get {
  b0: number;
  b1: number;
  key: string;
  value: string | null;
}

/** What the writer acknowledged: the sequence after each write, the state at each. */
class Model {
  readonly current = new Map<string, string>();
  /** ackSeq[i]: the last sequence of write i (0: before any). */
  readonly ackSeq: number[] = [];
  /** The scan (as JSON) at the end of each write. */
  readonly states = new Map<number, string>();
  /** Per key: [seq, value] after each write that touched it. */
  readonly history = new Map<string, [number, string | null][]>();

  acknowledge(seq: number, touched: Iterable<string>): void {
    this.ackSeq.push(seq);
    this.states.set(seq, JSON.stringify(this.scan()));
    for (const k of touched) {
      let h = this.history.get(k);
      if (h === undefined) this.history.set(k, (h = [[0, null]]));
      h.push([seq, this.current.get(k) ?? null]);
    }
  }

  scan(): [string, string][] {
    return [...this.current].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }

  /** Sequence of write `i`, capped to the last one. */
  seqOf(i: number): number {
    return this.ackSeq[Math.min(i, this.ackSeq.length - 1)]!;
  }

  /** The values `key` had at sequences in [lo, hi]. */
  valuesBetween(key: string, lo: number, hi: number): (string | null)[] {
    const h = this.history.get(key) ?? [[0, null]];
    const out: (string | null)[] = [];
    let atLo: string | null = null;
    for (const [seq, v] of h) {
      if (seq <= lo) atLo = v;
      else if (seq <= hi) out.push(v);
    }
    return [atLo, ...out];
  }
}

async function run(
  seed: number,
  sharedBlockCache: boolean,
): Promise<{ checks: number; gets: number }> {
  const dir = mkdtempSync(join(tmpdir(), "shale-reader-model-"));
  dirs.push(dir);
  const db = await DB.open(dir, {
    writeBufferSize: 64 * 1024,
    level0FileNumCompactionTrigger: 2,
    // A small shared cache (the writer's and both readers'): blocks evicted all the time.
    ...(sharedBlockCache ? { sharedBlockCache: true, blockCacheSize: 256 * 1024 } : {}),
  });
  const model = new Model();
  const ack = new SharedArrayBuffer(4);
  const stop = new SharedArrayBuffer(4);
  const acked = new Int32Array(ack);
  model.acknowledge(db.latestSequence, []);
  const workers = [new ReaderWorker(db.readerHandle()), new ReaderWorker(db.readerHandle())];
  const results: Promise<{ checks: Check[]; gets: Get[] }>[] = [];
  try {
    await Promise.all(workers.map((w) => w.ready));
    for (const w of workers) results.push(w.call("model", { ack, stop, keys: KEYS }));
    const random = rng(seed);
    const pick = () => KEYS[Math.floor(random() * KEYS.length)]!;
    const value = (i: number) => `v${i}-${"x".repeat(Math.floor(random() * 200))}`;
    for (let i = 1; i <= OPS; i++) {
      const r = random();
      const touched = new Set<string>();
      if (r < 0.5) {
        const k = pick();
        const v = value(i);
        db.put(k, v);
        model.current.set(k, v);
        touched.add(k);
      } else if (r < 0.65) {
        const k = pick();
        db.delete(k);
        model.current.delete(k);
        touched.add(k);
      } else if (r < 0.7) {
        let [a, b] = [pick(), pick()];
        if (a > b) [a, b] = [b, a];
        db.deleteRange(a, b);
        for (const k of KEYS)
          if (k >= a && k < b) {
            model.current.delete(k);
            touched.add(k);
          }
      } else {
        const batch = new WriteBatch();
        const n = 2 + Math.floor(random() * 3);
        for (let j = 0; j < n; j++) {
          const k = pick();
          if (random() < 0.7) {
            const v = value(i * 10 + j);
            batch.put(k, v);
            model.current.set(k, v);
          } else {
            batch.delete(k);
            model.current.delete(k);
          }
          touched.add(k);
        }
        db.write(batch);
      }
      model.acknowledge(db.latestSequence, touched);
      Atomics.store(acked, 0, i);
      if (i % 150 === 0) await db.flush();
      if (i % 500 === 0) await db.compactRange();
      if (i % 5 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    Atomics.store(new Int32Array(stop), 0, 1);
    let checks = 0;
    let gets = 0;
    for (const result of await Promise.all(results)) {
      for (const c of result.checks) {
        const what = `seed ${seed}: read between writes ${c.a0} and ${c.a1} at seq ${c.seq}`;
        expect(c.seq, `${what}: missed an acknowledged write`).toBeGreaterThanOrEqual(
          model.seqOf(c.a0),
        );
        expect(c.seq, `${what}: saw the future`).toBeLessThanOrEqual(model.seqOf(c.a1 + 1));
        const state = model.states.get(c.seq);
        expect(state, `${what}: not the end of a write`).toBeDefined();
        expect(JSON.stringify(c.entries), what).toBe(state);
        expect(c.back, what).toEqual([...c.entries].reverse());
        const at = new Map(c.entries);
        expect(c.viaGet, what).toBe(at.get(c.probe) ?? null);
        expect(c.many, what).toEqual([at.get(c.probe) ?? null, at.get(KEYS[0]!) ?? null]);
        checks++;
      }
      for (const g of result.gets) {
        const allowed = model.valuesBetween(g.key, model.seqOf(g.b0), model.seqOf(g.b1 + 1));
        expect(allowed, `seed ${seed}: get ${g.key} between ${g.b0} and ${g.b1}`).toContain(
          g.value,
        );
        gets++;
      }
    }
    for (const w of workers) await w.call("close");
    if (sharedBlockCache) {
      // The readers' point lookups went through the one shared cache.
      const stats = SharedBlockCache.attach(db.readerHandle().sharedBlockCache!).stats();
      expect(stats.inserts).toBeGreaterThan(0);
      expect(stats.usage).toBeLessThanOrEqual(stats.capacity);
    }
    return { checks, gets };
  } finally {
    Atomics.store(new Int32Array(stop), 0, 1);
    for (const w of workers) await w.stop();
    await db.close();
  }
}

describe("worker readers against a model of the writer", () => {
  it.each([
    ...SEEDS.map((seed) => [seed, false] as const),
    ...SEEDS.slice(0, 2).map((seed) => [seed, true] as const),
  ])(
    "seed %i (shared block cache: %s): every read sees every acknowledged write, whole, nothing later",
    async (seed, shared) => {
      const { checks, gets } = await run(seed, shared);
      expect(checks).toBeGreaterThan(10);
      expect(gets).toBeGreaterThan(10);
    },
    120_000,
  );
});
