/**
 * xxhash-wasm (the npm package, asynchronous instantiation) against shale's own XXH32 and
 * XXH64 (checksum.ts: the synchronous checksum wasm module, JS for XXH32 under 64 bytes), and
 * the pure-JS fallbacks, on WAL-record-sized inputs (100 B to 1 KiB) and 4 KiB blocks. Not a
 * test; figures only:
 *
 *   npx tsc -b && nice node dist/bench/xxhash-wasm-bench.js [--rounds=7] [--mib=4]
 *
 * A/B in one process: every round runs every implementation once per size, in an order that
 * rotates from round to round, each through its own loop function (one call site each, so
 * V8 sees a monomorphic call as a real caller would), hashing `--mib` MiB at rotating
 * offsets of a 1 MiB buffer. MB/s by CPU time (user + system), the median of the rounds.
 *
 * xxhash-wasm takes a whole `Uint8Array`, so a block inside a larger buffer costs a
 * `subarray` view first (what a caller would pay), and its 64-bit hash is a BigInt: "h64"
 * is the call alone, "h64 low32" also takes the low 32 bits (RocksDB's kxxHash64 checksum)
 * as a number.
 */
import xxhash from "xxhash-wasm";
import { xxh32, xxh64Low32 } from "../checksum.js";
import { xxh32 as xxh32Js } from "../checksum-xxh32.js";
import { useWasmForXxh64 } from "../checksum-xxh64.js";

function option(name: string): string | undefined {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg === undefined ? undefined : arg.slice(name.length + 3);
}
const rounds = Number(option("rounds") ?? 7);
const mib = Number(option("mib") ?? 4);
const { h32Raw, h64Raw } = await xxhash();

const buf = new Uint8Array(1 << 20).map((_, i) => (i * 2654435761) >>> 24);
const STEP = 4099;

type Loop = (size: number, ops: number) => number;

// One loop per implementation (no shared call site).
const loops: Record<string, Loop> = {
  "xxh32 shale": (size, ops) => {
    let sink = 0;
    let off = 0;
    const span = buf.length - size;
    for (let i = 0; i < ops; i++) {
      sink ^= xxh32(buf, off, off + size);
      off += STEP;
      if (off > span) off -= span;
    }
    return sink;
  },
  "xxh32 JS": (size, ops) => {
    let sink = 0;
    let off = 0;
    const span = buf.length - size;
    for (let i = 0; i < ops; i++) {
      sink ^= xxh32Js(buf, off, off + size, 0);
      off += STEP;
      if (off > span) off -= span;
    }
    return sink;
  },
  "xxh32 xxhash-wasm": (size, ops) => {
    let sink = 0;
    let off = 0;
    const span = buf.length - size;
    for (let i = 0; i < ops; i++) {
      sink ^= h32Raw(buf.subarray(off, off + size), 0);
      off += STEP;
      if (off > span) off -= span;
    }
    return sink;
  },
  "xxh64 shale": (size, ops) => {
    useWasmForXxh64(true);
    let sink = 0;
    let off = 0;
    const span = buf.length - size;
    for (let i = 0; i < ops; i++) {
      sink ^= xxh64Low32(buf, off, off + size);
      off += STEP;
      if (off > span) off -= span;
    }
    return sink;
  },
  "xxh64 JS": (size, ops) => {
    useWasmForXxh64(false);
    let sink = 0;
    let off = 0;
    const span = buf.length - size;
    for (let i = 0; i < ops; i++) {
      sink ^= xxh64Low32(buf, off, off + size);
      off += STEP;
      if (off > span) off -= span;
    }
    useWasmForXxh64(true);
    return sink;
  },
  "xxh64 xxhash-wasm h64": (size, ops) => {
    let sink = 0;
    let off = 0;
    const span = buf.length - size;
    for (let i = 0; i < ops; i++) {
      if (h64Raw(buf.subarray(off, off + size)) === 0n) sink++;
      off += STEP;
      if (off > span) off -= span;
    }
    return sink;
  },
  "xxh64 xxhash-wasm h64 low32": (size, ops) => {
    let sink = 0;
    let off = 0;
    const span = buf.length - size;
    for (let i = 0; i < ops; i++) {
      sink ^= Number(BigInt.asUintN(32, h64Raw(buf.subarray(off, off + size))));
      off += STEP;
      if (off > span) off -= span;
    }
    return sink;
  },
};

const names = Object.keys(loops);
const sizes = [100, 256, 512, 1024, 4096];
let sink = 0;
console.log(`rounds=${rounds} mib=${mib}; MB/s by CPU time, median (min-max)`);
for (const size of sizes) {
  // xxh64 JS is ~50x slower than the rest: a quarter of the bytes keeps the run short.
  const opsOf = (name: string) =>
    Math.max(1000, Math.floor(((name === "xxh64 JS" ? mib / 4 : mib) * 1048576) / size));
  const times = new Map<string, number[]>(names.map((n) => [n, []]));
  for (let r = -1; r < rounds; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + Math.max(r, 0)) % names.length]!;
      const ops = opsOf(name);
      const t0 = process.cpuUsage();
      sink ^= loops[name]!(size, ops);
      const used = process.cpuUsage(t0);
      if (r >= 0) times.get(name)!.push((ops * size) / (used.user + used.system)); // B/µs = MB/s
    }
  }
  for (const name of names) {
    const t = times.get(name)!.sort((a, b) => a - b);
    const median = t[Math.floor(t.length / 2)]!;
    console.log(
      `${String(size).padStart(5)} B  ${name.padEnd(28)} ${median.toFixed(0).padStart(6)}  (${t[0]!.toFixed(0)}-${t[t.length - 1]!.toFixed(0)})`,
    );
  }
}
if (sink === 0.5) console.log(sink);
