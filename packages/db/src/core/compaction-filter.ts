/**
 * Compaction filters (RocksDB's CompactionFilter, include/rocksdb/compaction_filter.h): user
 * code that sees values as compactions rewrite them, and keeps, removes or changes each.
 * Named by module (`{ module, name }`, core/user-module.ts) so that it runs in the worker
 * threads that run compactions, and on the database's thread when compactions run there.
 *
 * The export: `(key, value, { level }) => undefined | false | true | Uint8Array`:
 * `undefined`/`false` keep the value, `true` removes it, a Uint8Array replaces it. Anything
 * else, or a throw, fails the compaction: the database records a background error (writes
 * stop until reopen, nothing is dropped — the compaction's outputs are discarded and its
 * inputs stay).
 *
 * Which entries it sees, as RocksDB 7+ decides (db/compaction/compaction_iterator.cc,
 * `InvokeFilterIfNeeded`):
 * - of each user key in the compaction's input, the NEWEST entry only, and only when it is a
 *   Put (not a deletion, a merge operand, a blob index or a range deletion); older versions
 *   of the key are never shown;
 * - whatever the snapshots: RocksDB dropped `IgnoreSnapshots() == false` in 6.0, and shale
 *   has no such switch — a snapshot taken before the compaction may see a removed or
 *   changed value change under it;
 * - not a Put that a range deletion of the same compaction already covers (it is dropped
 *   anyway; RocksDB calls the filter on it, with no effect on what is read);
 * - never in flushes (RocksDB's default), and `level` is the compaction's start level
 *   (RocksDB's `compaction->level()`).
 * Removing turns the entry into a Deletion at the same sequence number (RocksDB's kRemove),
 * so older versions of the key stay hidden; the Deletion itself goes as deletions go (it is
 * dropped at the bottom level when no snapshot needs it). A changed value keeps the entry's
 * sequence number. A merge's result is not filtered in the compaction that makes it.
 *
 * Merge operands (RocksDB's FilterMergeOperand, the kMergeOperand value type of FilterV2/V3)
 * are shown only to a filter function that opts in with a property
 * `filterMergeOperands = true` (RocksDB's FilterMergeOperand defaults to keep): then each
 * operand a compaction with a merge operator reads, newer than every live snapshot (RocksDB's
 * MergeHelper keeps older ones unasked), is shown with `valueType: "mergeOperand"` before the
 * operands are merged. Kept: merged as it is; removed: dropped, as if never written; changed:
 * the new bytes are the operand. With every operand of a run removed, the entry under them
 * goes by the rules as if they had never been. A TTL family's filter never sees operands
 * (RocksDB's TtlCompactionFilter filters values only).
 */
import { ShaleError } from "@shale/base";
import {
  loadModuleExport,
  type ModuleExportOption,
  type ModuleExportRef,
  moduleExportRef,
} from "./user-module.js";

/** What the filter is told besides the key and value. */
export interface CompactionFilterContext {
  /** The compaction's start level (its input level). */
  readonly level: number;
  /**
   * What `value` is (RocksDB's CompactionFilter::ValueType): "value" (a Put's value) or
   * "mergeOperand" (only for a function with `filterMergeOperands = true`).
   */
  readonly valueType: "value" | "mergeOperand";
}

/** keep: `undefined` or `false`; remove: `true`; change: the new value. */
export type CompactionFilterDecision = undefined | boolean | Uint8Array;

/**
 * The export a `compactionFilter` option names. `key` and `value` are views valid during the
 * call only; a returned value is read before the next call.
 */
export type CompactionFilterFunction = ((
  key: Uint8Array,
  value: Uint8Array,
  context: CompactionFilterContext,
) => CompactionFilterDecision) & {
  /** Show merge operands too (`valueType: "mergeOperand"`). Default: false. */
  filterMergeOperands?: boolean;
};

/** The `compactionFilter` option: the module and export of a CompactionFilterFunction. */
export type CompactionFilterOption = ModuleExportOption;

/** A compaction filter imported on this thread, with the reference that crosses to workers. */
export class LoadedCompactionFilter {
  constructor(
    readonly ref: ModuleExportRef,
    readonly filter: CompactionFilterFunction,
  ) {}
}

const notFunction = (v: unknown) => (typeof v === "function" ? undefined : "is not a function");

/** Imports the filter a `{ module, name }` names; InvalidArgument/TypeError naming `what`. */
export async function loadCompactionFilter(
  option: unknown,
  what: string,
): Promise<LoadedCompactionFilter> {
  if (option instanceof LoadedCompactionFilter) return option;
  const ref = moduleExportRef(option, what);
  return new LoadedCompactionFilter(
    ref,
    await loadModuleExport<CompactionFilterFunction>(ref, what, notFunction),
  );
}

/**
 * The filter's decision for one value, checked: undefined keep, null remove, else the new
 * value. A decision of another type fails the compaction.
 */
export function checkDecision(d: CompactionFilterDecision): Uint8Array | null | undefined {
  if (d === undefined || d === false) return undefined;
  if (d === true) return null;
  if (d instanceof Uint8Array) return d;
  throw ShaleError.invalidArgument(
    `a compaction filter returned ${d === null ? "null" : typeof d}: return undefined or false (keep), true (remove) or a Uint8Array (new value)`,
  );
}
