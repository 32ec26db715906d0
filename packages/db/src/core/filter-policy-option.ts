/**
 * The `filterPolicy` option of `open`: which filter the database's tables get, as plain
 * data (it crosses to the worker threads that write tables), named like RocksDB's
 * factories:
 *
 * ```
 *   { type: "bloom", bitsPerKey: 10 }                        NewBloomFilterPolicy(10)
 *   { type: "ribbon", bitsPerKey: 10, bloomBeforeLevel: 0 }  NewRibbonFilterPolicy(10, 0)
 * ```
 * `bitsPerKey` may be fractional for both, as RocksDB's `double bits_per_key` (read to the
 * thousandth, its millibits): `{ type: "bloom", bitsPerKey: 10.5 }` gives about 0.79 %
 * false positives where 10 gives 0.96 %. It must be in [1, 100]: NaN, infinities and values
 * RocksDB would silently clamp are errors here.
 * `bitsPerKey` is Bloom-equivalent for Ribbon: the filter aims at Bloom's false-positive
 * rate at that setting in about 30 % less space. `bloomBeforeLevel` (Default: 0, RocksDB's)
 * gives tables below that level a Bloom filter, flushes counting as level -1: 0 = Bloom for
 * flushes, Ribbon for compactions; -1 = always Ribbon; 2147483647 = always Bloom.
 * `bloomBitsPerKey: n` is shorthand for `{ type: "bloom", bitsPerKey: n }`.
 *
 * In the OPTIONS file the policy is RocksDB's `GetId()` string, `filter_policy=` in the
 * table section: "bloomfilter:10:false", "bloomfilter:9.9:false", "ribbonfilter:10:0" (the
 * bits with at most three decimals, RocksDB's `GetBitsPerKeySuffix`); `filterPolicyOf` reads those
 * and the other forms RocksDB's `FilterPolicy::CreateFromString` accepts.
 */

import { ShaleError } from "@shale/base";
import { bitsSuffix, checkBitsPerKey, RibbonFilterPolicy } from "@shale/bloom";

/** The `filterPolicy` option. */
export interface FilterPolicyOption {
  type: "bloom" | "ribbon";
  /**
   * Bits per key (Bloom-equivalent for Ribbon), in [1, 100], fractions allowed (9.9, 10.5).
   * Default: 10.
   */
  bitsPerKey?: number;
  /** Ribbon only: tables below this level get Bloom (a flush is level -1). Default: 0. */
  bloomBeforeLevel?: number;
}

/** A Ribbon policy as table options carry it (structured-clone friendly). */
export interface RibbonTableFilter {
  type: "ribbon";
  bitsPerKey: number;
  bloomBeforeLevel: number;
}

const ALWAYS_BLOOM = 0x7fffffff;

/**
 * Checks the option; TypeError for wrong types, InvalidArgument for bad values, each naming
 * `filterPolicy`. Returns it with its defaults.
 */
export function resolveFilterPolicyOption(v: unknown): Required<FilterPolicyOption> {
  if (typeof v !== "object" || v === null) {
    throw new TypeError('filterPolicy must be an object { type: "bloom" | "ribbon", bitsPerKey }');
  }
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (k !== "type" && k !== "bitsPerKey" && k !== "bloomBeforeLevel") {
      throw ShaleError.invalidArgument(`filterPolicy has an unknown field "${k}"`);
    }
  }
  if (o["type"] !== "bloom" && o["type"] !== "ribbon") {
    throw ShaleError.invalidArgument(`filterPolicy.type must be "bloom" or "ribbon"`);
  }
  const bitsPerKey = checkBitsPerKey(o["bitsPerKey"] ?? 10, "filterPolicy.bitsPerKey");
  const before = o["bloomBeforeLevel"] ?? 0;
  if (typeof before !== "number") {
    throw new TypeError("filterPolicy.bloomBeforeLevel must be a number");
  }
  if (o["type"] === "bloom" && o["bloomBeforeLevel"] !== undefined) {
    throw ShaleError.invalidArgument('filterPolicy.bloomBeforeLevel is for type "ribbon"');
  }
  if (!(Number.isInteger(before) && before >= -1 && before <= ALWAYS_BLOOM)) {
    throw ShaleError.invalidArgument(
      `filterPolicy.bloomBeforeLevel must be an integer in [-1, ${ALWAYS_BLOOM}]; got ${before}`,
    );
  }
  return { type: o["type"], bitsPerKey, bloomBeforeLevel: before };
}

/** RocksDB's `GetId()` of a policy: the OPTIONS file's `filter_policy` value. */
export function filterPolicyId(policy: Required<FilterPolicyOption> | undefined): string {
  if (policy === undefined) return "nullptr";
  return policy.type === "bloom"
    ? `bloomfilter:${bitsSuffix(policy.bitsPerKey)}:false`
    : `ribbonfilter:${bitsSuffix(policy.bitsPerKey)}:${policy.bloomBeforeLevel}`;
}

/**
 * The policy a `filter_policy=` value of an OPTIONS file names, in any form RocksDB writes
 * or reads: "bloomfilter:10:false", "bloomfilter:10", "rocksdb.BloomFilter:10",
 * "ribbonfilter:10", "ribbonfilter:10:-1", "rocksdb.RibbonFilter:10:1",
 * "{id=ribbonfilter:10:0;bloom_before_level=2}" (the customizable form, whose
 * `bloom_before_level` wins). Undefined for "nullptr" or "", and for a policy shale does not
 * build ("rocksdb.BuiltinBloomFilter", the read-only one, and custom ones): tables are read
 * with any of them.
 */
export function filterPolicyOf(
  value: string | undefined,
): Required<FilterPolicyOption> | undefined {
  if (value === undefined) return undefined;
  let id = value.trim();
  let beforeOverride: number | undefined;
  const braces = /^\{(.*)\}$/.exec(id);
  if (braces !== null) {
    id = "";
    for (const part of braces[1]!.split(";")) {
      const eq = part.indexOf("=");
      if (eq < 0) continue;
      const k = part.slice(0, eq).trim();
      const v = part.slice(eq + 1).trim();
      if (k === "id") id = v;
      else if (k === "bloom_before_level") beforeOverride = Number(v);
    }
  }
  if (id === "" || id === "nullptr") return undefined;
  const parts = id.split(":");
  const name = parts[0];
  const bits = Number(parts[1]);
  if (parts.length < 2 || !Number.isFinite(bits)) return undefined;
  const bitsPerKey = Math.min(100, Math.max(1, bits));
  if (name === "bloomfilter" || name === "rocksdb.BloomFilter") {
    return { type: "bloom", bitsPerKey, bloomBeforeLevel: 0 };
  }
  if (name === "ribbonfilter" || name === "rocksdb.RibbonFilter") {
    const before = beforeOverride ?? (parts[2] !== undefined ? Number(parts[2]) : 0);
    return {
      type: "ribbon",
      bitsPerKey,
      bloomBeforeLevel: Number.isInteger(before) ? Math.max(-1, Math.min(ALWAYS_BLOOM, before)) : 0,
    };
  }
  return undefined;
}

/** The `RibbonFilterPolicy` of table options' `filter`. */
export function ribbonPolicyOf(filter: RibbonTableFilter): RibbonFilterPolicy {
  return new RibbonFilterPolicy(filter.bitsPerKey, filter.bloomBeforeLevel);
}
