/**
 * PinnedIterators (RocksDB's PinnedIteratorsManager, temporary pinning): while the DB iterator
 * resolves one user key backwards it keeps views of child values across moves (the saved
 * value when the child says `isValuePinned`). A level's iterator closes the table iterator
 * of a file it leaves — and a backward step over a key can leave several files (a step into
 * the previous file, then a range-deletion skip or a seek beyond it), which released the
 * blocks under a kept view. Between `start()` and `release()` a LevelFilesIterator hands
 * the table iterators it would close to this object instead; the DB iterator calls
 * `release()` when its next move begins (the views it handed out end there) and `start()`
 * when it begins resolving a key backwards.
 */
import type { InternalIterator } from "@shale/base";

export class PinnedIterators {
  /** Between start() and release(): iterators that would be closed are held instead. */
  active = false;
  private readonly held: InternalIterator[] = [];

  /** Releases what is held, then holds what is left from now on. */
  start(): void {
    this.release();
    this.active = true;
  }

  /** Keeps `it` open until `release()`. */
  hold(it: InternalIterator): void {
    this.held.push(it);
  }

  /** Stops holding and closes what was held (every close is tried; the first error is rethrown). */
  release(): void {
    this.active = false;
    const held = this.held;
    if (held.length === 0) return;
    let error: unknown;
    for (let i = 0; i < held.length; i++) {
      try {
        held[i]!.close();
      } catch (e) {
        error ??= e;
      }
    }
    held.length = 0;
    if (error !== undefined) throw error;
  }
}
