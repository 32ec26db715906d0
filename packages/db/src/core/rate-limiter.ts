/**
 * `RateLimiter`: a token bucket for background writes (RocksDB's `GenericRateLimiter`,
 * made by `NewGenericRateLimiter(rate_bytes_per_sec, refill_period_us = 100 ms, fairness)`),
 * so flushes and compactions cannot take the whole disk (and the CPU that compression and
 * checksums of the written bytes cost) from the foreground.
 *
 * Across threads. Flushes and compactions run in worker threads (background/), often
 * several at once, and one limiter may be shared by several databases (as RocksDB's), so the
 * bucket lives in a SharedArrayBuffer that every worker of every database using the limiter
 * maps (`RateLimiter.fromShared`). The state is guarded by a spin lock (one Int32 cell,
 * `Atomics.compareExchange`); the critical section is a dozen arithmetic operations.
 *
 * ```
 *   SharedArrayBuffer (72 bytes)
 *   Int32[0]  lock          0 free, 1 held
 *   Int32[1]  sleep cell    always 0: a waiter sleeps with Atomics.wait(cell, 0, ms)
 *   Float64[1] bytesPerSecond
 *   Float64[2] refillPeriodMicros
 *   Float64[3] tokens       bytes available now; negative: bytes owed by reserved requests
 *   Float64[4] lastMicros   clock of the last refill (wall clock in µs, same in every thread)
 *   Float64[5] bytesThrough total bytes granted
 *   Float64[6] requests     total requests
 *   Float64[7] waitMicros   total µs that requests were told to wait
 *   Float64[8] drains       requests that found the bucket empty and had to wait
 * ```
 *
 * The bucket. It refills continuously at `bytesPerSecond` up to one refill period's worth
 * (`singleBurstBytes`, RocksDB's `GetSingleBurstBytes`); it starts empty, as RocksDB's.
 * `reserve(n)` takes `n` bytes at once, letting the tokens go negative, and returns how long
 * the caller must wait before writing: the time the refill needs to pay the debt. Requests
 * are therefore served in the order they reserved (first come, first served), and over any
 * interval the bytes granted stay within `singleBurstBytes + bytesPerSecond x interval`
 * (rate-limiter.property.test.ts). `request(n, priority)` splits `n` into bursts and sleeps.
 *
 * Priorities: RocksDB serves flushes (`IO_HIGH`) before compactions (`IO_LOW`), letting a
 * compaction through one time in `fairness` (10). Here a high-priority request (a flush, or
 * any job that runs on a thread that must not sleep) is charged and never waits: its bytes
 * go first and the compactions behind it pay the debt. So compactions alone are held to the
 * rate; flushes, which writers may be stalled on, are not delayed, and slow the compactions
 * down by what they write.
 *
 * Not in OPTIONS: RocksDB writes no rate limiter to its OPTIONS file (it is a shared object,
 * not a value), and shale does not either.
 */
import { ShaleError } from "@shale/base";

/** RocksDB's default `refill_period_us`. */
export const DEFAULT_REFILL_PERIOD_MICROS = 100_000;

export interface RateLimiterOptions {
  /** Bytes per second that flushes and compactions may write, together. A finite number > 0. */
  bytesPerSecond: number;
  /** How often, in µs, a burst of tokens is refilled (RocksDB's `refill_period_us`). Default 100 ms. */
  refillPeriodMicros?: number;
  /** The clock in µs (tests). Default: the wall clock, the same in every thread. */
  clock?: () => number;
}

/** Who asks: a flush (never waits), or a compaction (waits for its tokens). */
export type IoPriority = "high" | "low";

/** Counters of what went through a limiter (all of it, or one database's share). */
export interface RateLimiterCounters {
  /** Bytes granted. */
  bytes: number;
  /** Requests (a write is split into requests of at most `singleBurstBytes`). */
  requests: number;
  /** Total time requests were told to wait, in milliseconds. */
  delayMillis: number;
  /** Requests that found the bucket empty and waited (RocksDB's `number.rate_limiter.drains`). */
  drains: number;
}

