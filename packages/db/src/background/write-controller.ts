/**
 * Write stalls (RocksDB's WriteController), decided from the L0 file count after every
 * version change:
 *
 * | L0 files                        | condition | a write ...                               |
 * |---------------------------------|-----------|-------------------------------------------|
 * | < level0SlowdownWritesTrigger   | Normal    | goes through                              |
 * | >= level0SlowdownWritesTrigger  | Delayed   | owes bytes / 16 MiB/s of sleep; the debt  |
 * |                                 |           | is paid (synchronously) each time it      |
 * |                                 |           | reaches 1 ms                              |
 * | >= level0StopWritesTrigger      | Stopped   | waits until compaction brings L0 below    |
 *
 * and from the estimate of pending compaction bytes (RocksDB's
 * estimated_compaction_needed_bytes; 0 under universal and FIFO): at or over
 * `hardPendingCompactionBytesLimit` Stopped, at or over `softPendingCompactionBytesLimit`
 * Delayed (0 turns a limit off). These stalls are counted with the L0 ones.
 *
 * With `disableAutoCompactions` there are no L0 stalls (as in RocksDB: nothing would ever
 * compact L0). The memtable-count stop (`maxWriteBufferNumber`) is the database's own and is
 * only counted here, as is the memtable throttle (`throttle`, below).
 *
 * Memtable throttle (shale's, not RocksDB's): while the mutable memtable is the last one
 * `maxWriteBufferNumber` allows and the memtable before it is still flushing, writes are
 * held to the rate the last flush achieved (memtable bytes per ms; slower as the memtable
 * passes half full), measured from the switch: a writer faster than flushes sleeps off its
 * lead, at most 5 ms per write, instead of meeting a full stop later that lasts until the
 * whole flush is done (fillrandom of 5M keys with default options and concurrent
 * compactions: stops of up to 4.1 s before this).
 *
 * Writes are synchronous, so waiting blocks the caller's thread: the database spends the
 * time taking finished background jobs (`drainCompleted`).
 */
import { type Statistics, Ticker } from "@shale/base";
import { pauseEnd, pauseStart, tracingPauses } from "../core/pause-trace.js";
import type { BackgroundExecutor } from "./executor.js";

export const StallCondition = Object.freeze({ Normal: 0, Delayed: 1, Stopped: 2 } as const);
export type StallCondition = (typeof StallCondition)[keyof typeof StallCondition];

/** RocksDB's default `delayed_write_rate`: 16 MiB/s. */
export const DELAYED_WRITE_RATE = 16 * 1024 * 1024;

export interface StallCounters {
  /** Micros spent slowed down (Delayed), stopped on L0 (Stopped), stopped on memtables. */
  l0SlowdownMicros: number;
  l0StopMicros: number;
  memtableStopMicros: number;
  l0SlowdownCount: number;
  l0StopCount: number;
  memtableStopCount: number;
  /** Micros slept, and sleeps, by the memtable throttle. */
  memtableThrottleMicros: number;
  memtableThrottleCount: number;
}

/** The memtable throttle's rate never falls below this fraction of the flush rate. */
const MIN_THROTTLE_FACTOR = 0.05;
/** Allowance the memtable throttle keeps for writes slower than the rate, ms. */
const MAX_THROTTLE_CREDIT_MS = 100;
/** Longest sleep of the memtable throttle in one write, ms. */
const MAX_THROTTLE_SLICE_MS = 5;

