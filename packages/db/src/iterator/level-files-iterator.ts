/**
 * LevelFilesIterator: the entries of a run of tables whose key ranges do not overlap, sorted
 * by smallest key (one level of L1+, or a single L0 table), as one sorted iterator. Tables
 * are opened one at a time, when the iteration reaches them, and closed when it leaves them:
 * a compaction over hundreds of files keeps one open per level.
 *
 * ```
 *   files:  [a .. f]  [g .. m]  [p .. z]       seek("h"): open file 1, seek there;
 *             ^ open only while positioned      next() past "m": close 1, open 2 at its first
 * ```
 *
 * Views: the iterator of the file the run left stays open until the run leaves the next one
 * (or the run is closed), so a key or value view of the run stays valid while the run moves
 * on into the next file — what a merge needs: a consumer holds views of one user key, whose
 * versions never span two files of a run (clean cuts), until it moves past that key, which
 * moves the run at most into the following file. (In invariants mode a closed table
 * iterator overwrites its blocks, so relying on more shows.) With `pins` (a DB iterator's
 * PinnedIterators), the files it leaves while `pins.active` stay open until `pins.release()`,
 * and `isValuePinned` holds only then: the DB iterator resolving a key backwards may move
 * the run through several files (a step back, then a range-deletion skip or a seek).
 */
import type { CompareFn, InternalIterator } from "@shale/base";
import type { PinnedIterators } from "./pinned-iterators.js";
import { leftTargetPrefix, type PrefixSeek } from "./prefix-seek.js";

/** A table of the run: its internal-key bounds and how to iterate it. */
export interface RunFile {
  readonly smallest: Uint8Array;
  readonly largest: Uint8Array;
}

export class LevelFilesIterator<F extends RunFile> implements InternalIterator {
  private readonly files: readonly F[];
  private readonly open: (file: F) => InternalIterator;
  private readonly compare: CompareFn;
  private index = -1;
  private it: InternalIterator | undefined;
  /** The iterator of the file the run left last, closed when it leaves the next one. */
  private left: InternalIterator | undefined;
  private readonly pins: PinnedIterators | undefined;
  private readonly prefixSeek: PrefixSeek | undefined;

  /**
   * @param files sorted by `compare` on their bounds, not overlapping.
   * @param open makes an iterator over one file; it is closed when the run leaves the file.
   * @param pins holds the iterators of files left while it is active (see the file comment).
   * @param prefixSeek a plain prefix seek's (prefix-seek.ts): a seek that moves on to a later
   *   file and lands on another prefix than the target's leaves the run invalid.
   */
  constructor(
    files: readonly F[],
    open: (file: F) => InternalIterator,
    compare: CompareFn,
    pins?: PinnedIterators,
    prefixSeek?: PrefixSeek,
  ) {
    this.files = files;
    this.open = open;
    this.compare = compare;
    this.pins = pins;
    this.prefixSeek = prefixSeek;
  }

  valid(): boolean {
    return this.it?.valid() === true;
  }

  seekToFirst(): void {
    if (!this.openAt(0)) return;
    this.it!.seekToFirst();
    this.skipForward();
  }

  seekToLast(): void {
    if (!this.openAt(this.files.length - 1)) return;
    this.it!.seekToLast();
    this.skipBackward();
  }

  seek(target: Uint8Array): void {
    // The first file whose largest key >= target.
    let lo = 0;
    let hi = this.files.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(this.files[mid]!.largest, target) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (!this.openAt(lo)) return;
    this.it!.seek(target);
    this.skipForward();
    const p = this.prefixSeek;
    if (
      p !== undefined &&
      this.index !== lo &&
      this.valid() &&
      leftTargetPrefix(p, target, this.key())
    )
      this.leave();
  }

  seekForPrev(target: Uint8Array): void {
    // The last file whose smallest key <= target.
    let lo = 0;
    let hi = this.files.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(this.files[mid]!.smallest, target) <= 0) lo = mid + 1;
      else hi = mid;
    }
    if (!this.openAt(lo - 1)) return;
    this.it!.seekForPrev(target);
    this.skipBackward();
  }

  next(): void {
    this.it!.next();
    this.skipForward();
  }

  prev(): void {
    this.it!.prev();
    this.skipBackward();
  }

  key(): Uint8Array {
    return this.it!.key();
  }

  value(): Uint8Array {
    return this.it!.value();
  }

  /**
   * The current file's step hint (InternalIterator): a step onto the next file is a
   * `seekToFirst` of it, so the hint is -1 there.
   */
  userKeyDiffersAt(): number {
    const it = this.it;
    return it !== undefined && it.userKeyDiffersAt !== undefined ? it.userKeyDiffersAt() : -1;
  }

  isValuePinned(): boolean {
    const pins = this.pins;
    return (pins === undefined || pins.active) && this.it!.isValuePinned?.() === true;
  }

  close(): void {
    this.pins?.release();
    this.leave();
    this.left?.close();
    this.left = undefined;
  }

  /** Leaves the current file: its iterator becomes `left` (the one before is closed). */
  private leave(): void {
    if (this.it !== undefined) {
      const left = this.left;
      if (left !== undefined) {
        if (this.pins?.active === true) this.pins.hold(left);
        else left.close();
      }
      this.left = this.it;
    }
    this.it = undefined;
    this.index = -1;
  }

  /** Positions on file `i` (opening it); false (and invalid) if there is none. */
  private openAt(i: number): boolean {
    if (i < 0 || i >= this.files.length) {
      this.leave();
      return false;
    }
    if (i !== this.index || this.it === undefined) {
      this.leave();
      this.it = this.open(this.files[i]!);
      this.index = i;
    }
    return true;
  }

  private skipForward(): void {
    while (this.it !== undefined && !this.it.valid()) {
      if (!this.openAt(this.index + 1)) return;
      this.it!.seekToFirst();
    }
  }

  private skipBackward(): void {
    while (this.it !== undefined && !this.it.valid()) {
      if (!this.openAt(this.index - 1)) return;
      this.it!.seekToLast();
    }
  }
}