const BYTES = 1 * 8;
const PERIOD = 2 * 8;
const TOKENS = 3 * 8;
const LAST = 4 * 8;
const THROUGH = 5;
const REQUESTS = 6;
const WAIT = 7;
const DRAINS = 8;
const SIZE = 9 * 8;

/** The wall clock in µs with sub-millisecond resolution; comparable between threads. */
export function wallMicros(): number {
  return (performance.timeOrigin + performance.now()) * 1000;
}

/** Checks a limiter's rate: a finite number > 0 (TypeError for a non-number). */
function checkRate(name: string, v: unknown): number {
  if (typeof v !== "number") throw new TypeError(`${name} must be a number`);
  if (!Number.isFinite(v) || v <= 0)
    throw ShaleError.invalidArgument(`${name} must be a finite number > 0 (got ${v})`);
  return v;
}

export class RateLimiter {
  /** The shared state (see the header); pass it to another thread and `fromShared` it there. */
  readonly buffer: SharedArrayBuffer;
  private readonly cells: Int32Array;
  private readonly f: Float64Array;
  private readonly clock: () => number;

  constructor(options: RateLimiterOptions) {
    if (typeof options !== "object" || options === null)
      throw new TypeError("rateLimiter options must be an object { bytesPerSecond }");
    for (const k of Object.keys(options))
      if (k !== "bytesPerSecond" && k !== "refillPeriodMicros" && k !== "clock")
        throw ShaleError.invalidArgument(`rateLimiter.${k} is an unknown option`);
    const rate = checkRate("rateLimiter.bytesPerSecond", options.bytesPerSecond);
    const period =
      options.refillPeriodMicros === undefined
        ? DEFAULT_REFILL_PERIOD_MICROS
        : checkRate("rateLimiter.refillPeriodMicros", options.refillPeriodMicros);
    if (options.clock !== undefined && typeof options.clock !== "function")
      throw new TypeError("rateLimiter.clock must be a function");
    this.buffer = new SharedArrayBuffer(SIZE);
    this.cells = new Int32Array(this.buffer, 0, 2);
    this.f = new Float64Array(this.buffer);
    this.clock = options.clock ?? wallMicros;
    this.f[BYTES / 8] = rate;
    this.f[PERIOD / 8] = period;
    this.f[TOKENS / 8] = 0;
    this.f[LAST / 8] = this.clock();
  }

  /** The limiter whose state is `buffer` (made by another thread's `RateLimiter`). */
  static fromShared(buffer: SharedArrayBuffer): RateLimiter {
    if (!(buffer instanceof SharedArrayBuffer) || buffer.byteLength !== SIZE)
      throw new TypeError("not a rate limiter's SharedArrayBuffer");
    const limiter: RateLimiter = Object.create(RateLimiter.prototype);
    Object.assign(limiter, {
      buffer,
      cells: new Int32Array(buffer, 0, 2),
      f: new Float64Array(buffer),
      clock: wallMicros,
    });
    return limiter;
  }

  get bytesPerSecond(): number {
    return this.f[BYTES / 8]!;
  }

  /** Changes the rate (RocksDB's `SetBytesPerSecond`), for every thread and database sharing it. */
  setBytesPerSecond(bytesPerSecond: number): void {
    const rate = checkRate("bytesPerSecond", bytesPerSecond);
    this.lock();
    this.refill(this.clock());
    this.f[BYTES / 8] = rate;
    this.unlock();
  }

  get refillPeriodMicros(): number {
    return this.f[PERIOD / 8]!;
  }

  /** The most one request may take (one refill period's bytes, at least 1). */
  get singleBurstBytes(): number {
    return Math.max(1, Math.floor((this.bytesPerSecond * this.refillPeriodMicros) / 1e6));
  }

  /** What went through this limiter, from every thread and database using it. */
  counters(): RateLimiterCounters {
    const f = this.f;
    return {
      bytes: f[THROUGH]!,
      requests: f[REQUESTS]!,
      delayMillis: f[WAIT]! / 1000,
      drains: f[DRAINS]!,
    };
  }

