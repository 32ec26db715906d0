/**
 * A sealed memtable as plain data for another thread (`MemTable.exportShared()` /
 * `MemTable.fromShared()`): every byte stays in the SharedArrayBuffers it was written to;
 * only the chunk list and a few numbers are posted.
 *
 * ```
 * SharedMemTableData
 *   entryChunks[i]   SharedArrayBuffer   entry bytes (entry.ts), addressed as in arena.ts
 *   nodeChunks[i]    SharedArrayBuffer   skiplist nodes (skiplist.ts), Int32 little-endian
 *   pointHead        node address of the point list's head (0)
 *   tombstoneHead    node address of the range-tombstone list's head
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

/** Version of the SharedMemTableData layout; bump on any change. */
export const SHARED_FORMAT_VERSION = 1;

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
  readonly pointHead: number;
  readonly pointMaxHeight: number;
  readonly tombstoneHead: number;
  readonly tombstoneMaxHeight: number;
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
  "pointHead",
  "pointMaxHeight",
  "tombstoneHead",
  "tombstoneMaxHeight",
  "numEntries",
  "numRangeTombstones",
  "firstSeq",
  "largestSeq",
] as const;

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
