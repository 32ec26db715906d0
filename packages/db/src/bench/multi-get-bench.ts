/**
 * multi-get-bench: `db.getMany` (batched MultiGet) against a loop of `db.getView` and a loop
 * of `db.get` over the same keys, in one process, CPU time per key, the order rotated every
 * round; medians of per-round ratios (not a test; reports figures only).
 *
 *   cd packages/db && npx tsc -b && node dist/bench/multi-get-bench.js [--value_size=100]
 *     [--bytes=33554432] [--reads=200000] [--batch=100] [--rounds=7] [--spread=1]
 *
 * Data: `bytes / value_size` keys of 16 bytes, compacted (compactRange), with a 256 MiB
 * block cache. Each batch is `batch` random keys, drawn from a window of `spread * keys` at a random
 * place (1: uniform over every key, as db_bench's
 * multireadrandom; 0.01: clustered, many keys of a batch in the same data block).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DB } from "../db.js";

function arg(name: string, fallback: string): number {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return Number(a === undefined ? fallback : a.slice(name.length + 3));
}

const VALUE_SIZE = arg("value_size", "100");
const NUM = Math.max(1000, Math.floor(arg("bytes", String(32 << 20)) / VALUE_SIZE));
const READS = arg("reads", "200000");
const BATCH = arg("batch", "100");
const ROUNDS = arg("rounds", "7");
const WINDOW = Math.max(BATCH, Math.floor(NUM * arg("spread", "1")));

const dir = mkdtempSync(join(tmpdir(), "shale-multi-get-bench-"));
const db = await DB.open(dir, { blockCacheSize: 256 << 20 });
const keyOf = (i: number) => {
  const key = new Uint8Array(16).fill(0x30);
  new DataView(key.buffer).setUint32(4, i);
  return key;
};
const value = new Uint8Array(VALUE_SIZE).fill(0x41);
for (let i = 0; i < NUM; i++) db.put(keyOf(i), value);
await db.compactRange();

// The batches, made once: every loop reads the same keys.
let seed = 12345;
const rand = (n: number) => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed % n;
};
const batches: Uint8Array[][] = [];
for (let i = 0; i < READS; i += BATCH) {
  const base = rand(NUM - WINDOW + 1);
  batches.push(Array.from({ length: BATCH }, () => keyOf(base + rand(WINDOW))));
}
const total = batches.length * BATCH;

const loops: Record<string, () => number> = {
  getMany() {
    let sink = 0;
    for (const b of batches) for (const v of db.getMany(b)) sink += v!.length;
    return sink;
  },
  getView() {
    let sink = 0;
    for (const b of batches) for (let i = 0; i < b.length; i++) sink += db.getView(b[i]!)!.length;
    return sink;
  },
  get() {
    let sink = 0;
    for (const b of batches) for (let i = 0; i < b.length; i++) sink += db.get(b[i]!)!.length;
    return sink;
  },
};
const names = Object.keys(loops);
const cpu: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
for (const f of Object.values(loops)) f();
for (let r = 0; r < ROUNDS; r++) {
  for (let j = 0; j < names.length; j++) {
    const name = names[(r + j) % names.length]!;
    const c0 = process.cpuUsage();
    if (loops[name]!() !== total * VALUE_SIZE) throw new Error("bad sink");
    const c = process.cpuUsage(c0);
    cpu[name]!.push((c.user + c.system) / total);
  }
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
const ratio = (a: string, b: string) => median(cpu[a]!.map((x, i) => x / cpu[b]![i]!)).toFixed(3);
console.log(
  `${VALUE_SIZE} B x ${NUM} keys, batches of ${BATCH} over ${WINDOW} keys: ` +
    names.map((n) => `${n} ${median(cpu[n]!).toFixed(3)} µs`).join(", ") +
    ` CPU per key; getMany/getView ${ratio("getMany", "getView")}, getMany/get ${ratio("getMany", "get")}`,
);
await db.close();
rmSync(dir, { recursive: true, force: true });
