/**
 * db_bench's output: the header, one line per benchmark
 * (`%-12s : %11.3f micros/op %ld ops/sec; %6.1f MB/s (message)`), `n/a (reason)` for a
 * workload an engine lacks, optional percentiles, JSON lines, and a progress bar (rate, ETA)
 * on stderr for long runs when stderr is a terminal.
 */
import { cpus } from "node:os";
import type { Flags } from "./flags.js";
import type { Sampler } from "./report/sampler.js";

/** Latency percentiles in microseconds (db_bench's --histogram). */
export interface LatencySummary {
  count: number;
  average: number;
  min: number;
  max: number;
  p50: number;
  p75: number;
  p99: number;
  p999: number;
  p9999: number;
}

export interface BenchResult {
  name: string;
  engine: string;
  ops: number;
  seconds: number;
  bytes: number;
  message: string;
  /** Set when the engine lacks the workload: the reason. Nothing else is meaningful then. */
  na?: string;
  /** Set when the workload failed (or was not run after a failure): the error. */
  failed?: string;
  /** Bytes of files in the engine's directory after a fill workload. */
  diskBytes?: number;
  /** Text the workload prints instead of a line (stats). */
  text?: string;
  histogram?: LatencySummary;
  /** With --max_pause: the longest main-thread pause in milliseconds (see op-clock.ts). */
  maxPauseMs?: number;
  /** With --tree_shape: the engine's table files per level after the benchmark. */
  filesPerLevel?: number[];
}

export function header(flags: Flags): string {
  const compressed = Math.floor(flags.valueSize * flags.compressionRatio + 0.5);
  const raw = ((flags.keySize + flags.valueSize) * flags.num) / 1048576;
  const file = ((flags.keySize + flags.valueSize * flags.compressionRatio) * flags.num) / 1048576;
  const cpu = cpus();
  return [
    `Date:       ${new Date().toString()}`,
    `CPU:        ${cpu.length} * ${cpu[0]?.model.trim() ?? "unknown"}`,
    `Node:       ${process.version}`,
    `Keys:       ${flags.keySize} bytes each`,
    `Values:     ${flags.valueSize} bytes each (${compressed} bytes after compression)`,
    `Entries:    ${flags.num}`,
    `RawSize:    ${raw.toFixed(1)} MB (estimated)`,
    `FileSize:   ${file.toFixed(1)} MB (estimated)`,
    `Compression: ${flags.compressionType === "none" ? "NoCompression" : "Snappy"}`,
    `Engines:    ${flags.engines.join(", ")}`,
    "------------------------------------------------",
  ].join("\n");
}

export function microsPerOp(r: BenchResult): number {
  return r.ops > 0 ? (r.seconds * 1e6) / r.ops : 0;
}

export function opsPerSec(r: BenchResult): number {
  return r.seconds > 0 ? r.ops / r.seconds : 0;
}

export function formatMB(bytes: number): string {
  return (bytes / 1048576).toFixed(1);
}

export function line(r: BenchResult): string {
  if (r.na !== undefined) return `${r.name.padEnd(12)} : ${"n/a".padStart(11)} (${r.na})`;
  if (r.failed !== undefined)
    return `${r.name.padEnd(12)} : ${"FAILED".padStart(11)} (${r.failed})`;
  const mb =
    r.bytes > 0 && r.seconds > 0
      ? ` ${(r.bytes / 1048576 / r.seconds).toFixed(1).padStart(6)} MB/s`
      : "";
  const parts: string[] = [];
  if (r.message.length > 0) parts.push(r.message);
  if (r.diskBytes !== undefined) parts.push(`(disk ${formatMB(r.diskBytes)} MB)`);
  if (r.maxPauseMs !== undefined) parts.push(`(max pause ${r.maxPauseMs.toFixed(3)} ms)`);
  if (r.filesPerLevel !== undefined) parts.push(treeShape(r.filesPerLevel));
  const msg = parts.length > 0 ? ` ${parts.join(" ")}` : "";
  return `${r.name.padEnd(12)} : ${microsPerOp(r).toFixed(3).padStart(11)} micros/op ${Math.round(opsPerSec(r))} ops/sec;${mb}${msg}`;
}

/** `(tree L0=4 L1=4 L2=0)`: files per level. */
export function treeShape(filesPerLevel: readonly number[]): string {
  return `(tree ${filesPerLevel.map((n, level) => `L${level}=${n}`).join(" ")})`;
}

export function summarize(latencies: Float64Array): LatencySummary | undefined {
  if (latencies.length === 0) return undefined;
  const sorted = Float64Array.from(latencies).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  let sum = 0;
  for (let i = 0; i < sorted.length; i++) sum += sorted[i]!;
  return {
    count: sorted.length,
    average: sum / sorted.length,
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
    p50: at(0.5),
    p75: at(0.75),
    p99: at(0.99),
    p999: at(0.999),
    p9999: at(0.9999),
  };
}

export function percentiles(h: LatencySummary): string {
  return [
    "Microseconds per op:",
    `Count: ${h.count} Average: ${h.average.toFixed(4)}`,
    `Min: ${h.min.toFixed(3)} Median: ${h.p50.toFixed(4)} Max: ${h.max.toFixed(3)}`,
    `Percentiles: P50: ${h.p50.toFixed(2)} P75: ${h.p75.toFixed(2)} P99: ${h.p99.toFixed(2)} P99.9: ${h.p999.toFixed(2)} P99.99: ${h.p9999.toFixed(2)}`,
  ].join("\n");
}

