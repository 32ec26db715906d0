/**
 * memtable-bloom-bench: gets of keys the memtable has not got (db_bench's readmissing) and
 * of keys it has (readrandom), on three databases holding the same keys in their memtable
 * (nothing flushed): no memtable filter, a whole-key filter (`memtablePrefixBloomSizeRatio:
 * 0.1, memtableWholeKeyFiltering: true`) and a prefix filter (`fixedPrefix(8)`, ratio 0.1).
 * CPU time per get, rounds alternating, medians and ratios printed (not a test; reports
 * figures only).
 *
 *   cd packages/db && npx tsc -b && node dist/bench/memtable-bloom-bench.js [--num=200000]
 *     [--reads=200000] [--rounds=7] [--write_buffer_size=67108864] [--reverse]
 *
 * Data: db_bench's keys (8 big-endian bytes of n, then "00000000"), `num` of them in random
 * order, values of 100 bytes, on the in-memory file system. A missing key is one of n >=
 * num: another prefix, so the prefix filter rules it out too. `--reverse` orders keys with
 * the reverse bytewise comparator: the memtable then has no hash index (bytewise only) and
 * a get descends its tree, as every get of a RocksDB skiplist memtable does. The filter is
 * `write_buffer_size * 0.1` bytes (RocksDB's sizing), so its size, not the key count, decides
 * how often a probe misses the CPU caches.
 */
import { MemoryFileSystem, reverseBytewiseComparator } from "@shale/base";
import { fixedPrefix } from "@shale/sstable";
import type { DbOptions } from "../core/options.js";
import { DB } from "../db.js";

function arg(name: string, fallback: string): number {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return Number(a === undefined ? fallback : a.slice(name.length + 3));
}

const NUM = arg("num", "200000");
const READS = arg("reads", "200000");
const ROUNDS = arg("rounds", "7");
const WRITE_BUFFER_SIZE = arg("write_buffer_size", String(64 << 20));
const REVERSE = process.argv.includes("--reverse");

function benchKey(n: number, out: Uint8Array): Uint8Array {
  out.fill(0x30);
  let x = n;
  for (let i = 7; i >= 0; i--) {
    out[i] = x % 256;
    x = Math.floor(x / 256);
  }
  return out;
}

/** `n` pseudo-random integers in [from, from + range), seeded. */
function draws(n: number, from: number, range: number, seed: number): Int32Array {
  let s = seed >>> 0 || 1;
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = from + Math.floor(((s >>> 0) / 4294967296) * range);
  }
  return out;
}

async function load(options: DbOptions): Promise<DB> {
  const db = await DB.open("/db", {
    fs: new MemoryFileSystem(),
    disableAutoCompactions: true,
    writeBufferSize: WRITE_BUFFER_SIZE,
    ...(REVERSE ? { comparator: reverseBytewiseComparator } : {}),
    ...options,
  });
  const value = new Uint8Array(100).fill(0x61);
  const key = new Uint8Array(16);
  const keys = draws(NUM, 0, NUM * 4, 7);
  for (let i = 0; i < NUM; i++) db.put(benchKey(keys[i]!, key), value);
  return db;
}

/** CPU µs per get of `targets`; the keys found. */
function getAll(db: DB, targets: Int32Array): { micros: number; found: number } {
  const key = new Uint8Array(16);
  let found = 0;
  const t0 = process.cpuUsage();
  for (let i = 0; i < targets.length; i++) if (db.has(benchKey(targets[i]!, key))) found++;
  const t = process.cpuUsage(t0);
  return { micros: (t.user + t.system) / targets.length, found };
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;

const variants: [string, DbOptions][] = [
  ["no memtable filter", {}],
  ["whole-key filter", { memtablePrefixBloomSizeRatio: 0.1, memtableWholeKeyFiltering: true }],
  ["prefix filter (8)", { memtablePrefixBloomSizeRatio: 0.1, prefixExtractor: fixedPrefix(8) }],
];
const dbs: DB[] = [];
for (const [, o] of variants) dbs.push(await load(o));
const hitKeys = draws(NUM, 0, NUM * 4, 7).subarray(0, READS);
const loadavg = (await import("node:os")).loadavg()[0]!.toFixed(2);
console.log(
  `${NUM} keys in one memtable (writeBufferSize ${WRITE_BUFFER_SIZE}${REVERSE ? ", reverse bytewise: no hash index" : ""}), ${READS} gets a round; load average ${loadavg}`,
);
for (const [label, targetsOf] of [
  ["readmissing", (r: number) => draws(READS, NUM * 4, NUM * 4, 100 + r)],
  ["readrandom (present)", () => hitKeys],
] as const) {
  const times: number[][] = dbs.map(() => []);
  const found: number[] = dbs.map(() => 0);
  for (const db of dbs) getAll(db, targetsOf(0)); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    const targets = targetsOf(r + 1);
    // Alternate the order of the databases round by round.
    for (let j = 0; j < dbs.length; j++) {
      const k = r % 2 === 0 ? j : dbs.length - 1 - j;
      const res = getAll(dbs[k]!, targets);
      times[k]!.push(res.micros);
      found[k] = res.found;
    }
  }
  console.log(`${label}:`);
  const base = median(times[0]!);
  for (let k = 0; k < dbs.length; k++) {
    const m = median(times[k]!);
    console.log(
      `  ${variants[k]![0].padEnd(20)} ${m.toFixed(3)} µs CPU per get (median of ${ROUNDS}; ${found[k]} of ${READS} found); ratio to none ${(m / base).toFixed(2)}`,
    );
  }
}
for (const db of dbs) await db.close();
