/**
 * Level's range options (`gt`, `gte`, `lt`, `lte`) as the engine's half-open bounds
 * `[lowerBound, upperBound)`, exactly, under the bytewise order every Level database uses:
 * the smallest key after `k` is `k + 0x00`, so `gt: k` is `lowerBound: k + 0x00` and
 * `lte: k` is `upperBound: k + 0x00`. When both forms of a side are given, `gte` wins over
 * `gt` and `lte` over `lt` (as memory-level does). Range keys reach the private API encoded:
 * strings (the utf8 format) are UTF-8 encoded here.
 */
import { bytewiseComparator } from "@shale/base";

const encoder = new TextEncoder();

export interface Bounds {
  lowerBound: Uint8Array | undefined;
  upperBound: Uint8Array | undefined;
  /** True when no key can be in range (lower >= upper): nothing to read. */
  empty: boolean;
}

export interface LevelRange {
  gt?: unknown;
  gte?: unknown;
  lt?: unknown;
  lte?: unknown;
}

/** The key as bytes: private-API keys are strings (utf8), Buffers or Uint8Arrays. */
export function keyBytes(key: unknown): Uint8Array {
  if (typeof key === "string") return encoder.encode(key);
  if (key instanceof Uint8Array) return key;
  throw new TypeError("a range option must be a string, Buffer or Uint8Array once encoded");
}

/** `k + 0x00`: the first key after `k` in bytewise order. */
export function successor(k: Uint8Array): Uint8Array {
  const out = new Uint8Array(k.length + 1);
  out.set(k);
  return out;
}

export function levelBounds(range: LevelRange): Bounds {
  let lowerBound: Uint8Array | undefined;
  let upperBound: Uint8Array | undefined;
  if (range.gte !== undefined) lowerBound = keyBytes(range.gte);
  else if (range.gt !== undefined) lowerBound = successor(keyBytes(range.gt));
  if (range.lte !== undefined) upperBound = successor(keyBytes(range.lte));
  else if (range.lt !== undefined) upperBound = keyBytes(range.lt);
  const empty =
    lowerBound !== undefined &&
    upperBound !== undefined &&
    bytewiseComparator.compare(lowerBound, upperBound) >= 0;
  return { lowerBound, upperBound, empty };
}
