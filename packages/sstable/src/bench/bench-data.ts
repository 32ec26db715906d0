/**
 * Data and timing helpers for table-bench (not part of the package API).
 */
import { randomSource } from "@shale/base/testing/random";

/** mulberry32: deterministic, fast (the one in @shale/base/testing/random). */
export const rng = randomSource;

/**
 * db_bench's RandomGenerator: 1 MiB of data made of 100-byte pieces, each 50 random printable
 * characters repeated (compression ratio 0.5); values are consecutive slices of it.
 */
export class ValueGenerator {
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
export function userKey(i: number, out = new Uint8Array(16)): Uint8Array {
  out.fill(0x30);
  let v = i;
  for (let b = 7; b >= 0; b--) {
    out[b] = v & 0xff;
    v = Math.floor(v / 256);
  }
  return out;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

export interface Timing {
  /** Wall-clock ns per operation. */
  wall: number;
  /** CPU (user + system) ns per operation: steadier on a busy machine. */
  cpu: number;
}

/** Times `ops` operations done by `body` (which returns a checksum-like sink). */
export function timeOps(ops: number, body: () => number): Timing {
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const sink = body();
  const wall = Number(process.hrtime.bigint() - t0) / ops;
  const cpuUsed = process.cpuUsage(cpu0);
  if (Number.isNaN(sink)) throw new Error("bad sink");
  return { wall, cpu: ((cpuUsed.user + cpuUsed.system) * 1000) / ops };
}

export function medianTiming(runs: Timing[]): Timing {
  return { wall: median(runs.map((r) => r.wall)), cpu: median(runs.map((r) => r.cpu)) };
}

export function fmt(n: number, digits = 0): string {
  return n.toFixed(digits).padStart(8);
}

export function fmtTiming(t: Timing): string {
  return `${fmt(t.wall)} ns/op (cpu ${fmt(t.cpu)})`;
}
