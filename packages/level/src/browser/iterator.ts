/**
 * The iterator of the browser ShaleLevel: abstract-level's iterator over `openInWorker`'s
 * (`WorkerIterator`), which the worker created when `db.iterator()` was called (implicit
 * snapshot) and which hands entries over in batches; `keys()` and `values()` are
 * abstract-level's defaults over it.
 *
 * Seeking (abstract-level's rule): `seek(target)` moves to the first key >= target
 * (reverse: the last key <= target) within the range; a target before the range's start in
 * the iteration's direction ends the iterator (decided here, without asking the worker).
 */
import { AbstractIterator } from "abstract-level";
import type { WorkerDatabase, WorkerIterator, WorkerIteratorOptions } from "shale/opfs";
import { decodeUtf8 } from "../encodings.js";
import { levelError } from "../errors.js";
import { type EngineRange, engineRange, keyBytes, type LevelRange, outOfRange } from "../range.js";

type Key = Uint8Array | string;
type Entry = [Uint8Array, Uint8Array];

/** What the private API hands `_iterator` (formats, encoded range). */
export interface PrivateIteratorOptions extends LevelRange {
  reverse: boolean;
  limit: number;
  keyEncoding: string;
  valueEncoding?: string;
}

/** Entries fetched per round trip to the worker. */
const BATCH = 100;

// biome-ignore lint/suspicious/noExplicitAny: abstract-level's iterator of any database
type Db = any;

export class WorkerLevelIterator extends AbstractIterator<Db, Key, Key> {
  private readonly it: WorkerIterator;
  private readonly range: EngineRange;
  private readonly reverse: boolean;
  private readonly keyUtf8: boolean;
  private readonly valueUtf8: boolean;
  private buffered: Entry[] = [];
  private at = 0;
  private ended = false;

  constructor(db: Db, engine: WorkerDatabase, options: PrivateIteratorOptions) {
    super(db, options as never);
    this.range = engineRange<EngineRange>(options, {});
    this.reverse = options.reverse === true;
    this.keyUtf8 = options.keyEncoding === "utf8";
    this.valueUtf8 = options.valueEncoding === "utf8";
    const o: WorkerIteratorOptions = { ...this.range, reverse: this.reverse, batchSize: BATCH };
    // abstract-level counts `limit` (entries handed out); the worker's iterator is not given
    // it, since it would also count entries fetched and then dropped by a seek. A small limit
    // only makes the batches smaller.
    if (options.limit >= 0) o.batchSize = Math.max(1, Math.min(BATCH, options.limit));
    this.it = engine.iterator(o);
  }

  private entry(e: Entry): [Key, Key] {
    return [this.keyUtf8 ? decodeUtf8(e[0]) : e[0], this.valueUtf8 ? decodeUtf8(e[1]) : e[1]];
  }

  /** True when an entry is buffered (fetching a batch if needed); false at the end. */
  private async fill(): Promise<boolean> {
    if (this.at < this.buffered.length) return true;
    if (this.ended) return false;
    try {
      this.buffered = await this.it.nextBatch();
    } catch (e) {
      throw levelError(e);
    }
    this.at = 0;
    if (this.buffered.length === 0) this.ended = true;
    return this.buffered.length > 0;
  }

  async _next(): Promise<[Key, Key] | undefined> {
    if (!(await this.fill())) return undefined;
    return this.entry(this.buffered[this.at++]!);
  }

  /** Up to `size` entries, fetching batches as needed. */
  private async take(size: number): Promise<[Key, Key][]> {
    const out: [Key, Key][] = [];
    while (out.length < size && (await this.fill())) {
      const end = Math.min(this.buffered.length, this.at + size - out.length);
      for (let i = this.at; i < end; i++) out.push(this.entry(this.buffered[i]!));
      this.at = end;
    }
    return out;
  }

  async _nextv(size: number): Promise<[Key, Key][]> {
    return this.take(size);
  }

  /** The rest, up to the limit (abstract-level counts the limit for `next` and `nextv` only). */
  async _all(): Promise<[Key, Key][]> {
    return this.take(this.limit - this.count);
  }

  _seek(target: unknown): void {
    const t = keyBytes(target);
    this.buffered = [];
    this.at = 0;
    if (outOfRange(this.range, t, this.reverse)) {
      this.ended = true;
      return;
    }
    this.ended = false;
    this.it.seek(t);
  }

  async _close(): Promise<void> {
    try {
      await this.it.close();
    } catch (e) {
      throw levelError(e);
    }
  }
}
