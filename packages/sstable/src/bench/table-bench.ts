/**
 * table-bench: a micro-benchmark of @shale/sstable (not a test; reports figures only).
 *
 *   npx tsc -b && node dist/bench/table-bench.js [--num=1000000] [--reads=200000]
 *     [--only=get,hot,scan,open,seed002] [--compression=snappy,none] [--checksum=0..4]
 *
 * 1. build: a table of `num` entries (16-byte db_bench keys, 100-byte values that compress to
 *    about half, like db_bench's RandomGenerator) into a real file, per compression setting.
 * 2. get: random `get` ns/op with a block cache big enough for the whole table ("full
 *    cache", warmed first) and with one a tenth of that size; and "hot": random gets of the
 *    first 2,000 keys only (a working set of ~60 blocks, in the CPU caches).
 * 3. scan (full cache): a whole-table iterator scan forward (seekToFirst, next) and reverse
 *    (seekToLast, prev), reading key() and value() of every entry, in ns/entry; and random
 *    seek followed by 10 next (ns per seek+10 next).
 * 3b. open: TableReader.open + close of the built table without a block cache (not in the
 *    default set), ns per open.
 * 3c. index (not in the default set): the same random gets on the same entries written with
 *    a one-block index and with a partitioned index and filters (`indexType: "twoLevelIndex"`,
 *    `partitionFilters`, 4 KiB partitions; `--index=` picks the variants: flat, partitioned,
 *    partitioned-index, first-key, hash: the data block hash index), each over its own `newBlockCache` (data-block slots as a
 *    database's), full and 1/10 cache; one round of each variant in turn, `--ab-rounds`
 *    (default 7) rounds, medians, and each variant's ratio to the first.
 * 4. seed 002 (zero-copy lookups): random `get` of 100 B, 1 KB and 10 KB values returning the
 *    view into the cached block vs copying it into a fresh buffer (`value.slice()`), and the
 *    throughput gain of the view, as RocksDB's PinnableSlice commit reports it.
 *
 * Each measurement is the median of 3 rounds; CPU time (process.cpuUsage) in parentheses.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  KIND_FOR_SEEK,
  LookupResult,
  MAX_SEQ,
  makeInternalKey,
  NodeFileSystem,
  putTrailer,
  ValueKind,
} from "@shale/base";
import { LRUCache } from "@shale/block-cache";
import {
  type Block,
  type CompressionName,
  newBlockCache,
  TableBuilder,
  type TableBuilderOptions,
  TableReader,
} from "../index.js";
import {
  fmt,
  fmtTiming,
  medianTiming,
  rng,
  type Timing,
  timeOps,
  userKey,
  ValueGenerator,
} from "./bench-data.js";

function arg(name: string, fallback: string): string {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return a === undefined ? fallback : a.slice(name.length + 3);
}

const NUM = Number(arg("num", "1000000"));
const READS = Number(arg("reads", "200000"));
const ONLY = new Set(arg("only", "get,hot,scan,seed002").split(","));
const HOT_KEYS = 2000;
const COMPRESSIONS = arg("compression", "snappy,none").split(",") as CompressionName[];
/** Block checksum type written (`ChecksumType`, 0-4). Default: the builder's (CRC32c). */
const CHECKSUM = process.argv.some((a) => a.startsWith("--checksum="))
  ? Number(arg("checksum", "1"))
  : undefined;
const ROUNDS = 3;

const fs = new NodeFileSystem();
const dir = mkdtempSync(join(tmpdir(), "shale-table-bench-"));

