/**
 * Prefix extractors: RocksDB's SliceTransform (include/rocksdb/slice_transform.h). An
 * extractor maps a user key in its domain to a prefix of it; tables then add each key's
 * prefix to their full filter (filter-block.ts `addWithPrefix`), and a prefix seek skips the
 * tables whose filter has not got the seek key's prefix.
 *
 * The name is part of the on-disk format: it is recorded in each table's properties
 * (`rocksdb.prefix.extractor.name`) and in the OPTIONS file (`prefix_extractor=`), and a
 * table's prefix filter is used only by an extractor of the same name.
 *
 * ```
 *   fixedPrefix(3)   "user42" -> "use"    "ab" -> not in the domain (shorter than 3)
 *   cappedPrefix(3)  "user42" -> "use"    "ab" -> "ab"  (every key is in the domain)
 * ```
 * Names (RocksDB's, util/slice.cc; do not change): "rocksdb.FixedPrefix.<n>",
 * "rocksdb.CappedPrefix.<n>", "rocksdb.Noop".
 *
 * Thread safety: the built-in extractors are immutable values, rebuilt from their name in
 * worker threads (`builtinPrefixExtractor`); a user extractor's functions stay on the thread
 * that has them (flushes and compactions of its tables run on the main thread).
 */
import { ShaleError } from "@shale/base";

/**
 * A prefix extractor (RocksDB's SliceTransform). REQUIRES of a user extractor, as of
 * RocksDB's: the prefix of a key in the domain is a prefix of its bytes (or compares as one),
 * keys with the same prefix are contiguous in the comparator's order, and a key greater than
 * one in the domain with the same prefix is in the domain too.
 */
export interface PrefixExtractor {
  /**
   * Recorded in the OPTIONS file and in every table written; a table's prefix filter is used
   * only by an extractor of the same name. Change it when `transform` changes.
   */
  readonly name: string;
  /** The prefix of `key` (a view of it, or new bytes; only read). REQUIRES: inDomain(key). */
  transform(key: Uint8Array): Uint8Array;
  /** Whether `key` has a prefix; keys outside the domain are filtered and sought as whole keys. */
  inDomain(key: Uint8Array): boolean;
  /**
   * RocksDB's FullLengthEnabled: the length of every "full" prefix, if prefixes have one
   * (read options' `autoPrefixMode` uses it with the upper bound). Default: none.
   */
  readonly fullLength?: number | undefined;
}

/** RocksDB's NewFixedPrefixTransform: the first `length` bytes; shorter keys are out of the domain. */
class FixedPrefix implements PrefixExtractor {
  readonly name: string;
  readonly fullLength: number;
  constructor(readonly length: number) {
    this.name = `rocksdb.FixedPrefix.${length}`;
    this.fullLength = length;
  }
  transform(key: Uint8Array): Uint8Array {
    return key.subarray(0, this.length);
  }
  inDomain(key: Uint8Array): boolean {
    return key.length >= this.length;
  }
}

/** RocksDB's NewCappedPrefixTransform: the first `length` bytes, or the whole shorter key. */
class CappedPrefix implements PrefixExtractor {
  readonly name: string;
  readonly fullLength: number;
  constructor(readonly length: number) {
    this.name = `rocksdb.CappedPrefix.${length}`;
    this.fullLength = length;
  }
  transform(key: Uint8Array): Uint8Array {
    return key.length <= this.length ? key : key.subarray(0, this.length);
  }
  inDomain(_key: Uint8Array): boolean {
    return true;
  }
}

/** RocksDB's NewNoopTransform: the whole key is its prefix. */
class NoopPrefix implements PrefixExtractor {
  readonly name = "rocksdb.Noop";
  transform(key: Uint8Array): Uint8Array {
    return key;
  }
  inDomain(_key: Uint8Array): boolean {
    return true;
  }
}

function checkLength(n: unknown, what: string): number {
  if (typeof n !== "number") throw new TypeError(`${what}: length must be a number`);
  if (!Number.isInteger(n) || n < 1 || n > 0x7fffffff) {
    throw ShaleError.invalidArgument(`${what}: length must be an integer >= 1; got ${n}`);
  }
  return n;
}

/** The first `length` bytes of a key; keys shorter than that have no prefix (RocksDB's FixedPrefix). */
export function fixedPrefix(length: number): PrefixExtractor {
  return new FixedPrefix(checkLength(length, "fixedPrefix"));
}

/** The first `length` bytes of a key, or all of a shorter one (RocksDB's CappedPrefix). */
export function cappedPrefix(length: number): PrefixExtractor {
  return new CappedPrefix(checkLength(length, "cappedPrefix"));
}

const NAMED = /^(?:rocksdb\.(FixedPrefix|CappedPrefix)\.|(fixed|capped):)(\d+)$/;

/**
 * The built-in extractor a name stands for — RocksDB's names ("rocksdb.FixedPrefix.8",
 * "rocksdb.CappedPrefix.8", "rocksdb.Noop") and its short forms ("fixed:8", "capped:8") —
 * or undefined for any other name.
 */
export function builtinPrefixExtractor(name: string): PrefixExtractor | undefined {
  if (name === "rocksdb.Noop") return new NoopPrefix();
  const m = NAMED.exec(name);
  if (m === null) return undefined;
  const n = Number(m[3]);
  if (!(n >= 1 && n <= 0x7fffffff)) return undefined;
  return m[1] === "FixedPrefix" || m[2] === "fixed" ? new FixedPrefix(n) : new CappedPrefix(n);
}

/** Whether `e` is one of the built-in extractors (those can be rebuilt from their name). */
export function isBuiltinPrefixExtractor(e: PrefixExtractor): boolean {
  return e instanceof FixedPrefix || e instanceof CappedPrefix || e instanceof NoopPrefix;
}

/**
 * Checks that `value` is a PrefixExtractor: TypeError naming `what` for anything else,
 * InvalidArgument for a name that is empty or "nullptr" (which OPTIONS files use for none).
 */
export function checkPrefixExtractor(value: unknown, what = "prefixExtractor"): PrefixExtractor {
  const v = value as Record<string, unknown> | null;
  if (
    typeof v !== "object" ||
    v === null ||
    typeof v["name"] !== "string" ||
    typeof v["transform"] !== "function" ||
    typeof v["inDomain"] !== "function"
  ) {
    throw new TypeError(
      `${what} must be a prefix extractor (fixedPrefix(n), cappedPrefix(n), or { name, transform(key), inDomain(key) })`,
    );
  }
  if (v["name"] === "" || v["name"] === "nullptr") {
    throw ShaleError.invalidArgument(`${what}.name must be a non-empty name other than "nullptr"`);
  }
  return value as PrefixExtractor;
}

/** Whether two byte strings are equal (prefixes compare bytewise, as RocksDB's Slice compare). */
export function samePrefix(a: Uint8Array, b: Uint8Array): boolean {
  const n = a.length;
  if (n !== b.length) return false;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}
