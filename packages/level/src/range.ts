/**
 * Level's range options as the engine takes them. The engine (@shale/db) speaks Level's
 * `gt`, `gte`, `lt`, `lte` itself, but allows one option per side; Level allows both forms
 * of a side, and then `gte` wins over `gt` and `lte` over `lt` (abstract-level's suite,
 * memory-level). Range keys reach the private API encoded (a string in the utf8 format,
 * else bytes).
 *
 * `outOfRange` is Level's seek rule: a seek target before the range's start, in the
 * iteration's direction, ends the iterator (the engine's `seek` would clamp it to the
 * bound instead). Past the far end the engine already lands on nothing.
 */
import { bytewiseComparator } from "@shale/base";

const encoder = new TextEncoder();

/** Level's range options, one or both forms per side. */
export interface LevelRange {
  gt?: unknown;
  gte?: unknown;
  lt?: unknown;
  lte?: unknown;
}

/** The range with at most one option per side, as the engine takes it. */
export interface EngineRange {
  gt?: Uint8Array | string;
  gte?: Uint8Array | string;
  lt?: Uint8Array | string;
  lte?: Uint8Array | string;
}

function rangeKey(key: unknown): Uint8Array | string {
  if (typeof key === "string" || key instanceof Uint8Array) return key;
  throw new TypeError("a range option must be a string, Buffer or Uint8Array once encoded");
}

/** `range` with one option per side (gte over gt, lte over lt), copied into `out`. */
export function engineRange<T extends EngineRange>(range: LevelRange, out: T): T {
  if (range.gte !== undefined) out.gte = rangeKey(range.gte);
  else if (range.gt !== undefined) out.gt = rangeKey(range.gt);
  if (range.lte !== undefined) out.lte = rangeKey(range.lte);
  else if (range.lt !== undefined) out.lt = rangeKey(range.lt);
  return out;
}

/** The key as bytes: private-API keys are strings (utf8), Buffers or Uint8Arrays. */
export function keyBytes(key: unknown): Uint8Array {
  if (typeof key === "string") return encoder.encode(key);
  if (key instanceof Uint8Array) return key;
  throw new TypeError("a seek target must be a string, Buffer or Uint8Array once encoded");
}

/**
 * True when a seek to `target` must end the iterator: before the start of `range` in the
 * iteration's direction (forward: below gte / at or below gt; reverse: above lte / at or
 * above lt).
 */
export function outOfRange(range: EngineRange, target: Uint8Array, reverse: boolean): boolean {
  const cmp = bytewiseComparator;
  if (reverse) {
    if (range.lte !== undefined) return cmp.compare(target, keyBytes(range.lte)) > 0;
    if (range.lt !== undefined) return cmp.compare(target, keyBytes(range.lt)) >= 0;
  } else {
    if (range.gte !== undefined) return cmp.compare(target, keyBytes(range.gte)) < 0;
    if (range.gt !== undefined) return cmp.compare(target, keyBytes(range.gt)) <= 0;
  }
  return false;
}
