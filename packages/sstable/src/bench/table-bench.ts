/**
 * table-bench: a micro-benchmark of @shale/sstable (not a test; reports figures only).
 *
 *   npx tsc -b && node dist/bench/table-bench.js [--num=1000000] [--reads=200000]
 *
 * 1. build: a table of `num` entries (16-byte db_bench keys, 100-byte values that compress to
 *    about half, like db_bench's RandomGenerator) into a real file, per compression setting.
 * 2. readrandom: random `get` ns/op with a block cache big enough for the whole table
 *    ("full cache", warmed first) and with one a tenth of that size.
 * 3. seed 002 (zero-copy lookups): random `get` of 100 B, 1 KB and 10 KB values returning the
 *    view into the cached block vs copying it into a fresh buffer (`value.slice()`), and the
 *    throughput gain of the view, as RocksDB's PinnableSlice commit reports it.
 *
 * Each measurement is the median of 3 rounds.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LookupResult, makeInternalKey, NodeFileSystem, ValueKind } from "@shale/base";
import { LRUCache } from "@shale/block-cache";
import { type Block, type CompressionName, TableBuilder, TableReader } from "../index.js";

function arg(name: string, fallback: number): number {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return a === undefined ? fallback : Number(a.slice(name.length + 3));
}

const NUM = arg("num", 1_000_000);
const READS = arg("reads", 200_000);
const ROUNDS = 3;

/** mulberry32: deterministic, fast. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * db_bench's RandomGenerator: 1 MiB of data made of 100-byte pieces, each 50 random printable
 * characters repeated (compression ratio 0.5); values are consecutive slices of it.
 */
class ValueGenerator {
  private readonly data = new Uint8Array(1 << 20);
  private pos = 0;
  constructor(seed: number) {
    const rnd = rng(seed);
    const raw = new Uint8Array(50);
    for (let p = 0; p < this.data.length; p += 100) {
      for (let i = 0; i < 50; i++) raw[i] = 32 + Math.floor(rnd() * 95);
      for (let i = 0; i < 100 && p + i < this.data.length; i++) this.data[p + i] = raw[i % 50]!;
    }
  }
  next(n: number): Uint8Array {
    if (this.pos + n > this.data.length) this.pos = 0;
    this.pos += n;
    return this.data.subarray(this.pos - n, this.pos);
  }
}

