/**
 * format-bench: table reads at format_version 5 against 6 (context checksums), A/B in one
 * process (not a test; reports figures only).
 *
 *   npx tsc -b && node dist/bench/format-bench.js [--num=200000] [--reads=100000]
 *     [--checksum=2] [--rounds=7]
 *
 * Builds the same `num` entries (16-byte db_bench keys, 100-byte values, no compression) at
 * format 5 and 6 with checksum type `checksum` (default 2, xxHash), then alternates, round
 * by round, the two tables through:
 * - miss: random gets through a block cache of 64 KiB, so nearly every get reads its data
 *   block from the file and verifies its checksum (the path the context modifier is on);
 * - verify: `verifyChecksums` of the whole table, per block.
 * Each figure is the median over the rounds, in wall ns (CPU ns in parentheses).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LookupResult, MAX_SEQ, makeInternalKey, NodeFileSystem, ValueKind } from "@shale/base";
import { LRUCache } from "@shale/block-cache";
import { type Block, TableBuilder, TableReader } from "../index.js";
import {
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

const NUM = Number(arg("num", "200000"));
const READS = Number(arg("reads", "100000"));
const CHECKSUM = Number(arg("checksum", "2"));
const ROUNDS = Number(arg("rounds", "7"));
const VERSIONS = [5, 6] as const;

const fs = new NodeFileSystem();
const dir = mkdtempSync(join(tmpdir(), "shale-format-bench-"));

function build(path: string, formatVersion: number): void {
  const file = fs.openWritable(path);
  const builder = new TableBuilder(file, {
    compression: "none",
    checksumType: CHECKSUM,
    formatVersion,
  });
  const gen = new ValueGenerator(301);
  const key = new Uint8Array(16);
  for (let i = 0; i < NUM; i++) {
    builder.add(makeInternalKey(userKey(i, key), i + 1, ValueKind.Value), gen.next(100));
  }
  builder.finish();
  file.sync();
  file.close();
}

function open(path: string): TableReader {
  return TableReader.open(fs.openRandomAccess(path), {
    fileName: path,
    fileSize: fs.fileSize(path),
    blockCache: new LRUCache<Block>({ capacity: 64 * 1024 }),
  });
}

function misses(reader: TableReader, seed: number): Timing {
  const rnd = rng(seed);
  const key = new Uint8Array(16);
  const result = new LookupResult();
  return timeOps(READS, () => {
    let sink = 0;
    for (let i = 0; i < READS; i++) {
      result.reset();
      reader.get(userKey(Math.floor(rnd() * NUM), key), MAX_SEQ, result);
      if (result.value === undefined) throw new Error("missing key");
      sink += result.value[0]!;
    }
    return sink;
  });
}

function verify(reader: TableReader): Timing {
  let blocks = 1;
  const t = timeOps(1, () => {
    blocks = reader.verifyChecksums().blocks;
    return blocks;
  });
  return { wall: t.wall / blocks, cpu: t.cpu / blocks };
}

try {
  const paths = VERSIONS.map((v) => join(dir, `fv${v}.sst`));
  VERSIONS.forEach((v, i) => {
    build(paths[i]!, v);
  });
  const readers = paths.map(open);
  const miss: Timing[][] = VERSIONS.map(() => []);
  const ver: Timing[][] = VERSIONS.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which version goes first, so neither always runs on a warmer process.
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const i of order) {
      miss[i]!.push(misses(readers[i]!, round + 1));
      ver[i]!.push(verify(readers[i]!));
    }
  }
  console.log(`format-bench: ${NUM} entries, checksum type ${CHECKSUM}, ${ROUNDS} rounds`);
  VERSIONS.forEach((v, i) => {
    console.log(`  format ${v}  get (block-cache miss) ${fmtTiming(medianTiming(miss[i]!))}`);
    console.log(
      `  format ${v}  verifyChecksums        ${fmtTiming(medianTiming(ver[i]!))} per block`,
    );
  });
  for (const r of readers) r.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
