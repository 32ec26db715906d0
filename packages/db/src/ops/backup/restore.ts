/**
 * Restoring one backup into a directory (BackupEngine.restoreBackup; protocol in
 * restore-marker.ts and docs/formats/backup.md):
 *
 * ```
 *   refuse a dir holding anything but an interrupted restore
 *   take dir/LOCK (no DB.open meanwhile); remove an interrupted restore's files
 *   write RESTORE-IN-PROGRESS (synced, directory synced)
 *   copy every file but CURRENT, checking its size and CRC32C against the meta; then CURRENT
 *   sync the directory; remove the marker; sync the directory; release the LOCK
 * ```
 *
 * Any failure leaves the marker: the directory refuses to open (Incomplete) until a restore
 * into it completes.
 */
import { type FileSystem, joinPath, ShaleError, toBytes } from "@shale/base";
import { currentFileName } from "../../core/filenames.js";
import { copyFile } from "../copy.js";
import { META } from "./layout.js";
import type { BackupFile, BackupMeta } from "./meta.js";
import { RESTORE_MARKER, restoreMarkerPath } from "./restore-marker.js";

/** Corruption for a backup file whose size or CRC32C is not what the meta file says. */
export function damagedFile(
  backupDir: string,
  f: BackupFile,
  size: number,
  crc: number,
): ShaleError {
  const what =
    size !== f.size
      ? `is ${size} bytes, the backup meta says ${f.size}`
      : `checksum mismatch: crc32c ${crc >>> 0}, the backup meta says ${f.crc32c}`;
  return ShaleError.corruption(
    `backup file ${what}`,
    joinPath(backupDir, f.path),
    size !== f.size ? Math.min(size, f.size) : undefined,
  );
}

export async function restoreInto(
  fs: FileSystem,
  backupDir: string,
  meta: BackupMeta,
  dir: string,
): Promise<void> {
  if (fs.exists(dir)) {
    const names = fs.list(dir);
    if (names.length > 0 && !names.includes(RESTORE_MARKER))
      throw ShaleError.invalidArgument(`restore dir ${dir} is not empty`);
  }
  fs.mkdir(dir);
  const lock = fs.lock(joinPath(dir, "LOCK"));
  try {
    // An interrupted restore's files go (the marker stays, so the directory never opens).
    for (const name of fs.list(dir))
      if (name !== RESTORE_MARKER && name !== "LOCK") fs.remove(joinPath(dir, name));
    const note = toBytes(`restoring backup ${meta.id} from ${backupDir}\n`);
    fs.writeFile(restoreMarkerPath(dir), note, { sync: true });
    fs.syncDir(dir);
    const current = meta.files.filter((f) => f.dbName === "CURRENT");
    const rest = meta.files.filter((f) => f.dbName !== "CURRENT");
    for (const f of [...rest, ...current]) {
      const r = await copyFile(fs, joinPath(backupDir, f.path), fs, joinPath(dir, f.dbName));
      if (r.size !== f.size || r.crc32c !== f.crc32c)
        throw damagedFile(backupDir, f, r.size, r.crc32c);
    }
    if (!fs.exists(currentFileName(dir)))
      throw ShaleError.corruption(
        "backup has no CURRENT",
        joinPath(backupDir, META, String(meta.id)),
      );
    fs.syncDir(dir);
    fs.remove(restoreMarkerPath(dir));
    fs.syncDir(dir);
  } finally {
    lock.release();
  }
}
