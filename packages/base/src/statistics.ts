/**
 * Statistics: tickers (monotonic counters) and histograms, shared by every package.
 *
 * Zero cost when off (seed 000): code holds `stats: Statistics | undefined` and writes
 *
 * ```ts
 * const t0 = stats?.timersEnabled ? stats.now() : 0;
 * ...work...
 * if (stats !== undefined) stats.recordTime(Histogram.MergeTime, t0);
 * ```
 *
 * so with no Statistics object nothing is read and nothing is counted. A Statistics object
 * at level `"disabled"` behaves the same — `record*` return at once and the clock is never
 * read — so a caller can keep one object and switch it. At `"except-timers"` counters and
 * value histograms are kept but the clock is never read; at `"all"` timers are kept too.
 *
 * Ticker and histogram ids are small integers indexing flat arrays: no Map lookups, no
 * allocation per record.
 */

/** Counters. Add new ones at the end; names are what `toString`/properties print. */
export const Ticker = Object.freeze({
  BlockCacheHit: 0,
  BlockCacheMiss: 1,
  BlockCacheAdd: 2,
  BlockCacheEviction: 3,
  BloomUseful: 4,
  BloomChecked: 5,
  MemtableHit: 6,
  MemtableMiss: 7,
  GetHitL0: 8,
  GetHitL1: 9,
  GetHitL2AndUp: 10,
  KeysWritten: 11,
  KeysRead: 12,
  BytesWritten: 13,
  BytesRead: 14,
  WalBytes: 15,
  WalSyncs: 16,
  MergeOperations: 17,
  MergeFailures: 18,
  MergeTimeNanos: 19,
  FlushCount: 20,
  CompactionCount: 21,
  CompactReadBytes: 22,
  CompactWriteBytes: 23,
  StallMicros: 24,
  IterSeeks: 25,
  IterNexts: 26,
  RangeDelCoveredKeys: 27,
  /** WAL bytes recovery dropped (torn tails, and what SkipAnyCorrupted skipped). */
  WalRecoveryDroppedBytes: 28,
  /** Runs of WAL bytes (or undecodable records) recovery dropped: one per report. */
  WalRecoveryDrops: 29,
  /** Prefix seeks that asked a table's prefix filter (RocksDB's BLOOM_FILTER_PREFIX_CHECKED). */
  BloomPrefixChecked: 30,
  /** Of those, the seeks the filter let skip the table (BLOOM_FILTER_PREFIX_USEFUL). */
  BloomPrefixUseful: 31,
  /** Event listener calls that threw or rejected (db's `listeners` option; never fatal). */
  ListenerErrors: 32,
  /** FIFO compactions that deleted tables over maxTableFilesSize (FIFO_MAX_SIZE_COMPACTIONS). */
  FifoMaxSizeCompactions: 33,
  /** FIFO compactions that deleted tables older than ttl (FIFO_TTL_COMPACTIONS). */
  FifoTtlCompactions: 34,
  /**
   * Milliseconds background writes (compactions) waited for the rate limiter's tokens
   * (RocksDB's `rocksdb.rate.limit.delay.millis`; db's `rateLimiter` option).
   */
  RateLimitDelayMillis: 35,
  /** Rate limiter requests that found the bucket empty and waited (`rocksdb.number.rate_limiter.drains`). */
  NumberRateLimiterDrains: 36,
  /**
   * Memtable gets (and prefix seeks) the memtable's prefix bloom let through
   * (`memtablePrefixBloomSizeRatio`; RocksDB's perf counter bloom_memtable_hit_count).
   */
  BloomMemtableHit: 37,
  /** Those it answered "not here" without a search (bloom_memtable_miss_count). */
  BloomMemtableMiss: 38,
} as const);
export type Ticker = (typeof Ticker)[keyof typeof Ticker];

export const Histogram = Object.freeze({
  GetMicros: 0,
  WriteMicros: 1,
  WalSyncMicros: 2,
  MergeNanos: 3,
  FlushMicros: 4,
  CompactionMicros: 5,
  SstReadMicros: 6,
  BytesPerWrite: 7,
  /**
   * Read amplification of point reads: the tables one `get` probed (filter, index or data
   * block), 0 when a memtable answered.
   */
  TablesPerGet: 8,
  /**
   * Read amplification of iterators: the tables one seek positions — every L0 table plus
   * one per non-empty deeper level, as of the iterator's creation.
   */
  TablesPerSeek: 9,
} as const);
export type Histogram = (typeof Histogram)[keyof typeof Histogram];

const TICKER_NAMES = Object.keys(Ticker);
const HISTOGRAM_NAMES = Object.keys(Histogram);

export type StatsLevel = "disabled" | "except-timers" | "all";

/** A clock returning nanoseconds as a double (default: `performance.now() * 1e6`). */
export type Clock = () => number;

const defaultClock: Clock = () => performance.now() * 1e6;

// Histogram buckets: powers of sqrt(2) from 1 up to ~4e12; index = floor(2 * log2(v)).
const BUCKETS = 84;

export interface HistogramData {
  count: number;
  sum: number;
  min: number;
  max: number;
  average: number;
  p50: number;
  p95: number;
  p99: number;
}

