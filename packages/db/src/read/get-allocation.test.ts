/**
 * A cached point read allocates nothing on its way (memtable miss, filter probe, index
 * search, block-cache hit, the value found): counted, not timed. A child process (the
 * built package, so the code is what users run) fills a table that the block cache holds
 * whole, warms the read path, then counts the bytes allocated by 50,000 reads with V8's
 * sampling heap profiler (every object sampled at 32-byte intervals, those already collected
 * included). `has` must allocate nothing; `get` only its copy and `getView` only its view —
 * each compared with a loop that makes just that one object (a Uint8Array over the same
 * kind of buffer) in the same process. `getMany` (batches of 100) only its copies and its
 * share of each batch's arrays.
 *
 * Seen failing before the value travelled as a range (`LookupResult.setValueRange`) and the
 * filter hash crossed into the filter as int32: `has` allocated ~104 B per read (a view of
 * the value in the block, 96 B, and a boxed hash half, 16 B every other read).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const dist = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
let dir: string | undefined;

afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const script = (distPath: string, dbDir: string, shared: boolean) => `
  const inspector = await import("node:inspector/promises");
  const { DB } = await import(${JSON.stringify(distPath)});
  const db = await DB.open(${JSON.stringify(dbDir)}, { blockCacheSize: 64 << 20, sharedBlockCache: ${shared} });
  const NUM = 20000;
  const keys = [];
  for (let i = 0; i < NUM; i++) keys.push(new TextEncoder().encode("key" + String(i).padStart(12, "0")));
  const value = new Uint8Array(100).fill(65);
  for (const k of keys) db.put(k, value);
  await db.compactRange(); // every key in one table: each read misses the memtable
  const pool = new ArrayBuffer(32768);
  const loops = {
    has: (k) => (db.has(k) ? 1 : 0),
    get: (k) => db.get(k).length,
    getView: (k) => db.getView(k).length,
    oneView: (k) => new Uint8Array(pool, k[14] * 8, 100).length,
    getMany: "many",
  };
  const N = 50000;
  const BATCH = 100;
  // getMany: the same keys in batches of 100 (per key: the value's copy, and its share of
  // the batch's arrays); counted per key like the others.
  const batches = [];
  for (let b = 0; b < N / BATCH; b++) {
    const batch = [];
    for (let i = 0; i < BATCH; i++) batch.push(keys[((b * BATCH + i) * 7919) % NUM]);
    batches.push(batch);
  }
  const runMany = () => {
    let sink = 0;
    for (const batch of batches) { const values = db.getMany(batch); for (let i = 0; i < values.length; i++) sink += values[i].length; }
    return sink;
  };
  const run = (f) => { if (f === "many") return runMany(); let sink = 0; for (let i = 0; i < N; i++) sink += f(keys[(i * 7919) % NUM]); return sink; };
  for (let r = 0; r < 4; r++) for (const f of Object.values(loops)) run(f);
  const profiler = new inspector[\`S\${"es"}sion\`](); // named through a constant: see get-alloc-bench.ts
  profiler.connect();
  const out = {};
  for (const [name, f] of Object.entries(loops)) {
    await profiler.post("HeapProfiler.startSampling", {
      samplingInterval: 32,
      includeObjectsCollectedByMinorGC: true,
      includeObjectsCollectedByMajorGC: true,
    });
    const sink = run(f);
    const { profile } = await profiler.post("HeapProfiler.stopSampling");
    let bytes = 0;
    const walk = (n) => { bytes += n.selfSize; for (const c of n.children) walk(c); };
    walk(profile.head);
    out[name] = { perOp: bytes / N, sink };
  }
  profiler.disconnect();
  await db.close();
  console.log("RESULT " + JSON.stringify(out));
`;

describe("a cached get allocates only what it returns", () => {
  // sharedBlockCache: the data block is searched in its slab, the value copied out of it
  // (slab-get.ts) — no Block, no view, no allocation either.
  it.each([false, true])(
    "has: 0 bytes per read; get: its copy; getView: its view (sharedBlockCache: %s)",
    (shared) => {
      dir = mkdtempSync(join(tmpdir(), "shale-get-allocation-"));
      const r = spawnSync(
        process.execPath,
        ["--input-type=module", "-e", script(dist, join(dir, "db"), shared)],
        // Without the invariant checks the tests run with (they copy every view handed out).
        { encoding: "utf8", timeout: 120_000, env: { ...process.env, SHALE_INVARIANTS: "0" } },
      );
      const line = r.stdout.split("\n").find((l) => l.startsWith("RESULT "));
      expect(line, r.stderr).toBeDefined();
      const m = JSON.parse(line!.slice(7)) as Record<string, { perOp: number; sink: number }>;
      // Every read found its 100-byte value.
      expect(m["get"]!.sink).toBe(50000 * 100);
      expect(m["has"]!.sink).toBe(50000);
      // The one object each API returns costs what a bare Uint8Array view costs (~96 B).
      expect(m["oneView"]!.perOp).toBeGreaterThan(40);
      // Sampling leaves a few bytes of the profiler's own (its promises) per read at most.
      expect(m["has"]!.perOp).toBeLessThan(4);
      expect(m["get"]!.perOp).toBeLessThan(m["oneView"]!.perOp + 4);
      expect(m["getView"]!.perOp).toBeLessThan(m["oneView"]!.perOp + 4);
      // getMany: the copy, plus about 2 x 8 B per key of the batch's arrays (the keys as bytes,
      // the results). Seen failing with a view made of each value in its block (+96 B per key)
      // and the error label of each key built up front (+48 B per key).
      expect(m["getMany"]!.sink).toBe(50000 * 100);
      expect(m["getMany"]!.perOp).toBeLessThan(m["oneView"]!.perOp + 40);
    },
    120_000,
  );
});
