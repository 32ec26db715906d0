/**
 * The value filter a compaction applies (see core/compaction-filter.ts for which entries it
 * sees): the family's TTL filter (RocksDB's TtlCompactionFilter) layered over the user's
 * compaction filter, either or both.
 *
 * ```
 *   TTL family:  stale (timestamp + ttl < now)  -> remove
 *                else user filter on the value without its 4-byte timestamp
 *                     changed -> the new value + the old timestamp
 *   otherwise:   user filter on the value
 * ```
 *
 * `FilterSpec` is what crosses to a worker with the job (no functions); the filter function
 * itself is resolved on the thread that runs the job.
 */
import { ShaleError } from "@shale/base";
import {
  type CompactionFilterContext,
  type CompactionFilterFunction,
  checkDecision,
} from "../core/compaction-filter.js";
import { isStale, TTL_TIMESTAMP_BYTES } from "../core/ttl.js";
import type { ModuleExportRef } from "../core/user-module.js";

/** A compaction's filtering, structured-clone friendly. */
export interface FilterSpec {
  /** The user's compaction filter, if any. */
  user: ModuleExportRef | undefined;
  /** The family's TTL in seconds (undefined: not a TTL family). */
  ttl: number | undefined;
  /** The clock's reading when the compaction was scheduled (seconds). */
  now: number;
  /** The compaction's start level (the filter's `level`). */
  level: number;
}

/** Decides each value (and, if it `filtersOperands`, merge operand) the CompactionIterator shows it. */
export interface ValueFilter {
  /** undefined: keep; null: remove; a Uint8Array: the new stored value. */
  filter(userKey: Uint8Array, value: Uint8Array): Uint8Array | null | undefined;
  /** Merge operands are shown to `filterOperand` (the user's function opted in). */
  readonly filtersOperands: boolean;
  /** undefined: keep; null: remove; a Uint8Array: the new operand. */
  filterOperand(userKey: Uint8Array, operand: Uint8Array): Uint8Array | null | undefined;
}

class UserValueFilter implements ValueFilter {
  private readonly context: CompactionFilterContext;
  private readonly operandContext: CompactionFilterContext;
  readonly filtersOperands: boolean;
  constructor(
    private readonly fn: CompactionFilterFunction,
    level: number,
  ) {
    this.context = Object.freeze({ level, valueType: "value" as const });
    this.operandContext = Object.freeze({ level, valueType: "mergeOperand" as const });
    this.filtersOperands = fn.filterMergeOperands === true;
  }
  filter(userKey: Uint8Array, value: Uint8Array): Uint8Array | null | undefined {
    return checkDecision(this.fn(userKey, value, this.context));
  }
  filterOperand(userKey: Uint8Array, operand: Uint8Array): Uint8Array | null | undefined {
    return checkDecision(this.fn(userKey, operand, this.operandContext));
  }
}

class TtlValueFilter implements ValueFilter {
  private readonly context: CompactionFilterContext;
  /** RocksDB's TtlCompactionFilter filters values only. */
  readonly filtersOperands = false;
  constructor(
    private readonly ttl: number,
    private readonly now: number,
    private readonly fn: CompactionFilterFunction | undefined,
    level: number,
  ) {
    this.context = Object.freeze({ level, valueType: "value" as const });
  }
  filterOperand(): undefined {
    return undefined;
  }
  filter(userKey: Uint8Array, value: Uint8Array): Uint8Array | null | undefined {
    const n = value.length;
    if (n < TTL_TIMESTAMP_BYTES)
      throw ShaleError.corruption(
        "a value of a TTL column family is shorter than its timestamp in a compaction",
      );
    if (isStale(value, this.ttl, this.now)) return null;
    const fn = this.fn;
    if (fn === undefined) return undefined;
    const d = checkDecision(fn(userKey, value.subarray(0, n - TTL_TIMESTAMP_BYTES), this.context));
    if (d === undefined || d === null) return d;
    const out = new Uint8Array(d.length + TTL_TIMESTAMP_BYTES);
    out.set(d, 0);
    out.set(value.subarray(n - TTL_TIMESTAMP_BYTES), d.length);
    return out;
  }
}

/** The filter of a compaction, or undefined when it has none. */
export function makeValueFilter(
  spec: FilterSpec | undefined,
  fn: CompactionFilterFunction | undefined,
): ValueFilter | undefined {
  if (spec === undefined) return undefined;
  if (spec.user !== undefined && fn === undefined)
    throw ShaleError.invalidArgument(
      `the compaction filter ${JSON.stringify(spec.user.name)} of ${JSON.stringify(spec.user.module)} is not loaded`,
    );
  if (spec.ttl !== undefined) return new TtlValueFilter(spec.ttl, spec.now, fn, spec.level);
  return fn === undefined ? undefined : new UserValueFilter(fn, spec.level);
}
