/**
 * ObsoleteFiles: what happens to a table, blob file or WAL once nothing needs it — the one
 * place that decides whether it is deleted now, later, or not at all:
 * - a read-only or secondary instance deletes nothing (it tells its follower instead);
 * - after a failed write or sync nothing is deleted until the next open decides from what is
 *   on disk (the outcome of a failed MANIFEST write is unknown);
 * - while a checkpoint or backup holds deletions (file-deletions.ts) they wait;
 * - files a registered secondary reads wait for it (secondary/primary-pins.ts);
 * - WALs are moved into `archive/` instead when `walTtlSeconds` or `walSizeLimitMb` ask
 *   for it (write/wal-archive.ts, which also prunes the archive);
 * - the rest are unlinked through the background executor (background/file-remover.ts).
 *
 * Threading: the database's thread; the unlinking runs off it with worker threads.
 */
import type { FileSystem } from "@shale/base";
import type { TableCache } from "@shale/sstable";
import type { BackgroundExecutor } from "../background/executor.js";
import { FileRemover } from "../background/file-remover.js";
import type { BlobFileCache } from "../blob/blob-source.js";
import { blobFileName, tableFileName } from "../core/filenames.js";
import type { Follower } from "../secondary/follower.js";
import { SecondaryPins } from "../secondary/primary-pins.js";
import type { WalArchive } from "../write/wal-archive.js";
import type { ActiveWal } from "../write/write-path.js";
import { FileDeletionHold } from "./file-deletions.js";

export interface ObsoleteFilesParts {
  readonly dir: string;
  readonly fs: FileSystem;
  readonly executor: BackgroundExecutor;
  /** The database's status (column-family/db-status.ts). */
  readonly status: { readonly closed: boolean; readonly backgroundError: Error | undefined };
  readonly wal: ActiveWal;
  readonly follower: Follower | undefined;
  /** Where obsolete WALs go when the options keep them (write/wal-archive.ts). */
  readonly archive: WalArchive;
  /** Told the paths of each batch of files once deleted (event listeners). Default: none. */
  readonly removed?: ((paths: string[]) => void) | undefined;
}

export class ObsoleteFiles {
  private readonly remover: FileRemover;
  /** Deletions held by checkpoints and backups (RocksDB's DisableFileDeletions). */
  readonly hold: FileDeletionHold;
  /** Obsolete files kept while a secondary reads them. */
  private readonly pins: SecondaryPins;

  constructor(private readonly parts: ObsoleteFilesParts) {
    this.remover = new FileRemover(parts.executor, parts.removed);
    // After close the next open removes what is obsolete.
    this.hold = new FileDeletionHold((paths) => {
      if (!parts.status.closed) this.remove(paths);
    });
    this.pins = new SecondaryPins(parts.fs, parts.dir, (paths) => this.remove(paths));
  }

  /** Deletes tables no version refers to, forgetting them in `caches` first. */
  removeTables(numbers: readonly number[], caches: Iterable<TableCache>): void {
    for (const cache of caches) for (const n of numbers) cache.evict(n);
    this.remove(numbers.map((n) => tableFileName(this.parts.dir, n)));
  }

  /** Deletes blob files no version refers to, forgetting them in `blobs` first. */
  removeBlobFiles(numbers: readonly number[], blobs: BlobFileCache): void {
    if (numbers.length === 0) return;
    for (const n of numbers) blobs.evict(n);
    this.remove(numbers.map((n) => blobFileName(this.parts.dir, n)));
  }

  /** Deletes `paths` — now, later or never, as the header says. */
  remove(paths: string[]): void {
    const { follower, status, wal } = this.parts;
    if (follower !== undefined) {
      follower.versionsReleased(); // a follower deletes nothing
      return;
    }
    if (status.backgroundError !== undefined || wal.error !== undefined) return;
    if (this.hold.defer(paths)) return;
    this.remover.remove(this.parts.archive.take(this.pins.keep(paths)));
  }

  /** Resolves once no deletion asked for is still running. */
  whenIdle(): Promise<void> {
    return this.remover.whenIdle();
  }

  /** Stops renewing the secondaries' pins (at close). */
  close(): void {
    this.pins.close();
  }
}
