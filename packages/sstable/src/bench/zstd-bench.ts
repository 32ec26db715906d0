/**
 * zstd-bench: zstd compress (levels 1 and 3) and decompress speed on realistic 4 KiB data
 * blocks, shale's codec (zstd's C library in WebAssembly, zstd.ts) against the registry's
 * alternatives without native code: `zstd-codec` 0.1.5 (zstd compiled by Emscripten, its
 * WebAssembly build; a dev dependency, bench only) both ways, and `fzstd` 0.1.1 (pure JS,
 * decompression only). Also the size each one adds to a bundle. Not a test; reports figures.
 *
 *   npx tsc -b && node dist/bench/zstd-bench.js [--ms=600] [--rounds=5]
 *
 * Blocks: the uncompressed data blocks RocksDB 7.8.3 wrote into
 * testdata/rocksdb-compression/none.sst (db_bench fillseq: 16-byte keys, 100-byte values that
 * compress to about half, 4 KiB blocks). Every codec runs over the same blocks (each decoder
 * over the same level-3 frames, checked to give the blocks back) for `ms` ms per round; the codecs alternate within each round (A/B in one process,
 * the order rotating every round) and the figure is the median of `rounds` rounds of MB/s
 * of uncompressed bytes (10^6), output allocation included.
 */
import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { decompress as fzstdDecompress } from "fzstd";
import { loadZstd, zstdCodec } from "../compression/zstd.js";
import { ZSTD_WASM_BASE64 } from "../compression/zstd-wasm-bytes.js";
import { rocksdbDataBlocks } from "./rocksdb-blocks.js";

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, "").split("=");
    return [k!, v ?? "true"] as const;
  }),
);
const MS = Number(args.get("ms") ?? 600);
const ROUNDS = Number(args.get("rounds") ?? 5);
const require = createRequire(import.meta.url);
const TABLE = fileURLToPath(
  new URL("../../testdata/rocksdb-compression/none.sst", import.meta.url),
);

interface ZstdCodecSimple {
  compress(data: Uint8Array, level: number): Uint8Array | null;
  decompress(data: Uint8Array): Uint8Array | null;
}

/** zstd-codec's Simple API (its WebAssembly build), once its runtime is up. */
function loadZstdCodec(): Promise<ZstdCodecSimple> {
  const { ZstdCodec } = require("zstd-codec") as {
    ZstdCodec: { run(f: (zstd: { Simple: new () => ZstdCodecSimple }) => void): void };
  };
  return new Promise((resolve) => ZstdCodec.run((zstd) => resolve(new zstd.Simple())));
}

const raw = rocksdbDataBlocks(new Uint8Array(readFileSync(TABLE))).blocks.map((b) =>
  b.bytes.slice(),
);
const rawBytes = raw.reduce((n, b) => n + b.length, 0);

await loadZstd();
const shale = zstdCodec()!;
const other = await loadZstdCodec();

type Case = { name: string; run: () => void };
const cases: Case[] = [];
for (const level of [1, 3]) {
  cases.push({
    name: `compress L${level}: shale (zstd wasm)`,
    run: () => {
      for (const b of raw) shale.compress(b, level);
    },
  });
  cases.push({
    name: `compress L${level}: zstd-codec`,
    run: () => {
      for (const b of raw) other.compress(b, level);
    },
  });
}
const frames = raw.map((b) => shale.compress(b, 3));
const ratio = frames.reduce((n, f) => n + f.length, 0) / rawBytes;
// Each decoder must give the blocks back before it is timed.
for (let i = 0; i < raw.length; i++) {
  const want = Buffer.from(raw[i]!);
  if (
    !want.equals(shale.decompress(frames[i]!, raw[i]!.length)) ||
    !want.equals(Buffer.from(other.decompress(frames[i]!)!)) ||
    !want.equals(Buffer.from(fzstdDecompress(frames[i]!)))
  ) {
    throw new Error(`block ${i}: a decoder disagrees`);
  }
}
cases.push({
  name: "decompress: shale (zstd wasm)",
  run: () => {
    for (let i = 0; i < frames.length; i++) shale.decompress(frames[i]!, raw[i]!.length);
  },
});
cases.push({
  name: "decompress: zstd-codec",
  run: () => {
    for (const f of frames) other.decompress(f);
  },
});
cases.push({
  name: "decompress: fzstd (pure JS)",
  run: () => {
    for (const f of frames) fzstdDecompress(f);
  },
});

/** MB/s of raw bytes over `MS` ms of `c`. */
function timeCase(c: Case): number {
  let bytes = 0;
  const start = performance.now();
  let now = start;
  while (now - start < MS) {
    c.run();
    bytes += rawBytes;
    now = performance.now();
  }
  return bytes / 1e6 / ((now - start) / 1000);
}

const results = new Map<string, number[]>(cases.map((c) => [c.name, []]));
for (const c of cases) timeCase(c); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  for (let k = 0; k < cases.length; k++) {
    const c = cases[(k + r) % cases.length]!;
    results.get(c.name)!.push(timeCase(c));
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

console.log(
  `${raw.length} RocksDB data blocks, ${rawBytes} bytes (avg ${Math.round(rawBytes / raw.length)}), ` +
    `zstd L3 ratio ${(ratio * 100).toFixed(1)} %; median of ${ROUNDS} rounds of ${MS} ms, MB/s of raw bytes`,
);
for (const [name, xs] of results) {
  console.log(
    `${name.padEnd(34)} ${median(xs).toFixed(0).padStart(6)}   (${xs.map((x) => x.toFixed(0)).join(" ")})`,
  );
}

/** Bytes and gzip bytes of the files each one ships into a bundle. */
function size(files: string[]): string {
  let bytes = 0;
  let gz = 0;
  for (const f of files) {
    const buf = readFileSync(f);
    bytes += statSync(f).size;
    gz += gzipSync(buf).length;
  }
  return `${(bytes / 1024).toFixed(0)} KiB (${(gz / 1024).toFixed(0)} KiB gzipped)`;
}
const codecDir = require.resolve("zstd-codec").replace(/index\.js$/, "");
console.log(
  `bundle: shale zstd-wasm-bytes.js (base64 of a ${Math.round((ZSTD_WASM_BASE64.length * 3) / 4 / 1024)} KiB module) + zstd.js: ` +
    size([
      fileURLToPath(new URL("../compression/zstd-wasm-bytes.js", import.meta.url)),
      fileURLToPath(new URL("../compression/zstd.js", import.meta.url)),
    ]),
);
console.log(
  `bundle: zstd-codec (index, lib/zstd-codec.js, module.js, helpers, its wasm binding): ${size(
    [
      "index.js",
      "lib/zstd-codec.js",
      "lib/module.js",
      "lib/helpers.js",
      "lib/constants.js",
      "lib/zstd-codec-binding-wasm.js",
    ].map((f) => codecDir + f),
  )}; its asm.js fallback adds ${size([`${codecDir}lib/zstd-codec-binding.js`])}`,
);
console.log(
  `bundle: fzstd esm/index.mjs: ${size([require.resolve("fzstd").replace(/lib\/index\.cjs$|lib\/index\.js$/, "esm/index.mjs")])}`,
);
