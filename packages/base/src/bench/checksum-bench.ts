/**
 * Micro-benchmark of the checksums (not a test; figures only):
 *
 *   npx tsc -b && node dist/bench/checksum-bench.js [--rounds=3] [--mib=64]
 *
 * For 100 B, 4 KiB and 64 KiB inputs (each size hashed until `--mib` MiB went through, at
 * rotating offsets of one buffer so the input is not one hot line): CRC32C in JS
 * (slicing-by-8 and -16) and WebAssembly (slicing-by-8 and -16, the copy into the module's
 * memory included), XXH32 (JS), xxHash64, XXH3-64 and RocksDB's Hash64 (XXPH3). Prints
 * MB/s and ns/op per size, the median of the rounds.
 */

import { xxh32 } from "../checksum.js";
import { crc32cExtendJs8, crc32cExtendJs16 } from "../checksum-crc32c-js.js";
import { wasmChecksums } from "../checksum-wasm.js";
import { sliceHash64Into, xxh3Low32 } from "../checksum-xxh3.js";
import { xxh64Low32 } from "../checksum-xxh64.js";

function flag(name: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg === undefined ? fallback : Number(arg.slice(name.length + 3));
}
const rounds = flag("rounds", 3);
const mib = flag("mib", 64);
const wasm = wasmChecksums();
if (wasm === undefined) throw new Error("no WebAssembly");
const out = new Uint32Array(2);

const buf = new Uint8Array(1 << 20).map((_, i) => (i * 2654435761) >>> 24);
let sink = 0;

const impls: [string, (d: Uint8Array, s: number, e: number) => number][] = [
  ["crc32c js8", (d, s, e) => crc32cExtendJs8(0, d, s, e)],
  ["crc32c js16", (d, s, e) => crc32cExtendJs16(0, d, s, e)],
  ["crc32c wasm8", (d, s, e) => wasm.crc32c8(0, d, s, e)],
  ["crc32c wasm16", (d, s, e) => wasm.crc32c16(0, d, s, e)],
  ["xxh32 js", (d, s, e) => xxh32(d, s, e)],
  ["xxh64 js", (d, s, e) => xxh64Low32(d, s, e)],
  ["xxh3 js", (d, s, e) => xxh3Low32(d, s, e)],
  [
    "hash64 (xxph3) js",
    (d, s, e) => {
      sliceHash64Into(d, s, e, out, 0);
      return out[0]!;
    },
  ],
];

for (const size of [100, 4096, 65536]) {
  const ops = Math.max(1, Math.floor((mib * 1048576) / size));
  const span = buf.length - size;
  for (const [name, f] of impls) {
    const times: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const t0 = process.hrtime.bigint();
      let off = 0;
      for (let i = 0; i < ops; i++) {
        sink ^= f(buf, off, off + size);
        off += 4099;
        if (off > span) off -= span;
      }
      times.push(Number(process.hrtime.bigint() - t0));
    }
    times.sort((a, b) => a - b);
    const ns = times[Math.floor(times.length / 2)]!;
    const mbs = (ops * size) / 1e6 / (ns / 1e9);
    console.log(
      `${String(size).padStart(6)} B  ${name.padEnd(18)} ${mbs.toFixed(0).padStart(6)} MB/s  ${(ns / ops).toFixed(0).padStart(7)} ns/op`,
    );
  }
}
console.log(`(sink ${sink})`);

// Short keys (the full filter hashes every user key with Hash64).
for (const size of [8, 16, 24, 40]) {
  const ops = 2_000_000;
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    let off = 0;
    for (let i = 0; i < ops; i++) {
      sliceHash64Into(buf, off, off + size, out, 0);
      sink ^= out[0]!;
      off = (off + 4099) & 0xfffff;
      if (off > buf.length - size) off = 0;
    }
    times.push(Number(process.hrtime.bigint() - t0));
  }
  times.sort((a, b) => a - b);
  console.log(
    `${String(size).padStart(6)} B  hash64 (xxph3) js  ${(times[Math.floor(rounds / 2)]! / ops).toFixed(0).padStart(7)} ns/op`,
  );
}
console.log(`(sink ${sink})`);