/** What a stalled write needs from the database. */
export interface StallHost {
  readonly executor: BackgroundExecutor;
  readonly statistics: Statistics | undefined;
  /** Starts the compactions that are due. */
  scheduleCompactions(): void;
  /** True once a background job failed (waiting would be in vain). */
  failed(): boolean;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

export class WriteController {
  condition: StallCondition = StallCondition.Normal;
  private readonly slowdown: number;
  private readonly stop: number;
  private readonly softPendingBytes: number;
  private readonly hardPendingBytes: number;
  private readonly enabled: boolean;
  /** Micros of delay owed by writes under Delayed and not slept yet. */
  private debtMicros = 0;
  readonly counters: StallCounters = {
    l0SlowdownMicros: 0,
    l0StopMicros: 0,
    memtableStopMicros: 0,
    l0SlowdownCount: 0,
    l0StopCount: 0,
    memtableStopCount: 0,
    memtableThrottleMicros: 0,
    memtableThrottleCount: 0,
  };
  /**
   * Memtable throttle: when it began (performance.now()); the memtable usage at the last
   * write; the ms (since the start) the writes so far were allowed to take; the base rate.
   */
  private throttleStart = 0;
  private throttleUsage = 0;
  private throttleAllowedMs = 0;
  private throttleBytesPerMs = 0;
  /** Whether the memtable throttle is on (see the top of the file). */
  throttling = false;

  constructor(options: {
    level0SlowdownWritesTrigger: number;
    level0StopWritesTrigger: number;
    disableAutoCompactions: boolean;
    /** Default: 0 (off). */
    softPendingCompactionBytesLimit?: number;
    /** Default: 0 (off). */
    hardPendingCompactionBytesLimit?: number;
  }) {
    this.slowdown = options.level0SlowdownWritesTrigger;
    this.stop = options.level0StopWritesTrigger;
    this.softPendingBytes = options.softPendingCompactionBytesLimit ?? 0;
    this.hardPendingBytes = options.hardPendingCompactionBytesLimit ?? 0;
    this.enabled = !options.disableAutoCompactions;
  }

  /** Re-decides the condition for `l0Files` L0 files and `pendingBytes` of compaction owed. */
  update(l0Files: number, pendingBytes = 0): void {
    const hard = this.hardPendingBytes;
    const soft = this.softPendingBytes;
    if (!this.enabled) this.condition = StallCondition.Normal;
    else if (l0Files >= this.stop || (hard > 0 && pendingBytes >= hard))
      this.condition = StallCondition.Stopped;
    else if (l0Files >= this.slowdown || (soft > 0 && pendingBytes >= soft))
      this.condition = StallCondition.Delayed;
    else {
      this.condition = StallCondition.Normal;
      this.debtMicros = 0;
    }
  }

  /**
   * Under Delayed: adds the delay owed for a write of `bytes` and returns how many whole
   * milliseconds to sleep now (0 while the debt is below 1 ms).
   */
  delayFor(bytes: number): number {
    this.debtMicros += (bytes * 1e6) / DELAYED_WRITE_RATE;
    if (this.debtMicros < 1000) return 0;
    const ms = Math.floor(this.debtMicros / 1000);
    this.debtMicros -= ms * 1000;
    return ms;
  }

  /**
   * Makes a write of `bytes` wait as the condition says (call only when it is not Normal):
   * Stopped waits until it is not; Delayed sleeps off the debt once it reaches 1 ms. Both
   * take finished background jobs meanwhile and are counted. Returns early when a
   * background job failed, or when nothing is running that could lower L0.
   */
  delay(bytes: number, host: StallHost): void {
    const c = this.counters;
    if (this.condition === StallCondition.Stopped) {
      const t0 = performance.now();
      const tTrace = tracingPauses ? pauseStart() : 0;
      c.l0StopCount++;
      while (this.condition === StallCondition.Stopped && !host.failed()) {
        host.scheduleCompactions();
        if (host.executor.pending === 0) break; // nothing running can lower L0
        host.executor.drainCompleted(100);
      }
      this.record(t0, "l0StopMicros", host.statistics);
      if (tracingPauses) pauseEnd(tTrace, "l0 stop");
      return;
    }
    const ms = this.delayFor(bytes);
    if (ms === 0) return;
    const t0 = performance.now();
    const tTrace = tracingPauses ? pauseStart() : 0;
    c.l0SlowdownCount++;
    const deadline = t0 + ms;
    for (let left = ms; left > 0; left = deadline - performance.now()) {
      const executor = host.executor;
      if (executor.drainCompleted(left) === 0 && executor.pending === 0) {
        Atomics.wait(sleeper, 0, 0, left);
      }
      if (this.condition === StallCondition.Normal || host.failed()) break;
    }
    this.record(t0, "l0SlowdownMicros", host.statistics);
    if (tracingPauses) pauseEnd(tTrace, "l0 slowdown", () => `${ms} ms owed`);
  }