/** db_bench key: 8 big-endian bytes of the integer, padded with '0' to 16 bytes. */
function userKey(i: number, out = new Uint8Array(16)): Uint8Array {
  out.fill(0x30);
  let v = i;
  for (let b = 7; b >= 0; b--) {
    out[b] = v & 0xff;
    v = Math.floor(v / 256);
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

const fs = new NodeFileSystem();
const dir = mkdtempSync(join(tmpdir(), "shale-table-bench-"));

function build(path: string, num: number, valueSize: number, compression: CompressionName): number {
  const file = fs.openWritable(path);
  const builder = new TableBuilder(file, { compression });
  const gen = new ValueGenerator(301);
  const key = new Uint8Array(16);
  for (let i = 0; i < num; i++) {
    builder.add(makeInternalKey(userKey(i, key), i + 1, ValueKind.Value), gen.next(valueSize));
  }
  builder.finish();
  file.sync();
  file.close();
  return fs.fileSize(path);
}

interface BenchReader extends TableReader {
  blockCacheStats(): { hits: number; misses: number };
}

function open(path: string, cacheBytes: number): BenchReader {
  const blockCache = new LRUCache<Block>({ capacity: cacheBytes });
  const reader = TableReader.open(fs.openRandomAccess(path), {
    fileName: path,
    fileSize: fs.fileSize(path),
    blockCache,
  }) as BenchReader;
  reader.blockCacheStats = () => blockCache.stats();
  return reader;
}

interface Timing {
  /** Wall-clock ns per operation. */
  wall: number;
  /** CPU (user + system) ns per operation: steadier on a busy machine. */
  cpu: number;
}

/**
 * Times `reads` gets of uniformly random keys (written into one reused key buffer, as
 * db_bench does); `copy` also copies every value found. Checks every key is found.
 */
function readRandom(
  reader: TableReader,
  num: number,
  reads: number,
  seed: number,
  copy: boolean,
): Timing {
  const rnd = rng(seed);
  const key = new Uint8Array(16);
  const result = new LookupResult();
  let found = 0;
  let sink = 0;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < reads; i++) {
    result.reset();
    reader.get(userKey(Math.floor(rnd() * num), key), Number.MAX_SAFE_INTEGER, result);
    if (result.value !== undefined) {
      found++;
      const v = copy ? result.value.slice() : result.value;
      sink += v[0]!;
    }
  }
  const wall = Number(process.hrtime.bigint() - t0) / reads;
  const cpuUsed = process.cpuUsage(cpu0);
  if (found !== reads || sink < 0) throw new Error(`found ${found} of ${reads}`);
  return { wall, cpu: ((cpuUsed.user + cpuUsed.system) * 1000) / reads };
}

function medianTiming(runs: Timing[]): Timing {
  return { wall: median(runs.map((r) => r.wall)), cpu: median(runs.map((r) => r.cpu)) };
}

function fmtTiming(t: Timing): string {
  return `${fmt(t.wall)} ns/op (cpu ${fmt(t.cpu)})`;
}

/** Warms the cache with every block (a full scan), for the "full cache" case. */
function warm(reader: TableReader): void {
  const it = reader.newIterator();
  for (it.seekToFirst(); it.valid(); it.next()) it.value();
  it.close();
}

function fmt(n: number, digits = 0): string {
  return n.toFixed(digits).padStart(8);
}

console.log(
  `table-bench: Node ${process.version}, ${NUM} entries (16 B keys, 100 B values), ${READS} gets/round`,
);
console.log(`temp dir ${dir}`);
try {
  for (const compression of ["snappy", "none"] as const) {
    const path = join(dir, `bench-${compression}.sst`);
    const t0 = performance.now();
    const size = build(path, NUM, 100, compression);
    const ms = performance.now() - t0;
    console.log(
      `build  ${compression.padEnd(6)}: ${fmt((ms * 1e6) / NUM)} ns/entry  ${fmt(ms / 1000, 2)} s  file ${(size / 1048576).toFixed(1)} MiB`,
    );
    // Twice the uncompressed size (blocks + index + filter): no shard of the cache overflows.
    const full = 2 * Math.ceil(NUM * 140) + (16 << 20);
    for (const [label, capacity] of [
      ["full cache", full],
      ["cache 1/10", Math.ceil(full / 10)],
    ] as const) {
      const reader = open(path, capacity);
      if (label === "full cache") warm(reader);
      else readRandom(reader, NUM, READS, 1, false);
      const runs: Timing[] = [];
      const before = reader.blockCacheStats();
      for (let r = 0; r < ROUNDS; r++) runs.push(readRandom(reader, NUM, READS, 100 + r, false));
      const after = reader.blockCacheStats();
      const hits = after.hits - before.hits;
      const misses = after.misses - before.misses;
      console.log(
        `get    ${compression.padEnd(6)}: ${fmtTiming(medianTiming(runs))}  ${label} ` +
          `(${(capacity / 1048576).toFixed(0)} MiB, data block hit rate ${((100 * hits) / (hits + misses)).toFixed(1)} %)`,
      );
      reader.close();
    }
  }

  console.log("seed 002: get returning a view into the cached block vs copying the value");
  for (const valueSize of [100, 1024, 10240]) {
    const num = Math.min(NUM, Math.floor((48 << 20) / valueSize));
    const path = join(dir, `bench-v${valueSize}.sst`);
    build(path, num, valueSize, "snappy");
    const reader = open(path, num * (valueSize + 64) * 2 + (8 << 20));
    warm(reader);
    const view: Timing[] = [];
    const copy: Timing[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      view.push(readRandom(reader, num, READS, 200 + r, false));
      copy.push(readRandom(reader, num, READS, 200 + r, true));
    }
    const v = medianTiming(view);
    const c = medianTiming(copy);
    console.log(
      `value ${String(valueSize).padStart(5)} B: view ${fmtTiming(v)}  copy ${fmtTiming(c)}  ` +
        `gain ${((c.wall / v.wall - 1) * 100).toFixed(1)} % (cpu ${((c.cpu / v.cpu - 1) * 100).toFixed(1)} %)`,
    );
    reader.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
