/**
 * compression-bench: decode speed of the block codecs shale reads, on the data blocks RocksDB
 * 7.8.3 wrote into testdata/rocksdb-compression/ (db_bench fillseq: 16-byte keys, 100-byte
 * values that compress to half, 4 KiB blocks). Not a test; reports figures only.
 *
 *   npx tsc -b && node dist/bench/compression-bench.js [--ms=1500]
 *
 * Each codec decodes its table's compressed data blocks in a loop for `ms` milliseconds per
 * round; the figure is MB/s of decoded output (10^6 bytes), median of 3 rounds, output
 * allocation included. lz4js (the registry's pure-JS LZ4, a dev dependency) is measured
 * beside shale's own LZ4 decoder when it is installed.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { varint32Before, varintEnd } from "@shale/base";
import { decompressBlock } from "../compression/compression.js";
import { rocksdbDataBlocks, type StoredBlock } from "./rocksdb-blocks.js";

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, "").split("=");
    return [k!, v ?? "true"] as const;
  }),
);
const MS = Number(args.get("ms") ?? 1500);
const DIR = fileURLToPath(new URL("../../testdata/rocksdb-compression/", import.meta.url));

function blocksOf(codec: string): StoredBlock[] {
  const file = new Uint8Array(readFileSync(`${DIR}${codec}.sst`));
  return rocksdbDataBlocks(file).blocks.filter((b) => b.type !== 0);
}

/** MB/s of output for `decode` over `blocks`, median of 3 rounds of `MS` ms. */
function measure(blocks: StoredBlock[], decode: (b: StoredBlock) => number): number {
  const rounds: number[] = [];
  for (let r = 0; r < 4; r++) {
    let bytes = 0;
    const start = performance.now();
    let now = start;
    while (now - start < MS) {
      for (let i = 0; i < 64; i++) for (const b of blocks) bytes += decode(b);
      now = performance.now();
    }
    if (r > 0) rounds.push(bytes / 1e6 / ((now - start) / 1000)); // round 0 warms up
  }
  rounds.sort((a, b) => a - b);
  return rounds[1]!;
}

const rows: [string, number, number][] = [];
for (const codec of ["snappy", "lz4", "lz4hc", "zstd", "zlib"]) {
  const blocks = blocksOf(codec);
  const avg =
    blocks.reduce((n, b) => n + decompressBlock(b.bytes, b.type, codec, b.offset).length, 0) /
    blocks.length;
  const mbs = measure(blocks, (b) => decompressBlock(b.bytes, b.type, codec, b.offset).length);
  rows.push([`shale ${codec}`, mbs, avg]);
}
try {
  const lz4js = (await import("lz4js")) as typeof import("lz4js");
  const blocks = blocksOf("lz4");
  const mbs = measure(blocks, (b) => {
    // Skip RocksDB's varint32 size prefix (decoded here to size the output).
    const n = varint32Before(b.bytes, 0, b.bytes.length);
    if (n < 0) throw new Error(`bad size prefix at ${b.offset}`);
    const p = varintEnd;
    const out = new Uint8Array(n);
    return lz4js.decompressBlock(b.bytes, out, p, b.bytes.length - p, 0);
  });
  rows.push(["lz4js 0.2.0 lz4", mbs, 0]);
} catch {
  console.log("(lz4js not installed: skipped)");
}
console.log(`decode MB/s of output, ${MS} ms x 3 rounds, median; node ${process.version}`);
for (const [name, mbs, avg] of rows) {
  console.log(
    `${name.padEnd(18)} ${mbs.toFixed(0).padStart(6)} MB/s${avg ? `  (blocks of ${avg.toFixed(0)} B)` : ""}`,
  );
}
