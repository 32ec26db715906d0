/**
 * The option shapes abstract-level hands the private API (`_get`, `_put`, `_batch`,
 * `_clear`, ...) of both adapters (shale-level.ts in Node, browser/shale-level.ts over a
 * worker), after it applied the encodings: formats named, keys and values encoded.
 */
import type { LevelRange } from "./range.js";

type Key = Uint8Array | string;

/** Reads: the formats the answer is wanted in. */
export interface PrivateReadOptions {
  keyEncoding: string;
  valueEncoding?: string;
}

/** Writes: `sync` (anything but `true` is not synced). */
export interface PrivateWriteOptions {
  sync?: unknown;
}

/** One operation of `batch([...])`. */
export interface PrivateBatchOperation {
  type: "put" | "del";
  key: Key;
  value?: Key;
}

/** `clear`: the range, its direction and how many entries at the most (-1: no limit). */
export interface PrivateClearOptions extends LevelRange {
  reverse: boolean;
  limit: number;
  keyEncoding: string;
}