function build(
  path: string,
  num: number,
  valueSize: number,
  compression: CompressionName,
  extra: TableBuilderOptions = {},
): number {
  const file = fs.openWritable(path);
  const builder = new TableBuilder(file, {
    ...(CHECKSUM === undefined ? { compression } : { compression, checksumType: CHECKSUM }),
    ...extra,
  });
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

function open(path: string, cacheBytes: number, slotted = false): BenchReader {
  const blockCache = slotted
    ? newBlockCache(cacheBytes)
    : new LRUCache<Block>({ capacity: cacheBytes });
  const reader = TableReader.open(fs.openRandomAccess(path), {
    fileName: path,
    fileSize: fs.fileSize(path),
    blockCache,
  }) as BenchReader;
  reader.blockCacheStats = () => blockCache.stats();
  return reader;
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
  return timeOps(reads, () => {
    let found = 0;
    let sink = 0;
    for (let i = 0; i < reads; i++) {
      result.reset();
      reader.get(userKey(Math.floor(rnd() * num), key), MAX_SEQ, result);
      if (result.value !== undefined) {
        found++;
        const v = copy ? result.value.slice() : result.value;
        sink += v[0]!;
      }
    }
    if (found !== reads) throw new Error(`found ${found} of ${reads}`);
    return sink;
  });
}

/** A full scan reading key() and value() of every entry; ns per entry. */
function scan(reader: TableReader, num: number, reverse: boolean): Timing {
  return timeOps(num, () => {
    const it = reader.newIterator();
    let n = 0;
    let sink = 0;
    if (reverse) {
      for (it.seekToLast(); it.valid(); it.prev()) {
        sink += it.key().length + it.value()[0]!;
        n++;
      }
    } else {
      for (it.seekToFirst(); it.valid(); it.next()) {
        sink += it.key().length + it.value()[0]!;
        n++;
      }
    }
    it.close();
    if (n !== num) throw new Error(`scanned ${n} of ${num}`);
    return sink;
  });
}

/** `seeks` random seeks, each followed by 10 next; ns per seek+10 next. */
function seekNext(reader: TableReader, num: number, seeks: number, seed: number): Timing {
  const rnd = rng(seed);
  const target = new Uint8Array(24);
  return timeOps(seeks, () => {
    const it = reader.newIterator();
    let sink = 0;
    for (let i = 0; i < seeks; i++) {
      userKey(Math.floor(rnd() * num), target);
      putTrailer(target, 16, MAX_SEQ, KIND_FOR_SEEK);
      it.seek(target);
      for (let j = 0; j < 10 && it.valid(); j++) {
        sink += it.key().length + it.value()[0]!;
        it.next();
      }
    }
    it.close();
    return sink;
  });
}

/** Warms the cache with every block (a full scan), for the "full cache" case. */
function warm(reader: TableReader): void {
  const it = reader.newIterator();
  for (it.seekToFirst(); it.valid(); it.next()) it.value();
  it.close();
}

function rounds(f: (round: number) => Timing): Timing {
  const runs: Timing[] = [];
  for (let r = 0; r < ROUNDS; r++) runs.push(f(r));
  return medianTiming(runs);
}

/** The index variants of `--only=index` (see the header, 3c). */
const INDEX_VARIANTS: Record<string, TableBuilderOptions> = {
  flat: {},
  partitioned: { indexType: "twoLevelIndex", partitionFilters: true },
  "partitioned-index": { indexType: "twoLevelIndex" },
  "first-key": { indexType: "binarySearchWithFirstKey" },
  hash: { dataBlockIndexType: "binaryAndHash" },
};

function indexAB(): void {
  const names = arg("index", "flat,partitioned").split(",");
  const abRounds = Number(arg("ab-rounds", "7"));
  const compression = COMPRESSIONS[0]!;
  const full = 2 * Math.ceil(NUM * 140) + (16 << 20);
  const paths = names.map((name) => {
    const path = join(dir, `index-${name}.sst`);
    const size = build(path, NUM, 100, compression, INDEX_VARIANTS[name]);
    console.log(
      `index  ${name.padEnd(18)}: ${compression}, file ${(size / 1048576).toFixed(1)} MiB`,
    );
    return path;
  });
  for (const [label, capacity] of [
    ["full cache", full],
    ["cache 1/10", Math.ceil(full / 10)],
  ] as const) {
    const readers = paths.map((path) => open(path, capacity, true));
    for (const reader of readers) {
      if (label === "full cache") warm(reader);
      else readRandom(reader, NUM, READS, 1, false);
    }
    const runs: Timing[][] = names.map(() => []);
    for (let r = 0; r < abRounds; r++) {
      // Every variant in turn, the same keys: neighbours' noise hits all of them alike.
      for (let v = 0; v < names.length; v++) {
        runs[v]!.push(readRandom(readers[v]!, NUM, READS, 700 + r, false));
      }
    }
    const base = medianTiming(runs[0]!);
    for (let v = 0; v < names.length; v++) {
      const t = medianTiming(runs[v]!);
      console.log(
        `get    ${names[v]!.padEnd(18)}: ${fmtTiming(t)}  ${label} (${(capacity / 1048576).toFixed(0)} MiB)` +
          `  x${(t.wall / base.wall).toFixed(3)} wall, x${(t.cpu / base.cpu).toFixed(3)} cpu`,
      );
    }
    for (const reader of readers) reader.close();
  }
}

console.log(
  `table-bench: Node ${process.version}, ${NUM} entries (16 B keys, 100 B values), ${READS} gets/round`,
);
console.log(`temp dir ${dir}`);
try {
  for (const compression of COMPRESSIONS) {
    if (!ONLY.has("get") && !ONLY.has("hot") && !ONLY.has("scan") && !ONLY.has("open")) break;
    const path = join(dir, `bench-${compression}.sst`);
    const t0 = performance.now();
    const size = build(path, NUM, 100, compression);
    const ms = performance.now() - t0;
    console.log(
      `build  ${compression.padEnd(6)}: ${fmt((ms * 1e6) / NUM)} ns/entry  ${fmt(ms / 1000, 2)} s  file ${(size / 1048576).toFixed(1)} MiB`,
    );
    // Twice the uncompressed size (blocks + index + filter): no shard of the cache overflows.
    const full = 2 * Math.ceil(NUM * 140) + (16 << 20);
    if (ONLY.has("get")) {
      for (const [label, capacity] of [
        ["full cache", full],
        ["cache 1/10", Math.ceil(full / 10)],
      ] as const) {
        const reader = open(path, capacity);
        if (label === "full cache") warm(reader);
        else readRandom(reader, NUM, READS, 1, false);
        const before = reader.blockCacheStats();
        const t = rounds((r) => readRandom(reader, NUM, READS, 100 + r, false));
        const after = reader.blockCacheStats();
        const hits = after.hits - before.hits;
        const misses = after.misses - before.misses;
        console.log(
          `get    ${compression.padEnd(6)}: ${fmtTiming(t)}  ${label} ` +
            `(${(capacity / 1048576).toFixed(0)} MiB, data block hit rate ${((100 * hits) / (hits + misses)).toFixed(1)} %)`,
        );
        reader.close();
      }
    }
    if (ONLY.has("open")) {
      // TableReader.open without a block cache (footer, metaindex, properties, filter and
      // index read, checksummed and parsed) and close; the file stays in the OS page cache.
      const size = fs.fileSize(path);
      const opens = 50;
      const t = rounds(() =>
        timeOps(opens, () => {
          let sink = 0;
          for (let i = 0; i < opens; i++) {
            const reader = TableReader.open(fs.openRandomAccess(path), { fileSize: size });
            sink += reader.properties.numDataBlocks;
            reader.close();
          }
          return sink;
        }),
      );
      console.log(`open   ${compression.padEnd(6)}: ${fmtTiming(t)}  TableReader.open + close`);
    }
    if (ONLY.has("hot")) {
      const reader = open(path, full);
      warm(reader);
      const t = rounds((r) => readRandom(reader, HOT_KEYS, READS, 400 + r, false));
      console.log(`get    ${compression.padEnd(6)}: ${fmtTiming(t)}  hot (${HOT_KEYS} keys)`);
      reader.close();
    }
    if (ONLY.has("scan")) {
      const reader = open(path, full);
      warm(reader);
      const fwd = rounds(() => scan(reader, NUM, false));
      console.log(`scan   ${compression.padEnd(6)}: forward ${fmtTiming(fwd)} per entry`);
      const rev = rounds(() => scan(reader, NUM, true));
      console.log(`scan   ${compression.padEnd(6)}: reverse ${fmtTiming(rev)} per entry`);
      const seeks = Math.max(1, READS >> 1);
      const sn = rounds((r) => seekNext(reader, NUM, seeks, 300 + r));
      console.log(`seek   ${compression.padEnd(6)}: seek+10 next ${fmtTiming(sn)}`);
      reader.close();
    }
  }

  if (ONLY.has("index")) indexAB();

  if (ONLY.has("seed002")) {
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
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
