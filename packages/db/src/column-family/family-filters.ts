/**
 * What a family's `ttl` and `compactionFilter` options make of it: the merge operator its
 * reads and compactions use (the user's, wrapped by TTL's: core/ttl.ts) and the filter each
 * of its compactions carries (compaction/value-filter.ts), with the clock read when the
 * compaction is scheduled.
 */
import type { FilterSpec } from "../compaction/value-filter.js";
import type { CompactionFilterFunction } from "../core/compaction-filter.js";
import type { MergeOperator } from "../core/merge-operator.js";
import type { ResolvedOptions } from "../core/options.js";
import { ttlMergeOperator } from "../core/ttl.js";

/** The merge operator of a family with these options. */
export function familyMergeOperator(options: ResolvedOptions): MergeOperator | undefined {
  const op = options.mergeOperator;
  return op === undefined || options.ttl === undefined ? op : ttlMergeOperator(op, options.clock);
}

/** The scheduler's `compactionFilter` hook of a family, or undefined when it filters nothing. */
export function compactionFilterHook(
  options: ResolvedOptions,
): ((level: number) => { spec: FilterSpec; fn: CompactionFilterFunction | undefined }) | undefined {
  const user = options.compactionFilter;
  const ttl = options.ttl;
  if (user === undefined && ttl === undefined) return undefined;
  const clock = options.clock;
  return (level) => ({
    spec: { user: user?.ref, ttl, now: ttl === undefined ? 0 : clock.nowSeconds(), level },
    fn: user?.filter,
  });
}
