/**
 * The iterable protocol of a DBIterator: `for (const [key, value] of db.iterator())`.
 *
 * The first `next()` positions the DB iterator (seekToFirst, or seekToLast when reversed),
 * later ones step it. Each pair holds fresh copies (the DB iterator's views change on every
 * move, and `Array.from(db.iterator())` must not return one key a million times). When the
 * walk ends — exhausted, `break` (the loop calls `return()`), or an error — the DB iterator
 * is closed, so a for-of over a temporary iterator never leaks what it pins.
 */
import { ownedPair } from "../core/owned-bytes.js";

/**
 * The moves the protocol makes (db-iterator.ts's DBIterator has them): an interface, so this
 * file does not import db-iterator.ts (which imports this one).
 */
export interface EntrySource {
  seekToFirst(): void;
  seekToLast(): void;
  next(): void;
  prev(): void;
  valid(): boolean;
  key(): Uint8Array;
  value(): Uint8Array;
  close(): void;
}

export class EntryIterator implements IterableIterator<[Uint8Array, Uint8Array]> {
  private readonly it: EntrySource;
  private readonly reverse: boolean;
  private started = false;
  private done = false;

  constructor(it: EntrySource, reverse: boolean) {
    this.it = it;
    this.reverse = reverse;
  }

  next(): IteratorResult<[Uint8Array, Uint8Array], undefined> {
    if (this.done) return { done: true, value: undefined };
    const it = this.it;
    try {
      if (!this.started) {
        this.started = true;
        if (this.reverse) it.seekToLast();
        else it.seekToFirst();
      } else if (this.reverse) {
        it.prev();
      } else {
        it.next();
      }
      if (!it.valid()) {
        this.finish();
        return { done: true, value: undefined };
      }
      return { done: false, value: ownedPair(it.key(), it.value()) };
    } catch (e) {
      this.done = true;
      try {
        it.close();
      } catch {
        // the first error is the one to report
      }
      throw e;
    }
  }

  /** Called by for-of on `break` / `return` / a throw in the loop body. */
  return(): IteratorResult<[Uint8Array, Uint8Array], undefined> {
    this.finish();
    return { done: true, value: undefined };
  }

  [Symbol.iterator](): IterableIterator<[Uint8Array, Uint8Array]> {
    return this;
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.it.close();
  }
}
