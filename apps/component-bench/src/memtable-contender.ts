/**
 * What memtable-bench.ts asks of each sorted map. Each workload loop lives inside the
 * contender's own method, so every call site in a loop sees one class (the harness calls
 * once per workload, not per entry).
 */
import type { Data } from "./memtable-data.js";

export const SCAN_LENGTH = 10;
export const SMALL_ENTRIES = 16;

export interface Contender {
  readonly name: string;
  /** What the README table calls it. */
  readonly label: string;
  /** A new empty store. */
  reset(): void;
  insertAll(d: Data): void;
  /** Gets `keys[d.getOrder[i]]` for every i; returns how many were found. */
  getAll(d: Data, keys: Uint8Array[]): number;
  /** A full scan reading every key's first byte and every value's length. */
  scan(): number;
  /** `d.seeks` seeks, each followed by reading SCAN_LENGTH entries. */
  seekScans(d: Data): number;
  /** Makes `count` small tables (SMALL_ENTRIES inserts and one get each). */
  smallTables(d: Data, count: number): number;
  /** Builds a store from fresh copies of the keys and values (for the memory figure). */
  buildCopies(d: Data): unknown;
}
