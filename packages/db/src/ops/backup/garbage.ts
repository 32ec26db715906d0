/**
 * Garbage collection of a backup directory, after a purge or a delete: removes what no
 * backup names —
 * - `meta/<id>.tmp`: meta files of interrupted backups;
 * - `private/<id>/` without `meta/<id>`: the private files of interrupted or deleted backups;
 * - `shared_checksum/` files (tables and `.tmp` copies) no readable meta references — none at
 *   all while some meta file is unreadable: it may reference any of them.
 */
import { type FileSystem, joinPath, type ShaleError } from "@shale/base";
import { removeTree } from "../copy.js";
import { META, PRIVATE, SHARED } from "./layout.js";
import type { BackupMeta } from "./meta.js";

/** Every meta file of the directory: read, or the error reading it. */
export type MetaRead = { id: number; meta: BackupMeta } | { id: number; error: ShaleError };

/** Returns how many files and directories it removed. */
export function collectGarbage(fs: FileSystem, dir: string, all: readonly MetaRead[]): number {
  let removed = 0;
  const ids = new Set(all.map((r) => r.id));
  for (const n of fs.list(joinPath(dir, META))) {
    if (/^\d+\.tmp$/.test(n)) {
      fs.remove(joinPath(dir, META, n));
      removed++;
    }
  }
  for (const n of fs.list(joinPath(dir, PRIVATE))) {
    if (!/^\d+$/.test(n) || !ids.has(Number(n))) {
      removeTree(fs, joinPath(dir, PRIVATE, n));
      removed++;
    }
  }
  if (all.some((r) => "error" in r)) return removed;
  const referenced = new Set<string>();
  for (const r of all) if ("meta" in r) for (const f of r.meta.files) referenced.add(f.path);
  for (const n of fs.list(joinPath(dir, SHARED))) {
    if (!referenced.has(joinPath(SHARED, n))) {
      fs.remove(joinPath(dir, SHARED, n));
      removed++;
    }
  }
  fs.syncDir(joinPath(dir, SHARED));
  return removed;
}
