/**
 * Deletes obsolete files through the background executor (off the main thread with worker
 * threads) and tells when every deletion asked for so far is done.
 */
import type { BackgroundExecutor } from "./executor.js";

export class FileRemover {
  private readonly executor: BackgroundExecutor;
  /** Batches handed to the executor and not done yet. */
  private pending = 0;
  private waiters: (() => void)[] = [];

  /** `removed`: told the paths of each batch once it is deleted (event listeners). */
  private readonly removed: ((paths: string[]) => void) | undefined;

  constructor(executor: BackgroundExecutor, removed?: (paths: string[]) => void) {
    this.executor = executor;
    this.removed = removed;
  }

  /** Deletes `paths` (nothing to do for none). */
  remove(paths: string[]): void {
    if (paths.length === 0) return;
    this.pending++;
    this.executor.removeFiles(paths, () => {
      this.removed?.(paths);
      if (--this.pending === 0) for (const w of this.waiters.splice(0)) w();
    });
  }

  /** Resolves once no deletion is pending (including ones asked for while waiting). */
  async whenIdle(): Promise<void> {
    while (this.pending > 0) await new Promise<void>((r) => this.waiters.push(r));
  }
}
