/**
 * Micro-benchmark of the checksums (not a test; figures only):
 *
 *   npx tsc -b && node dist/bench/checksum-bench.js [--rounds=5] [--mib=16] [--only=NAME]
 *
 * Each implementation runs in its own process (so every loop's call site sees one function
 * and V8 optimises it as a caller would), over inputs of 32 B, 100 B, 256 B, 512 B, 4 KiB and
 * 64 KiB (each size hashed until `--mib` MiB went through, at rotating offsets of a 1 MiB
 * buffer), and for Hash64 also keys of 8, 16, 24 and 40 bytes. Prints MB/s and ns/op by
 * CPU time (user + system: steadier than the wall clock on a shared machine), the median of
 * the rounds. `--only=NAME` runs one implementation in this process.
 *
 * Implementations: CRC32C in JS (slicing-by-8, -16) and WebAssembly (slicing-by-8, -16, the
 * copy into the module's memory included), the picked `crc32c`; XXH32 in JS, wasm and the
 * picked `xxh32`; xxHash64, XXH3-64 and RocksDB's Hash64 (XXPH3), all pure JS.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { crc32c, sliceHash64Into, xxh3Low32, xxh32, xxh64Low32 } from "../checksum.js";
import { crc32cExtendJs8, crc32cExtendJs16 } from "../checksum-crc32c-js.js";
import { WASM_XXH32_MAX, wasmChecksums } from "../checksum-wasm.js";
import { xxh32 as xxh32Js } from "../checksum-xxh32.js";

function option(name: string): string | undefined {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg === undefined ? undefined : arg.slice(name.length + 3);
}
const rounds = Number(option("rounds") ?? 5);
const mib = Number(option("mib") ?? 16);
const only = option("only");

const out = new Uint32Array(2);
type Impl = (d: Uint8Array, s: number, e: number) => number;

function impls(): Record<string, Impl> {
  const wasm = wasmChecksums();
  if (wasm === undefined) throw new Error("no WebAssembly");
  return {
    "crc32c-js8": (d, s, e) => crc32cExtendJs8(0, d, s, e),
    "crc32c-js16": (d, s, e) => crc32cExtendJs16(0, d, s, e),
    "crc32c-wasm8": (d, s, e) => wasm.crc32c8(0, d, s, e),
    "crc32c-wasm16": (d, s, e) => wasm.crc32c16(0, d, s, e),
    crc32c: (d, s, e) => crc32c(d, s, e),
    "xxh32-js": (d, s, e) => xxh32Js(d, s, e, 0),
    "xxh32-wasm": (d, s, e) => (e - s <= WASM_XXH32_MAX ? wasm.xxh32(d, s, e, 0) : 0),
    xxh32: (d, s, e) => xxh32(d, s, e),
    xxh64: (d, s, e) => xxh64Low32(d, s, e),
    xxh3: (d, s, e) => xxh3Low32(d, s, e),
    hash64: (d, s, e) => {
      sliceHash64Into(d, s, e, out, 0);
      return out[0]!;
    },
  };
}

function run(name: string, f: Impl): void {
  const buf = new Uint8Array(1 << 20).map((_, i) => (i * 2654435761) >>> 24);
  let sink = 0;
  const sizes =
    name === "hash64" ? [8, 16, 24, 40, 100, 4096, 65536] : [32, 100, 256, 512, 4096, 65536];
  for (const size of sizes) {
    const ops = Math.max(1000, Math.floor((mib * 1048576) / size));
    const span = buf.length - size;
    const times: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const t0 = process.cpuUsage();
      let off = 0;
      for (let i = 0; i < ops; i++) {
        sink ^= f(buf, off, off + size);
        off += 4099;
        if (off > span) off -= span;
      }
      const used = process.cpuUsage(t0);
      times.push((used.user + used.system) * 1000);
    }
    times.sort((a, b) => a - b);
    const ns = times[Math.floor(times.length / 2)]!;
    const mbs = (ops * size) / 1e6 / (ns / 1e9);
    console.log(
      `${name.padEnd(14)} ${String(size).padStart(6)} B ${mbs.toFixed(0).padStart(6)} MB/s ${(ns / ops).toFixed(1).padStart(9)} ns/op`,
    );
  }
  if (sink === 0.5) console.log(sink);
}

if (only !== undefined) {
  const f = impls()[only];
  if (f === undefined) throw new Error(`unknown implementation ${only}`);
  run(only, f);
} else {
  const self = fileURLToPath(import.meta.url);
  for (const name of Object.keys(impls())) {
    process.stdout.write(
      execFileSync(
        process.execPath,
        [self, `--only=${name}`, `--rounds=${rounds}`, `--mib=${mib}`],
        {
          encoding: "utf8",
        },
      ),
    );
  }
}
