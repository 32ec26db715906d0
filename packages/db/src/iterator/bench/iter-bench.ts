/**
 * iter-bench: a micro-benchmark of the DB iterator (not a test; reports figures only).
 *
 *   cd packages/db && npx tsc -b && node dist/iterator/bench/iter-bench.js [--num=1000000]
 *     [--seeks=100000] [--only=one,four] [--workloads=readseq,readreverse,seekrandom,raw]
 *
 * Data: `num` entries, 16-byte db_bench keys (8 big-endian bytes of the index, padded with
 * '0'), 100-byte values (half compressible, stored uncompressed), written into real table
 * files in a temp directory and read through a block cache that holds them all (warmed by
 * one scan before timing).
 *
 * Layouts:
 * - one:  one table holding every key (a fully compacted level).
 * - four: four L0-like tables, each key in one of them at random (overlapping key ranges,
 *         so the merging iterator alternates between children).
 *
 * Workloads, each the median of 3 rounds, wall ns per entry (CPU ns in parentheses):
 * - readseq:     seekToFirst, then next() to the end, reading key() and value() of each entry.
 * - readreverse: seekToLast, then prev() to the start.
 * - seekrandom:  seek to a random existing key, then 10 next() (ns per seek + 10 next).
 * - raw:         readseq and readreverse on the merged internal iterator alone (what the DB
 *                iterator adds on top of it is the difference).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  bytewiseComparator,
  type InternalIterator,
  InternalKeyComparator,
  MAX_SEQ,
  makeInternalKey,
  NodeFileSystem,
  Statistics,
  Ticker,
  ValueKind,
} from "@shale/base";
import { randomSource } from "@shale/base/testing/random";
import { LRUCache } from "@shale/block-cache";
import { newMergingIterator } from "@shale/merging-iterator";
import { type Block, TableBuilder, TableReader } from "@shale/sstable";
import { type DBIterator, newDBIterator } from "../index.js";

function arg(name: string, fallback: string): string {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return a === undefined ? fallback : a.slice(name.length + 3);
}

const NUM = Number(arg("num", "1000000"));
const SEEKS = Number(arg("seeks", "100000"));
const ONLY = new Set(arg("only", "one,four").split(","));
const WORKLOADS = new Set(arg("workloads", "readseq,readreverse,seekrandom,raw").split(","));
const ROUNDS = 3;
const VALUE_SIZE = 100;

/** mulberry32 (@shale/base/testing/random). */
const rng = randomSource;

function userKey(i: number, out = new Uint8Array(16)): Uint8Array {
  out.fill(0x30);
  let v = i;
  for (let k = 7; k >= 0; k--) {
    out[k] = v & 0xff;
    v = Math.floor(v / 256);
  }
  return out;
}

/** db_bench-like values: 50 random printable bytes repeated (compress to about half). */
function valueSource(seed: number): (n: number) => Uint8Array {
  const data = new Uint8Array(1 << 20);
  const rnd = rng(seed);
  for (let p = 0; p < data.length; p += 100) {
    for (let i = 0; i < 50 && p + i < data.length; i++) data[p + i] = 32 + Math.floor(rnd() * 95);
    for (let i = 50; i < 100 && p + i < data.length; i++) data[p + i] = data[p + i - 50]!;
  }
  let pos = 0;
  return (n) => {
    if (pos + n > data.length) pos = 0;
    pos += n;
    return data.subarray(pos - n, pos);
  };
}

interface Timing {
  wall: number;
  cpu: number;
}

function time(ops: number, body: () => number): Timing {
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const sink = body();
  const wall = Number(process.hrtime.bigint() - t0) / ops;
  const used = process.cpuUsage(cpu0);
  if (Number.isNaN(sink)) throw new Error("bad sink");
  return { wall, cpu: ((used.user + used.system) * 1000) / ops };
}

function median(runs: Timing[]): Timing {
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  return { wall: mid(runs.map((r) => r.wall)), cpu: mid(runs.map((r) => r.cpu)) };
}

const fmt = (t: Timing) =>
  `${t.wall.toFixed(0).padStart(7)} ns (cpu ${t.cpu.toFixed(0).padStart(6)})`;

const fs = new NodeFileSystem();
const dir = mkdtempSync(join(tmpdir(), "shale-iter-bench-"));
const icmp = new InternalKeyComparator(bytewiseComparator);
/** Block-cache counters of the readers (to show the timed scans never miss). */
const stats = new Statistics({ level: "except-timers" });