/** One JSON object per result (also what --isolate's children report to the parent). */
export function json(r: BenchResult): string {
  if (r.na !== undefined) return JSON.stringify({ benchmark: r.name, engine: r.engine, na: r.na });
  if (r.failed !== undefined)
    return JSON.stringify({ benchmark: r.name, engine: r.engine, failed: r.failed });
  return JSON.stringify({
    benchmark: r.name,
    engine: r.engine,
    ops: r.ops,
    seconds: r.seconds,
    bytes: r.bytes,
    microsPerOp: microsPerOp(r),
    opsPerSec: opsPerSec(r),
    mbPerSec: r.seconds > 0 ? r.bytes / 1048576 / r.seconds : 0,
    message: r.message,
    ...(r.diskBytes !== undefined ? { diskBytes: r.diskBytes } : {}),
    ...(r.text !== undefined ? { text: r.text } : {}),
    ...(r.histogram !== undefined ? { histogram: r.histogram } : {}),
    ...(r.maxPauseMs !== undefined ? { maxPauseMs: r.maxPauseMs } : {}),
    ...(r.filesPerLevel !== undefined ? { filesPerLevel: r.filesPerLevel } : {}),
  });
}

/** Reads back a `json(r)` line. */
export function parseResult(o: Record<string, unknown>): BenchResult {
  const r: BenchResult = {
    name: String(o.benchmark),
    engine: String(o.engine),
    ops: Number(o.ops ?? 0),
    seconds: Number(o.seconds ?? 0),
    bytes: Number(o.bytes ?? 0),
    message: String(o.message ?? ""),
  };
  if (typeof o.na === "string") r.na = o.na;
  if (typeof o.failed === "string") r.failed = o.failed;
  if (typeof o.diskBytes === "number") r.diskBytes = o.diskBytes;
  if (typeof o.text === "string") r.text = o.text;
  if (typeof o.histogram === "object" && o.histogram !== null)
    r.histogram = o.histogram as LatencySummary;
  if (typeof o.maxPauseMs === "number") r.maxPauseMs = o.maxPauseMs;
  if (Array.isArray(o.filesPerLevel)) r.filesPerLevel = o.filesPerLevel.map(Number);
  return r;
}

/** What a progress bar is drawn from. */
export interface ProgressState {
  label: string;
  done: number;
  total: number;
  elapsedSeconds: number;
  /** Terminal width. */
  columns: number;
}

function clockTime(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const mm = String(m).padStart(h > 0 ? 2 : 1, "0");
  return `${h > 0 ? `${h}:` : ""}${mm}:${String(s % 60).padStart(2, "0")}`;
}

/**
 * One line: `label [██████░░░░] 61.0% 610000/1000000 ops 312345 ops/s ETA 0:01`, the bar
 * as wide as the terminal leaves room for (at least 10 cells), the rate the average since
 * the workload started, the ETA what is left at that rate ("ETA --" before any op).
 */
export function progressBar(p: ProgressState): string {
  const fraction = p.total > 0 ? Math.min(1, p.done / p.total) : 0;
  const rate = p.elapsedSeconds > 0 ? p.done / p.elapsedSeconds : 0;
  const eta = rate > 0 ? clockTime((p.total - p.done) / rate) : "--";
  const tail = ` ${(fraction * 100).toFixed(1).padStart(5)}% ${p.done}/${p.total} ops ${Math.round(rate)} ops/s ETA ${eta}`;
  const width = Math.max(10, p.columns - p.label.length - tail.length - 4);
  const filled = Math.round(fraction * width);
  return `${p.label} [${"\u2588".repeat(filled)}${"\u2591".repeat(width - filled)}]${tail}`;
}

/** Where progress goes: a stream that may be a terminal. */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

/**
 * Progress of the running workload, on stderr as a bar with rate and ETA (progressBar),
 * redrawn at most ~4 times a second, only when stderr is a terminal and only for workloads
 * running longer than 2 s. Each tick also feeds --report's sampler when there is one.
 */
export class Progress {
  private readonly enabled: boolean;
  private next = 0;
  private started = 0;
  private label = "";
  /** When a workload last started or ticked (the stall guard reads it). */
  private active = performance.now();
  /** --report's sampler, fed by every tick. */
  sampler: Sampler | undefined;

  constructor(private readonly stream: ProgressStream = process.stderr) {
    this.enabled = stream.isTTY === true;
  }

  start(label: string): void {
    this.label = label;
    this.started = performance.now();
    this.active = this.started;
    this.next = this.started + 2000; // only runs longer than 2 s show progress
  }

  /** Seconds since the running workload last reported progress. */
  idleSeconds(): number {
    return (performance.now() - this.active) / 1000;
  }

  /** Call every so often (cheap): redraws the bar when due. */
  tick(done: number, total: number): void {
    const now = performance.now();
    this.active = now;
    this.sampler?.tick(done, total, now);
    if (!this.enabled || now < this.next) return;
    this.next = now + 250;
    const line = progressBar({
      label: this.label,
      done,
      total,
      elapsedSeconds: (now - this.started) / 1000,
      columns: this.stream.columns ?? 80,
    });
    this.stream.write(`\r${line}\x1b[K`);
  }

  done(): void {
    if (this.enabled && performance.now() >= this.started + 2000) this.stream.write("\r\x1b[K");
  }
}
