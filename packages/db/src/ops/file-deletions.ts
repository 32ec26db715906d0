/**
 * Holding file deletions (RocksDB's DisableFileDeletions / EnableFileDeletions): while any
 * hold is taken, obsolete tables and WALs the database would delete are kept, and deleted
 * when the last hold is released. A checkpoint or a backup takes one while it copies, so the
 * WALs it captured stay on disk even if a flush retires them meanwhile (the tables it copies
 * are also kept by the version it pins).
 */
export class FileDeletionHold {
  private holds = 0;
  private deferred: string[] = [];
  private readonly removeNow: (paths: string[]) => void;

  /** `removeNow` deletes files (called with what was deferred, at the last release). */
  constructor(removeNow: (paths: string[]) => void) {
    this.removeNow = removeNow;
  }

  /** Number of holds taken and not released. */
  get count(): number {
    return this.holds;
  }

  /** True if `paths` were kept for later (a hold is taken); false: delete them now. */
  defer(paths: readonly string[]): boolean {
    if (this.holds === 0) return false;
    for (const p of paths) this.deferred.push(p);
    return true;
  }

  /** Takes a hold; the function returned releases it (once; later calls do nothing). */
  hold(): () => void {
    this.holds++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      if (--this.holds > 0) return;
      const paths = this.deferred;
      this.deferred = [];
      if (paths.length > 0) this.removeNow(paths);
    };
  }
}
