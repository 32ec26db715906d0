/**
 * The restore-in-progress marker: `RESTORE-IN-PROGRESS` in a database directory says a
 * `BackupEngine.restoreBackup` into it started and has not finished. The restore writes it
 * (synced, directory synced) before any other file and removes it after the last one
 * (CURRENT) is synced, so a directory holding it may hold any subset of the backup's files:
 * `DB.open` refuses it with `Incomplete`, naming the marker and the way out (restore again,
 * or remove the directory). Its contents: one line, `restoring backup <id> from <dir>`.
 */
import { type FileSystem, joinPath, ShaleError } from "@shale/base";

export const RESTORE_MARKER = "RESTORE-IN-PROGRESS";

export function restoreMarkerPath(dir: string): string {
  return joinPath(dir, RESTORE_MARKER);
}

/** Throws Incomplete if `dir` holds the marker of an interrupted restore. */
export function refuseInterruptedRestore(fs: FileSystem, dir: string): void {
  const marker = restoreMarkerPath(dir);
  if (!fs.exists(marker)) return;
  let what = "";
  try {
    what = new TextDecoder().decode(fs.readFile(marker)).trim();
  } catch {
    // the marker's presence is what matters
  }
  throw ShaleError.incomplete(
    `${dir} holds an interrupted restore (${RESTORE_MARKER}${what !== "" ? `: ${what}` : ""}); ` +
      "run restoreBackup into it again, or remove the directory",
  );
}
