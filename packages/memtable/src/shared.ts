/**
 * A sealed memtable as plain data for another thread (`MemTable.exportShared()` /
 * `MemTable.fromShared()`): every byte stays in the SharedArrayBuffers it was written to;
 * only the chunk list and a few numbers are posted.
 *
 * ```
 * SharedMemTableData
 *   entryChunks[i]   SharedArrayBuffer   entry bytes (entry.ts), addressed as in arena.ts
 *   nodeChunks[i]    SharedArrayBuffer   B+tree nodes (btree.ts), Int32 little-endian
 *   points           { root, height, firstLeaf, lastLeaf } of the point entries' tree
 *   tombstoneTree    the same for the range tombstones' tree
 *   index            { table: SharedArrayBuffer, count } of the hash index (hash-index.ts),
 *                    or null when the memtable has none (comparator not bytewise)
 *   rangeTombstones  SharedArrayBuffer   Int32 entry addresses, one per tombstone,
 *                                        in insertion order:
 *                    +-----------+-----------+-----+
 *                    | address 0 | address 1 | ... |   (4 * numRangeTombstones bytes)
 *                    +-----------+-----------+-----+
 * ```
 *
 * It is in memory only (never persisted), so it carries no checksum; `fromShared` checks
 * its shape and the comparator name, and trusts the bytes.
 */
import { ShaleError } from "@shale/base";
import type { TreeRoots } from "./btree.js";
import type { SharedIndexData } from "./hash-index.js";

/**
 * Version of the SharedMemTableData layout; bump on any change.
 * 1: skiplists. 2: B+trees (`points`, `tombstoneTree` replace the skiplist heads) and the
 * hash index (`index`).
 */
export const SHARED_FORMAT_VERSION = 2;

/** A sealed memtable as structured-clone friendly data (SharedArrayBuffers and numbers). */
export interface SharedMemTableData {
  /** SHARED_FORMAT_VERSION. */
  readonly version: number;
  /** Name of the comparator the memtable was built with. */
  readonly comparatorName: string;
  readonly chunkSize: number;
  readonly entryChunks: readonly SharedArrayBuffer[];
  readonly nodeChunks: readonly SharedArrayBuffer[];
  readonly usedBytes: number;
  readonly points: TreeRoots;
  readonly tombstoneTree: TreeRoots;
  readonly index: SharedIndexData | null;
  /** Int32 entry addresses of the range tombstones, in insertion order. */
  readonly rangeTombstones: SharedArrayBuffer;
  readonly numEntries: number;
  readonly numRangeTombstones: number;
  readonly firstSeq: number;
  readonly largestSeq: number;
}

const NUMBER_FIELDS = [
  "version",
  "chunkSize",
  "usedBytes",
  "numEntries",
  "numRangeTombstones",
  "firstSeq",
  "largestSeq",
] as const;

const TREE_FIELDS = ["root", "height", "firstLeaf", "lastLeaf"] as const;

/** Throws TypeError / InvalidArgument when `data` is not a SharedMemTableData we can open. */
export function checkSharedData(data: SharedMemTableData): void {
  if (typeof data !== "object" || data === null)
    throw new TypeError("shared memtable data must be an object");
  for (const field of NUMBER_FIELDS) {
    const v = data[field];
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0) {
      throw new TypeError(`shared memtable data: ${field} must be a non-negative integer`);
    }
  }
  for (const tree of [data.points, data.tombstoneTree]) {
    if (typeof tree !== "object" || tree === null) {
      throw new TypeError("shared memtable data: points and tombstoneTree must be objects");
    }
    for (const field of TREE_FIELDS) {
      const v = tree[field];
      if (typeof v !== "number" || !Number.isInteger(v) || v < 0) {
        throw new TypeError(`shared memtable data: tree ${field} must be a non-negative integer`);
      }
    }
  }
  const index = data.index;
  if (index !== null) {
    if (
      typeof index !== "object" ||
      !(index.table instanceof SharedArrayBuffer) ||
      typeof index.count !== "number" ||
      !Number.isInteger(index.count) ||
      index.count < 0
    ) {
      throw new TypeError("shared memtable data: index must be null or { table, count }");
    }
    const slots = index.table.byteLength / 8;
    if (!Number.isInteger(slots) || slots < 1 || (slots & (slots - 1)) !== 0) {
      throw ShaleError.invalidArgument("shared memtable data: index table size is not 8 * 2^k");
    }
  }
  if (data.version !== SHARED_FORMAT_VERSION) {
    throw ShaleError.invalidArgument(
      `shared memtable data has version ${data.version}; expected ${SHARED_FORMAT_VERSION}`,
    );
  }
  if (typeof data.comparatorName !== "string")
    throw new TypeError("shared memtable data: comparatorName must be a string");
  if (!Array.isArray(data.entryChunks) || !Array.isArray(data.nodeChunks)) {
    throw new TypeError("shared memtable data: entryChunks and nodeChunks must be arrays");
  }
  if (!(data.rangeTombstones instanceof SharedArrayBuffer)) {
    throw new TypeError("shared memtable data: rangeTombstones must be a SharedArrayBuffer");
  }
  if (data.rangeTombstones.byteLength !== data.numRangeTombstones * 4) {
    throw ShaleError.invalidArgument(
      "shared memtable data: rangeTombstones does not match numRangeTombstones",
    );
  }
  if (data.nodeChunks.length === 0)
    throw ShaleError.invalidArgument("shared memtable data: no node chunks");
}
