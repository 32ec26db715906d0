/**
 * `db.deleteFilesInRange(start, end, columnFamily?)` — RocksDB's DeleteFilesInRange, in the
 * column family of the handle given (Default: `default`): frees disk space at once after a
 * large range is no longer wanted, by dropping whole tables from the version
 * (one MANIFEST edit; the files are unlinked when no iterator reads them any more), without
 * writing or compacting anything.
 *
 * Which tables: those of L1 and deeper whose user keys lie wholly inside `[start, end]`
 * (both inclusive, as RocksDB's default include_end; a missing bound is open), that no
 * running compaction uses, and that can be cut cleanly: a table sharing its first or last
 * user key with a neighbour that stays is kept (dropping it would drop only some versions
 * of that key). L0 tables are never dropped (they overlap each other and newer data), nor
 * is anything in the memtables.
 *
 * NOT a consistent delete (RocksDB says the same):
 * - the keys of the dropped tables vanish for every reader at once, snapshots included (an
 *   open iterator keeps reading the files it pinned);
 * - keys of the range in tables that only partly overlap it, in L0 or in memtables stay;
 * - older versions of a key in a deeper level, hidden until now by a newer entry in a dropped
 *   table, become visible again — and a deletion in a dropped table stops hiding them.
 * For a consistent result, `deleteRange(start, end)` first (it hides everything older) and
 * `compactRange(start, end)` after, or use this only on ranges written once.
 */
import { baseName, ShaleError, TRAILER_SIZE, toBytes } from "@shale/base";
import { tableFileName } from "../core/filenames.js";
import type { FileMetaData } from "../version/version-edit.js";
import { VersionEdit } from "../version/version-edit.js";
import type { OpsHost } from "./host.js";

/** What `deleteFilesInRange` dropped. */
export interface DeletedFiles {
  /** Tables dropped. */
  readonly files: number;
  /** Their bytes. */
  readonly bytes: number;
  /** Their names, with the level each was at. */
  readonly tables: readonly { readonly name: string; readonly level: number }[];
}

const userKey = (ikey: Uint8Array) => ikey.subarray(0, ikey.length - TRAILER_SIZE);

export function deleteFilesInRange(
  host: OpsHost,
  start: Uint8Array | string | undefined,
  end: Uint8Array | string | undefined,
  columnFamily?: unknown,
): DeletedFiles {
  const lo = start === undefined ? undefined : toBytes(start, "start");
  const hi = end === undefined ? undefined : toBytes(end, "end");
  const family = host.family(columnFamily);
  host.checkWritable();
  host.takeFinished();
  const ucmp = family.icmp.user;
  if (lo !== undefined && hi !== undefined && ucmp.compare(lo, hi) > 0)
    throw ShaleError.invalidArgument("deleteFilesInRange: start is after end");
  const busy = family.busyFiles();
  const inside = (f: FileMetaData) =>
    !busy.has(f.number) &&
    (lo === undefined || ucmp.compare(userKey(f.smallest), lo) >= 0) &&
    (hi === undefined || ucmp.compare(userKey(f.largest), hi) <= 0);
  const edit = new VersionEdit();
  const dropped: { name: string; level: number }[] = [];
  let bytes = 0;
  const levels = family.current().levels;
  for (let level = 1; level < levels.length; level++) {
    const files = levels[level]!;
    let i = 0;
    while (i < files.length) {
      if (!inside(files[i]!)) {
        i++;
        continue;
      }
      // A run [first, last] of tables inside the range, then cut back to clean boundaries.
      let first = i;
      let last = i;
      while (last + 1 < files.length && inside(files[last + 1]!)) last++;
      i = last + 1;
      while (
        first <= last &&
        first > 0 &&
        ucmp.compare(userKey(files[first - 1]!.largest), userKey(files[first]!.smallest)) === 0
      )
        first++;
      while (
        last >= first &&
        last + 1 < files.length &&
        ucmp.compare(userKey(files[last]!.largest), userKey(files[last + 1]!.smallest)) === 0
      )
        last--;
      for (let k = first; k <= last; k++) {
        const f = files[k]!;
        edit.deleteFile(level, f.number);
        dropped.push({ name: baseName(tableFileName(host.dir, f.number)), level });
        bytes += f.size;
      }
    }
  }
  if (dropped.length > 0) family.applyEdit(edit);
  return { files: dropped.length, bytes, tables: dropped };
}
