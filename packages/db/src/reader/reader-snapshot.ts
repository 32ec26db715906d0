/**
 * A worker reader's snapshot (`reader.snapshot()`): the reader's sources at one sequence —
 * its memtables (rebuilt from the writer's WALs) and its current version, pinned — held
 * until `release()`. Reads with it see exactly that state, whatever the reader installs
 * later: the writer does not know a worker's snapshots, so its compactions may drop
 * versions such a snapshot needs from the files they write; the snapshot never reads those
 * files, only the ones it pinned, which the writer keeps while the reader registers them
 * (secondary/registration.ts).
 *
 * A get with a snapshot seeks one iterator over the pinned sources (kept open with the
 * snapshot and reused by every get), so it costs a seek, not a point lookup.
 *
 * Threading: the reader's thread.
 */
import { type Comparator, ShaleError } from "@shale/base";
import type { CapturedReadState } from "../column-family/family-methods.js";
import type { IteratorOptions } from "../core/call-options.js";
import { ownedCopy } from "../core/owned-bytes.js";
import type { DB } from "../db.js";
import type { DBIterator } from "../iterator/index.js";

export class ReaderSnapshot {
  /** The sequence number this snapshot reads at. */
  readonly seq: number;
  private state: CapturedReadState | undefined;
  private readonly db: DB;
  private readonly comparator: Comparator;
  /** Reused by `get`; opened by the first. */
  private cursor: DBIterator | undefined;

  /** @internal made by `reader.snapshot()`. */
  constructor(db: DB, comparator: Comparator) {
    this.db = db;
    this.comparator = comparator;
    this.state = db.captureReadState();
    this.seq = this.state.seq;
  }

  /** True once released. */
  get released(): boolean {
    return this.state === undefined;
  }

  /** Drops the pinned sources. Idempotent. */
  release(): void {
    this.cursor?.close();
    this.cursor = undefined;
    this.state?.pin.release();
    this.state = undefined;
  }

  /** @internal The value of `key` at this snapshot, a copy; undefined if none. */
  get(key: Uint8Array): Uint8Array | undefined {
    const state = this.live();
    this.cursor ??= this.db.iteratorOver(state);
    const it = this.cursor;
    it.seek(key);
    if (!it.valid() || this.comparator.compare(it.key(), key) !== 0) return undefined;
    return ownedCopy(it.value());
  }

  /** @internal An iterator over this snapshot's sources. */
  iterator(options: IteratorOptions): DBIterator {
    return this.db.iteratorOver(this.live(), options);
  }

  private live(): CapturedReadState {
    if (this.state === undefined)
      throw ShaleError.invalidArgument("the reader snapshot was released");
    return this.state;
  }
}
