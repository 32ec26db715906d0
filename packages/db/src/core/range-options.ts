/**
 * Level's range vocabulary (`gt`, `gte`, `lt`, `lte`) beside RocksDB's bounds (`lowerBound`
 * inclusive, `upperBound` exclusive), resolved to the one lower and one upper bound the DB
 * iterator walks between:
 *
 * ```
 *   lower side: gte k  ==  lowerBound k   -> keys >= k        gt k  -> keys > k
 *   upper side: lt k   ==  upperBound k   -> keys <  k        lte k -> keys <= k
 * ```
 *
 * At most one option per side: two of `gt`/`gte`/`lowerBound` (or of `lt`/`lte`/`upperBound`)
 * is InvalidArgument naming both — Level would silently pick one, and which one differs
 * between implementations. A lower bound above the upper bound is an empty range (Level's
 * semantics), not an error. The bounds are copied: the caller may reuse its buffers.
 */
import { ShaleError, toBytes } from "@shale/base";

/** The range options shared by `iterator()` and `clear()`. */
export interface RangeOptions {
  /** Keys > gt (Level). Default: none. */
  gt?: Uint8Array | string;
  /** Keys >= gte (Level; the same as `lowerBound`). Default: none. */
  gte?: Uint8Array | string;
  /** Keys < lt (Level; the same as `upperBound`). Default: none. */
  lt?: Uint8Array | string;
  /** Keys <= lte (Level). Default: none. */
  lte?: Uint8Array | string;
  /** Inclusive lower bound on keys (RocksDB's iterate_lower_bound). Default: none. */
  lowerBound?: Uint8Array | string;
  /** Exclusive upper bound on keys (RocksDB's iterate_upper_bound). Default: none. */
  upperBound?: Uint8Array | string;
}

/** One bound per side; undefined = open. */
export interface ResolvedRange {
  lower: Uint8Array | undefined;
  /** `lower` itself is out (gt). */
  lowerExclusive: boolean;
  upper: Uint8Array | undefined;
  /** `upper` itself is in (lte). */
  upperInclusive: boolean;
}

/** No bound on either side (shared, frozen: resolveRange's callers only read it). */
const OPEN_RANGE: ResolvedRange = Object.freeze({
  lower: undefined,
  lowerExclusive: false,
  upper: undefined,
  upperInclusive: false,
});

const LOWER = ["gt", "gte", "lowerBound"] as const;
const UPPER = ["lt", "lte", "upperBound"] as const;

/** The one option of `names` that is set (not undefined), or undefined; two is InvalidArgument. */
function pick(
  o: RangeOptions,
  names: readonly (keyof RangeOptions)[],
  what: string,
): keyof RangeOptions | undefined {
  let found: keyof RangeOptions | undefined;
  for (const name of names) {
    if (o[name] === undefined) continue;
    if (found !== undefined) {
      throw ShaleError.invalidArgument(
        `${what}: ${found} and ${name} are both set; give at most one of ${names.join(", ")}`,
      );
    }
    found = name;
  }
  return found;
}

/**
 * Resolves the range options of `o` (already type-checked by its OptionTable). `what` names
 * the options argument in errors ("readOptions", "clearOptions").
 */
export function resolveRange(o: RangeOptions, what: string): ResolvedRange {
  // Most iterators have no range option: named loads, no keyed lookups, no allocation.
  if (
    o.gt === undefined &&
    o.gte === undefined &&
    o.lowerBound === undefined &&
    o.lt === undefined &&
    o.lte === undefined &&
    o.upperBound === undefined
  )
    return OPEN_RANGE;
  const lo = pick(o, LOWER, what);
  const hi = pick(o, UPPER, what);
  return {
    lower: lo === undefined ? undefined : toBytes(o[lo]!, `${what}.${lo}`).slice(),
    lowerExclusive: lo === "gt",
    upper: hi === undefined ? undefined : toBytes(o[hi]!, `${what}.${hi}`).slice(),
    upperInclusive: hi === "lte",
  };
}

/**
 * Level's `limit` as a count: a number >= 0, Infinity, or -1 (Level's "no limit"); the row
 * in call-options.ts has checked it.
 */
export function resolveLimit(limit: number | undefined): number {
  return limit === undefined || limit < 0 ? Number.POSITIVE_INFINITY : limit;
}