  /**
   * Takes `bytes` (at most `singleBurstBytes`) at `now` (µs) and returns the µs to wait
   * before writing them (0 when the bucket held them, and always 0 at "high" priority,
   * which is charged without waiting). `account`, if given, is charged too.
   */
  reserve(
    bytes: number,
    now: number = this.clock(),
    account?: RateLimiterAccount,
    priority: IoPriority = "low",
  ): number {
    const f = this.f;
    this.lock();
    this.refill(now);
    const tokens = f[TOKENS / 8]! - bytes;
    f[TOKENS / 8] = tokens;
    const wait = tokens >= 0 || priority === "high" ? 0 : (-tokens * 1e6) / f[BYTES / 8]!;
    f[THROUGH] = f[THROUGH]! + bytes;
    f[REQUESTS] = f[REQUESTS]! + 1;
    if (wait > 0) {
      f[WAIT] = f[WAIT]! + wait;
      f[DRAINS] = f[DRAINS]! + 1;
    }
    if (account !== undefined) account.add(bytes, wait);
    this.unlock();
    return wait;
  }

  /**
   * Asks for `bytes` to be written: in requests of at most `singleBurstBytes`, each waiting
   * (sleeping this thread) until the bucket pays for it — unless `priority` is "high",
   * which is charged and never waits (see the header).
   */
  request(bytes: number, priority: IoPriority, account?: RateLimiterAccount): void {
    let left = bytes;
    while (left > 0) {
      const n = Math.min(left, this.singleBurstBytes);
      left -= n;
      const wait = this.reserve(n, this.clock(), account, priority);
      if (wait > 0) Atomics.wait(this.cells, 1, 0, wait / 1000);
    }
  }

  private refill(now: number): void {
    const f = this.f;
    const elapsed = now - f[LAST / 8]!;
    if (elapsed <= 0) return;
    f[LAST / 8] = now;
    const rate = f[BYTES / 8]!;
    const cap = Math.max(1, Math.floor((rate * f[PERIOD / 8]!) / 1e6));
    f[TOKENS / 8] = Math.min(cap, f[TOKENS / 8]! + (elapsed * rate) / 1e6);
  }

  private lock(): void {
    const cells = this.cells;
    while (Atomics.compareExchange(cells, 0, 0, 1) !== 0) {
      // Held for a few arithmetic operations by another thread: spin.
    }
  }

  private unlock(): void {
    Atomics.store(this.cells, 0, 0);
  }
}

/**
 * One database's share of a (possibly shared) limiter: bytes, requests, wait and drains of
 * its own jobs, in a SharedArrayBuffer its workers add to (under the limiter's lock).
 * `drainInto` hands what is new to the database's statistics.
 */
export class RateLimiterAccount {
  readonly buffer: SharedArrayBuffer;
  private readonly f: Float64Array;
  /** What `drainInto` already handed over: bytes, requests, wait µs, drains. */
  private readonly seen = new Float64Array(4);

  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(4 * 8)) {
    this.buffer = buffer;
    this.f = new Float64Array(buffer);
  }

  /** Adds one request (called under the limiter's lock, or by the only thread charging it). */
  add(bytes: number, waitMicros: number): void {
    const f = this.f;
    f[0] = f[0]! + bytes;
    f[1] = f[1]! + 1;
    if (waitMicros > 0) {
      f[2] = f[2]! + waitMicros;
      f[3] = f[3]! + 1;
    }
  }

  counters(): RateLimiterCounters {
    const f = this.f;
    return { bytes: f[0]!, requests: f[1]!, delayMillis: f[2]! / 1000, drains: f[3]! };
  }

  /**
   * The growth since the last call, as whole units (bytes, requests, ms, drains): the
   * caller ticks them into its statistics.
   */
  drain(): RateLimiterCounters {
    const f = this.f;
    const s = this.seen;
    const out = {
      bytes: f[0]! - s[0]!,
      requests: f[1]! - s[1]!,
      delayMillis: Math.floor(f[2]! / 1000) - Math.floor(s[2]! / 1000),
      drains: f[3]! - s[3]!,
    };
    s.set(f.subarray(0, 4));
    return out;
  }
}
