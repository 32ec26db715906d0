/**
 * prefix-seek-bench: db_bench's seekrandom (a new iterator, a seek to a random key, 10
 * nexts) over the same keys in two databases, one with `prefixExtractor: fixedPrefix(8)`
 * (db_bench --prefix_size=8) and one without, in one process; CPU time per seek, rounds
 * alternating, medians and their ratio printed (not a test; reports figures only).
 *
 *   cd packages/db && npx tsc -b && node dist/bench/prefix-seek-bench.js [--num=200000]
 *     [--reads=20000] [--rounds=7] [--tables=16] [--seek_nexts=10] [--prefix_same_as_start]
 *
 * Data: db_bench's keys (8 big-endian bytes of n, then "00000000") of fillrandom, `num` of
 * them in random order, flushed into `tables` L0 tables (no compaction: the shape a prefix
 * Bloom filter helps, as RocksDB's tables before L0 compacts), values of 100 bytes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixedPrefix } from "@shale/sstable";
import type { IteratorOptions } from "../core/options.js";
import { DB } from "../db.js";

function arg(name: string, fallback: string): number {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return Number(a === undefined ? fallback : a.slice(name.length + 3));
}

const NUM = arg("num", "200000");
const READS = arg("reads", "20000");
const ROUNDS = arg("rounds", "7");
const TABLES = arg("tables", "16");
const NEXTS = arg("seek_nexts", "10");
const SAME = process.argv.includes("--prefix_same_as_start");

function benchKey(n: number, out: Uint8Array): Uint8Array {
  out.fill(0x30);
  let x = n;
  for (let i = 7; i >= 0; i--) {
    out[i] = x % 256;
    x = Math.floor(x / 256);
  }
  return out;
}

/** A random permutation's first `n` draws, seeded (the same for both databases). */
function order(n: number, seed: number): number[] {
  let s = seed >>> 0 || 1;
  const rnd = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
  const a = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

const dirs: string[] = [];
async function load(withExtractor: boolean): Promise<DB> {
  const dir = mkdtempSync(join(tmpdir(), "shale-prefix-bench-"));
  dirs.push(dir);
  const db = await DB.open(dir, {
    disableAutoCompactions: true,
    ...(withExtractor ? { prefixExtractor: fixedPrefix(8) } : {}),
  });
  const keys = order(NUM, 7);
  const value = new Uint8Array(100).fill(0x61);
  const key = new Uint8Array(16);
  const per = Math.ceil(NUM / TABLES);
  for (let i = 0; i < NUM; i++) {
    db.put(benchKey(keys[i]!, key), value);
    if ((i + 1) % per === 0) await db.flush();
  }
  await db.flush();
  return db;
}

function seekRandom(db: DB, ro: IteratorOptions, seed: number): { micros: number; found: number } {
  const targets = order(NUM, seed).slice(0, READS);
  const key = new Uint8Array(16);
  let found = 0;
  const t0 = process.cpuUsage();
  for (const n of targets) {
    const it = db.iterator(ro);
    it.seek(benchKey(n, key));
    if (it.valid()) found++;
    for (let j = 0; j < NEXTS && it.valid(); j++) it.next();
    it.close();
  }
  const t = process.cpuUsage(t0);
  return { micros: (t.user + t.system) / READS, found };
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;

const plain = await load(false);
const prefixed = await load(true);
const ro: IteratorOptions = SAME ? { prefixSameAsStart: true } : {};
seekRandom(plain, {}, 1);
seekRandom(prefixed, ro, 1);
const a: number[] = [];
const b: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const first = r % 2 === 0;
  if (first) a.push(seekRandom(plain, {}, 100 + r).micros);
  b.push(seekRandom(prefixed, ro, 100 + r).micros);
  if (!first) a.push(seekRandom(plain, {}, 100 + r).micros);
}
const loadavg = (await import("node:os")).loadavg()[0]!.toFixed(2);
console.log(
  `seekrandom ${NUM} keys in ${TABLES} L0 tables, ${NEXTS} nexts${SAME ? ", prefixSameAsStart" : ""}; load average ${loadavg}`,
);
console.log(
  `  no prefix extractor:      ${median(a).toFixed(2)} µs CPU per seek (median of ${ROUNDS})`,
);
console.log(`  fixedPrefix(8):           ${median(b).toFixed(2)} µs CPU per seek`);
console.log(`  ratio (prefix / none):    ${(median(b) / median(a)).toFixed(2)}`);
await plain.close();
await prefixed.close();
for (const d of dirs) rmSync(d, { recursive: true, force: true });
