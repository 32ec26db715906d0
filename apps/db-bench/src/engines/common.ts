/**
 * What the engines share: replaying a BatchOps into an engine's own batch, the range
 * deletions an engine applies after its batch, tallying a getMany's answers, and the cursor of
 * an engine that cannot reposition one.
 */
import {
  type BatchOps,
  type Cursor,
  DELETE,
  DELETE_RANGE,
  type MaybePromise,
  PUT,
  type ReadTally,
  type SeekResult,
} from "./engine.js";

/** An engine's batch (or transaction) being built. */
export interface BatchBuilder {
  put(key: Uint8Array, value: Uint8Array): unknown;
  delete(key: Uint8Array): unknown;
  /** Undefined when the engine has no range deletion inside a batch (see `deleteRangesOf`). */
  readonly deleteRange: ((start: Uint8Array, end: Uint8Array) => unknown) | undefined;
}

/**
 * Adds `ops` to `builder` in order. Returns true when it holds range deletions the builder
 * cannot take: the engine applies them after writing the batch (`deleteRangesOf`).
 */
export function buildBatch(ops: BatchOps, builder: BatchBuilder): boolean {
  const { kinds, keys, values } = ops;
  let deferred = false;
  for (let i = 0; i < kinds.length; i++) {
    const kind = kinds[i]!;
    if (kind === PUT) builder.put(keys[i]!, values[i]!);
    else if (kind === DELETE) builder.delete(keys[i]!);
    else if (kind === DELETE_RANGE) {
      if (builder.deleteRange === undefined) deferred = true;
      else builder.deleteRange(keys[i]!, values[i]!);
    }
  }
  return deferred;
}

/** Applies the range deletions of `ops` one after another with `engine.deleteRange`. */
export async function deleteRangesOf(
  ops: BatchOps,
  engine: { deleteRange(start: Uint8Array, end: Uint8Array): MaybePromise<void> },
): Promise<void> {
  const { kinds, keys, values } = ops;
  for (let i = 0; i < kinds.length; i++)
    if (kinds[i] === DELETE_RANGE) await engine.deleteRange(keys[i]!, values[i]!);
}

/** Adds a getMany's answers (`values[i]` for `keys[i]`, undefined when absent) to `tally`. */
export function tallyFound(
  keys: Uint8Array[],
  values: readonly (Uint8Array | undefined)[],
  tally: ReadTally,
): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== undefined) {
      tally.found++;
      tally.bytes += keys[i]!.length + v.length;
    }
  }
}

/**
 * The cursor of an engine whose reads cannot be repositioned: every seek is the engine's
 * one-shot `seekOnce` (a fresh range read), and there is nothing to close.
 */
export function oneShotCursor(engine: {
  seekOnce(target: Uint8Array, nexts: number, out: SeekResult): MaybePromise<void>;
}): Cursor {
  return {
    seek: (target, nexts, out) => engine.seekOnce(target, nexts, out),
    close: () => {},
  };
}