/** Writes `count` tables; key i goes to table `pick(i)`. Returns the open readers. */
function buildTables(name: string, count: number, pick: (i: number) => number): TableReader[] {
  const files = [];
  for (let t = 0; t < count; t++) {
    const path = join(dir, `${name}-${t}.sst`);
    const file = fs.openWritable(path);
    files.push({ path, file, builder: new TableBuilder(file) });
  }
  const value = valueSource(301);
  const key = new Uint8Array(16);
  for (let i = 0; i < NUM; i++) {
    const f = files[pick(i)]!;
    f.builder.add(makeInternalKey(userKey(i, key), i + 1, ValueKind.Value), value(VALUE_SIZE));
  }
  const cache = new LRUCache<Block>({ capacity: 2 * 1024 * 1024 * 1024 });
  return files.map(({ path, file, builder }) => {
    builder.finish();
    file.sync();
    file.close();
    return TableReader.open(fs.openRandomAccess(path), {
      fileName: path,
      fileSize: fs.fileSize(path),
      blockCache: cache,
      statistics: stats,
    });
  });
}

function open(readers: TableReader[]): DBIterator {
  return newDBIterator({
    children: readers.map((r) => r.newIterator()),
    rangeTombstones: readers.map((r) => r.rangeTombstones()),
    comparator: bytewiseComparator,
    mergeOperator: undefined,
    snapshotSeq: MAX_SEQ,
  });
}

function readSeq(it: DBIterator): number {
  let n = 0;
  let sink = 0;
  for (it.seekToFirst(); it.valid(); it.next()) {
    sink += it.key().length + it.value().length;
    n++;
  }
  if (n !== NUM) throw new Error(`readseq saw ${n} of ${NUM}`);
  return sink;
}

function readReverse(it: DBIterator): number {
  let n = 0;
  let sink = 0;
  for (it.seekToLast(); it.valid(); it.prev()) {
    sink += it.key().length + it.value().length;
    n++;
  }
  if (n !== NUM) throw new Error(`readreverse saw ${n} of ${NUM}`);
  return sink;
}

function seekRandom(it: DBIterator, seed: number): number {
  const rnd = rng(seed);
  const key = new Uint8Array(16);
  let sink = 0;
  for (let s = 0; s < SEEKS; s++) {
    it.seek(userKey(Math.floor(rnd() * NUM), key));
    for (let j = 0; j < 10 && it.valid(); j++) {
      sink += it.value().length;
      it.next();
    }
  }
  return sink;
}

function rawReadReverse(iter: InternalIterator): number {
  let n = 0;
  let sink = 0;
  for (iter.seekToLast(); iter.valid(); iter.prev()) {
    sink += iter.key().length + iter.value().length;
    n++;
  }
  if (n !== NUM) throw new Error(`raw reverse scan saw ${n} of ${NUM}`);
  return sink;
}

function rawReadSeq(iter: InternalIterator): number {
  let n = 0;
  let sink = 0;
  for (iter.seekToFirst(); iter.valid(); iter.next()) {
    sink += iter.key().length + iter.value().length;
    n++;
  }
  if (n !== NUM) throw new Error(`raw scan saw ${n} of ${NUM}`);
  return sink;
}

function run(layout: string, readers: TableReader[]): void {
  const it = open(readers);
  readSeq(it); // warm the block cache
  const missesBefore = stats.getTicker(Ticker.BlockCacheMiss);
  const rounds = (body: () => number, ops: number) => {
    const runs: Timing[] = [];
    for (let r = 0; r < ROUNDS; r++) runs.push(time(ops, body));
    return median(runs);
  };
  console.log(`${layout}:`);
  if (WORKLOADS.has("readseq")) {
    console.log(`  readseq           ${fmt(rounds(() => readSeq(it), NUM))} per entry`);
  }
  if (WORKLOADS.has("readreverse")) {
    console.log(`  readreverse       ${fmt(rounds(() => readReverse(it), NUM))} per entry`);
  }
  if (WORKLOADS.has("seekrandom")) {
    let seed = 1;
    const seek = rounds(() => seekRandom(it, seed++), SEEKS);
    console.log(`  seekrandom        ${fmt(seek)} per seek + 10 next`);
  }
  it.close();
  if (WORKLOADS.has("raw")) {
    const raw = newMergingIterator(
      readers.map((r) => r.newIterator()),
      (a, b) => icmp.compare(a, b),
    );
    console.log(`  raw readseq       ${fmt(rounds(() => rawReadSeq(raw), NUM))} per entry`);
    console.log(`  raw readreverse   ${fmt(rounds(() => rawReadReverse(raw), NUM))} per entry`);
    raw.close();
  }
  const misses = stats.getTicker(Ticker.BlockCacheMiss) - missesBefore;
  console.log(`  (block cache misses while timing: ${misses})`);
}

try {
  console.log(
    `iter-bench: ${NUM} entries, 16-byte keys, ${VALUE_SIZE}-byte values, block cache holds all; median of ${ROUNDS}`,
  );
  if (ONLY.has("one")) {
    const readers = buildTables("one", 1, () => 0);
    run("one table", readers);
    for (const r of readers) r.close();
  }
  if (ONLY.has("four")) {
    const rnd = rng(7);
    const readers = buildTables("four", 4, () => Math.floor(rnd() * 4));
    run("four L0-like tables (overlapping)", readers);
    for (const r of readers) r.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
