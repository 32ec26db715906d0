/**
 * db_bench's output: the header, one line per benchmark
 * (`%-12s : %11.3f micros/op %ld ops/sec; %6.1f MB/s (message)`), optional percentiles,
 * and a progress line on stderr for long runs when stderr is a terminal.
 */
import type { Flags } from "./flags.js";

export interface BenchResult {
  name: string;
  engine: string;
  ops: number;
  seconds: number;
  bytes: number;
  message: string;
  /** Per-op latencies in microseconds (only with --histogram). */
  latencies?: Float64Array;
}

export function header(flags: Flags): string {
  const compressed = Math.floor(flags.valueSize * flags.compressionRatio + 0.5);
  const raw = ((flags.keySize + flags.valueSize) * flags.num) / 1048576;
  const file = ((flags.keySize + flags.valueSize * flags.compressionRatio) * flags.num) / 1048576;
  return [
    `Keys:       ${flags.keySize} bytes each`,
    `Values:     ${flags.valueSize} bytes each (${compressed} bytes after compression)`,
    `Entries:    ${flags.num}`,
    `RawSize:    ${raw.toFixed(1)} MB (estimated)`,
    `FileSize:   ${file.toFixed(1)} MB (estimated)`,
    "------------------------------------------------",
  ].join("\n");
}

export function line(r: BenchResult): string {
  const micros = r.ops > 0 ? (r.seconds * 1e6) / r.ops : 0;
  const opsPerSec = r.seconds > 0 ? Math.round(r.ops / r.seconds) : 0;
  const mb =
    r.bytes > 0 && r.seconds > 0
      ? ` ${(r.bytes / 1048576 / r.seconds).toFixed(1).padStart(6)} MB/s`
      : "";
  const msg = r.message.length > 0 ? ` ${r.message}` : "";
  return `${r.name.padEnd(12)} : ${micros.toFixed(3).padStart(11)} micros/op ${opsPerSec} ops/sec;${mb}${msg}`;
}

export function percentiles(r: BenchResult): string {
  const l = r.latencies;
  if (l === undefined || l.length === 0) return "";
  const sorted = Float64Array.from(l).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  let sum = 0;
  for (const v of sorted) sum += v;
  return `Microseconds per op:\nCount: ${sorted.length} Average: ${(sum / sorted.length).toFixed(4)}\nMin: ${sorted[0]!.toFixed(3)} Median: ${at(0.5).toFixed(4)} Max: ${sorted[sorted.length - 1]!.toFixed(3)}\nPercentiles: P50: ${at(0.5).toFixed(2)} P75: ${at(0.75).toFixed(2)} P99: ${at(0.99).toFixed(2)} P99.9: ${at(0.999).toFixed(2)} P99.99: ${at(0.9999).toFixed(2)}`;
}

export function json(r: BenchResult): string {
  const micros = r.ops > 0 ? (r.seconds * 1e6) / r.ops : 0;
  return JSON.stringify({
    benchmark: r.name,
    engine: r.engine,
    ops: r.ops,
    seconds: r.seconds,
    microsPerOp: micros,
    opsPerSec: r.seconds > 0 ? r.ops / r.seconds : 0,
    mbPerSec: r.seconds > 0 ? r.bytes / 1048576 / r.seconds : 0,
    message: r.message,
  });
}

/** Progress on stderr, at most ~4 times a second, only when stderr is a terminal. */
export class Progress {
  private readonly enabled = process.stderr.isTTY === true;
  private next = 0;
  private started = 0;

  start(): void {
    this.started = performance.now();
    this.next = this.started + 2000; // only runs longer than 2 s show progress
  }

  /** Call every so often (cheap): prints "name: done/total" when due. */
  tick(name: string, done: number, total: number): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (now < this.next) return;
    this.next = now + 250;
    const pct = ((done / total) * 100).toFixed(1);
    process.stderr.write(`\r${name}: ${done}/${total} ops (${pct}%)   `);
  }

  done(): void {
    if (this.enabled && performance.now() >= this.started + 2000) process.stderr.write("\r\x1b[K");
  }
}
