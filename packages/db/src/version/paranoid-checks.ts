/**
 * `paranoidChecks` (Default: true), after RocksDB's `paranoid_checks`: check more eagerly
 * and stop at anything suspicious rather than serve from it.
 *
 * What it does in shale, at open:
 * - every table of the recovered version must have the size its MANIFEST entry records
 *   (RocksDB's `DBImpl::CheckConsistency`): another size is Corruption naming the file —
 *   before anything is replayed, written or deleted (a missing table is Corruption whatever
 *   this option says: manifest-recovery.ts);
 * - damage in a WAL is handled as `walRecoveryMode` says, strictly (recovery.ts). With
 *   paranoidChecks false, as in RocksDB (whose WAL reporter then records no error), WAL
 *   damage is skipped and replay goes on at the next valid record, whatever the mode.
 *
 * And always, whatever its value (RocksDB relaxes some of these without paranoid checks;
 * shale does not): after a failed WAL write or a failed background job the database
 * refuses writes until reopened; table blocks are read with their checksums verified
 * unless `readOptions.verifyChecksums` is false.
 */
import { type FileSystem, ShaleError } from "@shale/base";
import { tableFileName } from "../core/filenames.js";
import type { Version } from "./version-set.js";

/**
 * Throws Corruption (file = the table's path) unless every table of `version` in `dir` has
 * the size the MANIFEST recorded. REQUIRES: every table exists (recovery checked it).
 */
export function checkLiveTables(fs: FileSystem, dir: string, version: Version): void {
  for (let level = 0; level < version.levels.length; level++) {
    for (const file of version.levels[level]!) {
      // A missing table is already Corruption (manifest-recovery.ts, whatever this option).
      const path = tableFileName(dir, file.number);
      const size = fs.fileSize(path);
      if (size !== file.size) {
        throw ShaleError.corruption(
          `table size mismatch: the MANIFEST records ${file.size} bytes, the file has ${size} (paranoidChecks)`,
          path,
        );
      }
    }
  }
}
