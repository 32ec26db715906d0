/**
 * `db.getApproximateSizes(ranges)` (and a column family handle's) — RocksDB's
 * GetApproximateSizes: for each user-key range `[start, end)`, about how many bytes of the
 * column family it holds.
 *
 * Tables (`includeFiles`, Default: true), per table of the current version overlapping the
 * range:
 * ```
 *   table wholly inside the range        its file size
 *   table partly inside                  offset(end) - offset(start), each the file offset
 *                                        of the data block the key would be in (the index
 *                                        block: TableReader.approximateOffsetOf), or the
 *                                        table's ends when the range covers them
 * ```
 * so the figure counts compressed bytes on disk, at data-block granularity. Memtables
 * (`includeMemtables`, Default: false): the bytes of the entries in the range (key + value,
 * every version), walked with a memtable iterator — cost proportional to the entries in the
 * range. At least one of the two must be on (InvalidArgument).
 */

import type { InternalKeyComparator } from "@shale/base";
import {
  KIND_FOR_SEEK,
  MAX_SEQ,
  makeInternalKey,
  ShaleError,
  TRAILER_SIZE,
  toBytes,
} from "@shale/base";
import type { MemTable } from "@shale/memtable";
import type { TableCache } from "@shale/sstable";
import type { Version } from "../version/version.js";
import type { ImmutableMemTable } from "../write/immutable-memtable.js";

/** The column family whose sizes are estimated: its files and memtables now. */
export interface SizeSource {
  readonly icmp: InternalKeyComparator;
  readonly current: Version;
  readonly tableCache: TableCache;
  readonly mem: MemTable;
  readonly imm: readonly ImmutableMemTable[];
}

/** One range of `getApproximateSizes`: user keys in `[start, end)`. */
export interface SizeRange {
  start: Uint8Array | string;
  end: Uint8Array | string;
}

export interface ApproximateSizeOptions {
  /** Count table bytes. Default: true. */
  includeFiles?: boolean;
  /** Count memtable bytes. Default: false. */
  includeMemtables?: boolean;
}

function checkOptions(options: ApproximateSizeOptions | undefined): {
  files: boolean;
  mem: boolean;
} {
  if (options === undefined) return { files: true, mem: false };
  if (typeof options !== "object" || options === null)
    throw new TypeError("getApproximateSizes options must be an object");
  for (const key of Object.keys(options))
    if (key !== "includeFiles" && key !== "includeMemtables")
      throw ShaleError.invalidArgument(`getApproximateSizes: unknown option ${key}`);
  for (const key of ["includeFiles", "includeMemtables"] as const)
    if (options[key] !== undefined && typeof options[key] !== "boolean")
      throw new TypeError(`getApproximateSizes option ${key} must be a boolean`);
  const files = options.includeFiles ?? true;
  const mem = options.includeMemtables ?? false;
  if (!files && !mem)
    throw ShaleError.invalidArgument(
      "getApproximateSizes: includeFiles and includeMemtables are both false",
    );
  return { files, mem };
}

const seekKey = (userKey: Uint8Array) => makeInternalKey(userKey, MAX_SEQ, KIND_FOR_SEEK);

/**
 * The sizes of `ranges` in the column family `host` (REQUIRES: the caller checked that it is
 * open and took finished jobs).
 */
export function approximateSizes(
  host: SizeSource,
  ranges: readonly SizeRange[],
  options?: ApproximateSizeOptions,
): number[] {
  if (!Array.isArray(ranges)) throw new TypeError("getApproximateSizes takes an array of ranges");
  const include = checkOptions(options);
  const ucmp = host.icmp.user;
  const parsed = ranges.map((r, i) => {
    if (typeof r !== "object" || r === null)
      throw new TypeError(`ranges[${i}] must be an object { start, end }`);
    const start = toBytes(r.start, `ranges[${i}].start`);
    const end = toBytes(r.end, `ranges[${i}].end`);
    if (ucmp.compare(start, end) > 0)
      throw ShaleError.invalidArgument(`getApproximateSizes: ranges[${i}] has start after end`);
    return { start, end };
  });
  const levels = host.current.levels;
  const memtables = include.mem ? [host.mem, ...host.imm.map((m) => m.mem)] : [];
  return parsed.map(({ start, end }) => {
    if (ucmp.compare(start, end) === 0) return 0;
    let total = 0;
    if (include.files) {
      for (const files of levels) {
        for (const f of files) {
          const lo = f.smallest.subarray(0, f.smallest.length - TRAILER_SIZE);
          const hi = f.largest.subarray(0, f.largest.length - TRAILER_SIZE);
          if (ucmp.compare(hi, start) < 0 || ucmp.compare(lo, end) >= 0) continue;
          const startsInside = ucmp.compare(lo, start) >= 0;
          const endsInside = ucmp.compare(hi, end) < 0;
          if (startsInside && endsInside) {
            total += f.size;
            continue;
          }
          const reader = host.tableCache.get(f.number, f.size, f.largestSeq);
          const from = startsInside ? 0 : reader.approximateOffsetOf(seekKey(start));
          const to = endsInside ? f.size : reader.approximateOffsetOf(seekKey(end));
          if (to > from) total += to - from;
        }
      }
    }
    for (const mem of memtables) total += memtableBytes(mem, start, end, host);
    return total;
  });
}

function memtableBytes(
  mem: MemTable,
  start: Uint8Array,
  end: Uint8Array,
  host: SizeSource,
): number {
  const ucmp = host.icmp.user;
  const it = mem.newIterator();
  let bytes = 0;
  try {
    for (it.seek(seekKey(start)); it.valid(); it.next()) {
      const key = it.key();
      if (ucmp.compare(key.subarray(0, key.length - TRAILER_SIZE), end) >= 0) break;
      bytes += key.length + it.value().length;
    }
  } finally {
    it.close();
  }
  return bytes;
}