  /**
   * Turns the memtable throttle on at `bytesPerMs` of memtable from now, when the mutable
   * memtable uses `usage` bytes; or off when `bytesPerMs` is 0.
   */
  setThrottle(bytesPerMs: number, usage: number): void {
    this.throttling = bytesPerMs > 0;
    this.throttleStart = performance.now();
    this.throttleUsage = usage;
    this.throttleAllowedMs = 0;
    this.throttleBytesPerMs = bytesPerMs;
  }

  /**
   * Under the memtable throttle, after a write that left the mutable memtable at `usage` of
   * its `capacity` bytes: the bytes since the last write are allowed at the base rate while
   * the memtable is at most half full, then at a rate falling linearly to 5 % of it as the
   * memtable fills (the last flush's rate is only an estimate: the fuller the last memtable,
   * the more a slower flush would cost). Once the writes are 1 ms or more ahead of what they
   * were allowed, sleeps off the lead, at most 5 ms per write (the next writes pay the rest,
   * so no single write waits longer), taking finished jobs meanwhile (an installed flush may
   * end the throttle). Unused allowance is kept up to 100 ms. Counted as memtable throttle
   * time.
   */
  throttle(usage: number, capacity: number, host: StallHost): void {
    const full = usage / capacity;
    const factor = full <= 0.5 ? 1 : Math.max(2 * (1 - full), MIN_THROTTLE_FACTOR);
    this.throttleAllowedMs += (usage - this.throttleUsage) / (this.throttleBytesPerMs * factor);
    this.throttleUsage = usage;
    const t0 = performance.now();
    const elapsed = t0 - this.throttleStart;
    let lead = this.throttleAllowedMs - elapsed;
    if (lead < -MAX_THROTTLE_CREDIT_MS) {
      this.throttleAllowedMs = elapsed - MAX_THROTTLE_CREDIT_MS;
      lead = -MAX_THROTTLE_CREDIT_MS;
    }
    if (lead < 1) return;
    this.counters.memtableThrottleCount++;
    const tTrace = tracingPauses ? pauseStart() : 0;
    const executor = host.executor;
    const slice = Math.min(lead, MAX_THROTTLE_SLICE_MS);
    if (executor.drainCompleted(slice) === 0 && executor.pending === 0) {
      Atomics.wait(sleeper, 0, 0, slice);
    }
    this.record(t0, "memtableThrottleMicros", host.statistics);
    if (tracingPauses) pauseEnd(tTrace, "memtable throttle");
  }

  /** Adds the time since `t0` (a performance.now()) to a counter and to StallMicros. */
  record(
    t0: number,
    kind: "l0StopMicros" | "l0SlowdownMicros" | "memtableStopMicros" | "memtableThrottleMicros",
    statistics: Statistics | undefined,
  ): void {
    const micros = Math.round((performance.now() - t0) * 1000);
    this.counters[kind] += micros;
    if (statistics !== undefined) statistics.tick(Ticker.StallMicros, micros);
  }

  /** Micros of delay owed by writes under Delayed and not slept yet (for tests and stats). */
  get owedMicros(): number {
    return this.debtMicros;
  }

  /** Total stall time of every kind. */
  get totalMicros(): number {
    const c = this.counters;
    return c.l0SlowdownMicros + c.l0StopMicros + c.memtableStopMicros + c.memtableThrottleMicros;
  }
}
