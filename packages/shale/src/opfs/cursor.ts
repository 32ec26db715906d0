/**
 * The database worker's iterators (`opfs-db-worker.ts`): one engine `DBIterator` walked in
 * batches for the page, with Level's positioning rules.
 *
 * ```
 *   page: iterator(range)        worker: db.iterator(range)   (reads at this moment)
 *   page: next(count)  -------->  step() up to count times  -> [key, value][] (copies)
 *   page: seek(target) -------->  seek / seekForPrev          -> the next step() hands out
 *                                                               the entry sought
 * ```
 *
 * The range's `limit` is counted by the engine iterator over all its seeks and moves;
 * `reverse` walks from the last key backwards (a seek is then `seekForPrev`). Keys and
 * values handed out are copies (the engine's are views of its reused buffers).
 */
import type { DB } from "../index.js";
import type { WireRange } from "./db-protocol.js";

type EngineIterator = ReturnType<DB["iterator"]>;

// Cursor states.
const UNPOSITIONED = 0;
/** `seek` put the engine iterator on the next entry to hand out. */
const SOUGHT = 1;
/** The current entry was handed out: move before the next read. */
const CONSUMED = 2;
const ENDED = 3;

export class WorkerCursor {
  private readonly it: EngineIterator;
  private readonly reverse: boolean;
  private state = UNPOSITIONED;

  constructor(db: DB, range: WireRange) {
    this.reverse = range.reverse === true;
    const { reverse: _reverse, ...engineRange } = range;
    this.it = db.iterator(engineRange);
  }

  /** Up to `count` entries from the current position on, copied. */
  next(count: number): [Uint8Array, Uint8Array][] {
    const out: [Uint8Array, Uint8Array][] = [];
    const it = this.it;
    while (out.length < count && this.state !== ENDED) {
      if (this.state === UNPOSITIONED) {
        if (this.reverse) it.seekToLast();
        else it.seekToFirst();
      } else if (this.state === CONSUMED) {
        if (this.reverse) it.prev();
        else it.next();
      }
      if (!it.valid()) {
        this.state = ENDED;
        break;
      }
      this.state = CONSUMED;
      out.push([it.key().slice(), it.value().slice()]);
    }
    return out;
  }

  /** Moves to the first key >= target (reverse: the last key <= target). */
  seek(target: Uint8Array): void {
    if (this.reverse) this.it.seekForPrev(target);
    else this.it.seek(target);
    this.state = SOUGHT;
  }

  close(): void {
    this.it.close();
  }
}
