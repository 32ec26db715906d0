/**
 * lz4-bench: LZ4 block compressors side by side on db_bench-like 4 KiB data blocks — shale's
 * own, in WebAssembly (lz4-compress.wat through compressBlock, RocksDB's framing) and in
 * TypeScript (lz4-compress.ts, the fallback, same framing), lz4js 0.2.0 (pure JS)
 * and lz4-wasm-nodejs 0.9.2 (lz4_flex built to WebAssembly); both dev dependencies. Not a
 * test; reports figures only.
 *
 *   npx tsc -b && nice node dist/bench/lz4-bench.js [--ms=600] [--rounds=7]
 *
 * Blocks: a table of 4,000 db_bench entries (16-byte keys, 100-byte values of db_bench's
 * generator, compressible to half) built with compression "none" and blockSize 4096; its
 * data blocks are the inputs. Each round runs every candidate for `ms` ms (compress, then
 * decompress), in alternating order, in this one process; the figure is the median over
 * rounds of MB/s of uncompressed bytes (10^6), output allocation included. Each candidate's
 * output is checked to decode to the input with shale's decoder (all three write the same
 * block format) before timing.
 */
import { MemoryFileSystem, makeInternalKey, putVarint32, ValueKind } from "@shale/base";
import * as lz4wasm from "lz4-wasm-nodejs";
import * as lz4js from "lz4js";
import { compressBlock, decompressBlock } from "../compression/compression.js";
import { lz4DecompressTo } from "../compression/compression-lz4.js";
import { lz4CompressBound, lz4CompressTo } from "../compression/lz4-compress.js";
import { CompressionType } from "../format/format.js";
import { TableBuilder } from "../table/table-builder.js";
import { ValueGenerator } from "./bench-data.js";
import { rocksdbDataBlocks } from "./rocksdb-blocks.js";

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, "").split("=");
    return [k!, v ?? "true"] as const;
  }),
);
const MS = Number(args.get("ms") ?? 600);
const ROUNDS = Number(args.get("rounds") ?? 7);

function dbBenchBlocks(): Uint8Array[] {
  const fs = new MemoryFileSystem();
  const file = fs.openWritable("bench.sst");
  const builder = new TableBuilder(file, { compression: "none", blockSize: 4096, bitsPerKey: 0 });
  const values = new ValueGenerator(301);
  const key = new Uint8Array(16).fill(0x30);
  for (let i = 0; i < 4000; i++) {
    new DataView(key.buffer).setUint32(4, i); // db_bench: 8-byte big-endian number, "0" x 8
    builder.add(makeInternalKey(key, i + 1, ValueKind.Value), values.next(100));
  }
  builder.finish();
  file.close();
  return rocksdbDataBlocks(fs.readFile("bench.sst")).blocks.map((b) => b.bytes.slice());
}

interface Candidate {
  name: string;
  compress(raw: Uint8Array): Uint8Array;
  /** Decodes what `compress` made; returns the decoded length. */
  decompress(block: Uint8Array, rawLength: number): number;
}

/** lz4js clears a 64K-entry table per block: its contract (stale entries would be read). */
const lz4jsTable = new Uint32Array(1 << 16);
const lz4jsOut = new Uint8Array(lz4js.compressBound(1 << 16));

const tsScratch = new Uint8Array(5 + lz4CompressBound(1 << 16));

const candidates: Candidate[] = [
  {
    name: "shale (wasm)",
    compress: (raw) => compressBlock(raw, CompressionType.LZ4) ?? raw,
    decompress: (block) => decompressBlock(block, CompressionType.LZ4, "bench", 0).length,
  },
  {
    name: "shale (TS)",
    compress: (raw) => {
      const start = putVarint32(tsScratch, 0, raw.length);
      return tsScratch.slice(0, lz4CompressTo(raw, 0, raw.length, tsScratch, start));
    },
    decompress: (block) => decompressBlock(block, CompressionType.LZ4, "bench", 0).length,
  },
  {
    name: "lz4js 0.2.0",
    compress: (raw) => {
      lz4jsTable.fill(0);
      const n = lz4js.compressBlock(raw, lz4jsOut, 0, raw.length, lz4jsTable);
      return lz4jsOut.slice(0, n);
    },
    decompress: (block, rawLength) => {
      const out = new Uint8Array(rawLength);
      return lz4js.decompressBlock(block, out, 0, block.length, 0);
    },
  },
  {
    name: "lz4-wasm-nodejs 0.9.2",
    compress: (raw) => lz4wasm.compress(raw),
    decompress: (block) => lz4wasm.decompress(block).length,
  },
];

/** The raw LZ4 block inside each candidate's output (for the cross-check). */
function innerBlock(name: string, out: Uint8Array): Uint8Array {
  if (name.startsWith("shale")) {
    let p = 0;
    while (out[p]! & 0x80) p++;
    return out.subarray(p + 1);
  }
  if (name.startsWith("lz4-wasm")) return out.subarray(4); // lz4_flex: u32 LE size first
  return out;
}

const blocks = dbBenchBlocks();
const rawBytes = blocks.reduce((n, b) => n + b.length, 0);
const compressed = candidates.map((c) => blocks.map((b) => c.compress(b)));
candidates.forEach((c, i) => {
  for (let j = 0; j < blocks.length; j++) {
    const inner = innerBlock(c.name, compressed[i]![j]!);
    const out = new Uint8Array(blocks[j]!.length);
    if (!lz4DecompressTo(inner, 0, inner.length, out, 0, out.length)) {
      throw new Error(`${c.name}: block ${j} does not decode with shale's decoder`);
    }
    if (Buffer.compare(out, blocks[j]!) !== 0) throw new Error(`${c.name}: block ${j} differs`);
  }
});

function rate(fn: () => number): number {
  let bytes = 0;
  const start = performance.now();
  let now = start;
  while (now - start < MS) {
    bytes += fn();
    now = performance.now();
  }
  return bytes / 1e6 / ((now - start) / 1000);
}

const comp: number[][] = candidates.map(() => []);
const decomp: number[][] = candidates.map(() => []);
for (let r = 0; r < ROUNDS; r++) {
  const order = candidates.map((_, i) => i);
  if (r % 2 === 1) order.reverse();
  for (const i of order) {
    const c = candidates[i]!;
    const mine = compressed[i]!;
    comp[i]!.push(
      rate(() => {
        for (const b of blocks) c.compress(b);
        return rawBytes;
      }),
    );
    decomp[i]!.push(
      rate(() => {
        for (let j = 0; j < mine.length; j++) c.decompress(mine[j]!, blocks[j]!.length);
        return rawBytes;
      }),
    );
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(
  `${blocks.length} db_bench-like blocks of ~${Math.round(rawBytes / blocks.length)} B; ` +
    `median of ${ROUNDS} rounds x ${MS} ms, alternating; node ${process.version}`,
);
console.log("candidate               compress MB/s  decompress MB/s  ratio");
candidates.forEach((c, i) => {
  const size = compressed[i]!.reduce((n, b) => n + b.length, 0);
  console.log(
    `${c.name.padEnd(22)} ${median(comp[i]!).toFixed(0).padStart(14)} ${median(decomp[i]!)
      .toFixed(0)
      .padStart(16)}  ${((100 * size) / rawBytes).toFixed(1)} %`,
  );
});
