/**
 * The column families a database directory has, without opening it (RocksDB's
 * DB::ListColumnFamilies): CURRENT names the MANIFEST, whose ColumnFamilyAdd and
 * ColumnFamilyDrop records give the live families. Names in id order, `default` first.
 * Reads strictly: a damaged MANIFEST is Corruption naming the file and offset.
 */
import { baseName, type FileSystem, ShaleError } from "@shale/base";
import { LogReader, WalRecoveryMode } from "@shale/wal";
import { currentFileName, manifestFileName } from "../core/filenames.js";
import { readCurrent } from "./current-file.js";
import { VersionEdit } from "./version-edit.js";

export function listColumnFamilies(fs: FileSystem, dir: string): string[] {
  const current = currentFileName(dir);
  if (!fs.exists(current))
    throw ShaleError.invalidArgument(`no database in ${dir} (no CURRENT file)`);
  const path = manifestFileName(dir, readCurrent(fs, dir));
  const families = new Map<number, string>([[0, "default"]]);
  const file = fs.openSequential(path);
  try {
    const reader = new LogReader(file, {
      mode: WalRecoveryMode.AbsoluteConsistency,
      fileName: baseName(path),
    });
    for (let rec = reader.readRecord(); rec !== undefined; rec = reader.readRecord()) {
      const edit = VersionEdit.decode(rec, baseName(path), reader.lastRecordOffset);
      if (edit.columnFamilyAdd !== undefined) families.set(edit.columnFamily, edit.columnFamilyAdd);
      else if (edit.columnFamilyDrop) families.delete(edit.columnFamily);
    }
  } finally {
    file.close();
  }
  return [...families].sort((a, b) => a[0] - b[0]).map(([, n]) => n);
}