export interface StatisticsOptions {
  /** Default: "all". */
  level?: StatsLevel;
  /** Default: `performance.now()` in nanoseconds. Injected by tests. */
  clock?: Clock;
}

export class Statistics {
  private readonly tickers = new Float64Array(TICKER_NAMES.length);
  private readonly hCount = new Float64Array(HISTOGRAM_NAMES.length);
  private readonly hSum = new Float64Array(HISTOGRAM_NAMES.length);
  private readonly hMin = new Float64Array(HISTOGRAM_NAMES.length).fill(Number.POSITIVE_INFINITY);
  private readonly hMax = new Float64Array(HISTOGRAM_NAMES.length);
  private readonly hBuckets = new Float64Array(HISTOGRAM_NAMES.length * BUCKETS);
  private readonly clock: Clock;
  /** Counters are kept (level is not "disabled"). */
  enabled: boolean;
  /** The clock may be read (level "all"). */
  timersEnabled: boolean;

  constructor(options: StatisticsOptions = {}) {
    this.clock = options.clock ?? defaultClock;
    this.enabled = false;
    this.timersEnabled = false;
    this.setLevel(options.level ?? "all");
  }

  setLevel(level: StatsLevel): void {
    this.enabled = level !== "disabled";
    this.timersEnabled = level === "all";
  }

  get level(): StatsLevel {
    return this.timersEnabled ? "all" : this.enabled ? "except-timers" : "disabled";
  }

  /** Nanoseconds from the clock if timers are on, else 0 (and the clock is not read). */
  now(): number {
    return this.timersEnabled ? this.clock() : 0;
  }

  /** Adds `n` (default 1) to a ticker. */
  tick(ticker: Ticker, n = 1): void {
    if (!this.enabled) return;
    this.tickers[ticker]! += n;
  }

  getTicker(ticker: Ticker): number {
    return this.tickers[ticker]!;
  }

  /** Records a value into a histogram. */
  record(histogram: Histogram, value: number): void {
    if (!this.enabled) return;
    this.hCount[histogram]! += 1;
    this.hSum[histogram]! += value;
    if (value < this.hMin[histogram]!) this.hMin[histogram] = value;
    if (value > this.hMax[histogram]!) this.hMax[histogram] = value;
    const b = value < 1 ? 0 : Math.min(BUCKETS - 1, Math.floor(2 * Math.log2(value)) + 1);
    this.hBuckets[histogram * BUCKETS + b]! += 1;
  }

  /**
   * Records the time since `startNanos` (from `now()`), scaled by `divisor` (1 = nanoseconds,
   * 1000 = microseconds), into a histogram, and optionally adds it to a ticker. Does nothing
   * — and reads no clock — unless timers are on.
   */
  recordTime(histogram: Histogram, startNanos: number, divisor = 1, ticker?: Ticker): void {
    if (!this.timersEnabled) return;
    const elapsed = (this.clock() - startNanos) / divisor;
    this.record(histogram, elapsed);
    if (ticker !== undefined) this.tickers[ticker]! += elapsed;
  }

  histogram(histogram: Histogram): HistogramData {
    const count = this.hCount[histogram]!;
    const pct = (p: number): number => {
      if (count === 0) return 0;
      const target = count * p;
      let seen = 0;
      for (let b = 0; b < BUCKETS; b++) {
        seen += this.hBuckets[histogram * BUCKETS + b]!;
        if (seen >= target) {
          const upper = b === 0 ? 1 : 2 ** (b / 2);
          return Math.min(upper, this.hMax[histogram]!);
        }
      }
      return this.hMax[histogram]!;
    };
    return {
      count,
      sum: this.hSum[histogram]!,
      min: count === 0 ? 0 : this.hMin[histogram]!,
      max: this.hMax[histogram]!,
      average: count === 0 ? 0 : this.hSum[histogram]! / count,
      p50: pct(0.5),
      p95: pct(0.95),
      p99: pct(0.99),
    };
  }

  /** Every ticker by name. */
  tickersSnapshot(): Record<string, number> {
    const out: Record<string, number> = {};
    for (let i = 0; i < TICKER_NAMES.length; i++) out[TICKER_NAMES[i]!] = this.tickers[i]!;
    return out;
  }

  reset(): void {
    this.tickers.fill(0);
    this.hCount.fill(0);
    this.hSum.fill(0);
    this.hMin.fill(Number.POSITIVE_INFINITY);
    this.hMax.fill(0);
    this.hBuckets.fill(0);
  }

  /** A RocksDB-like dump: `name COUNT : n` and `name P50 : ... COUNT : ... SUM : ...`. */
  toString(): string {
    const lines: string[] = [];
    for (let i = 0; i < TICKER_NAMES.length; i++)
      lines.push(`${TICKER_NAMES[i]} COUNT : ${this.tickers[i]}`);
    for (let h = 0; h < HISTOGRAM_NAMES.length; h++) {
      const d = this.histogram(h as Histogram);
      lines.push(
        `${HISTOGRAM_NAMES[h]} P50 : ${d.p50.toFixed(3)} P95 : ${d.p95.toFixed(3)} P99 : ${d.p99.toFixed(3)} COUNT : ${d.count} SUM : ${d.sum.toFixed(0)}`,
      );
    }
    return lines.join("\n");
  }
}
