/**
 * The iterators of ShaleLevel: `iterator()`, `keys()` and `values()` over one engine
 * iterator (`DB.iterator`, which reads at the snapshot of its creation: implicit snapshots)
 * or an explicit snapshot's state.
 *
 * Level's range options go to the engine (one per side, range.ts); `limit` is counted by
 * abstract-level. Reading is synchronous underneath: `nextv(n)` and `all()` walk the engine
 * iterator in one go and settle one promise. Keys and values are copied out of the engine's
 * reused buffers into caller-owned memory in the requested format (encodings.ts).
 *
 * Seeking (abstract-level's rule): `seek(target)` moves to the first key >= target (reverse:
 * the last key <= target) within the range; a target before the range's start in the
 * iteration's direction ends the iterator.
 */
import type { ColumnFamilyHandle, DB, DBIterator, IteratorOptions, Snapshot } from "@shale/db";
import {
  AbstractIterator,
  type AbstractIteratorOptions,
  AbstractKeyIterator,
  type AbstractKeyIteratorOptions,
  AbstractValueIterator,
  type AbstractValueIteratorOptions,
} from "abstract-level";
import { fromView } from "./encodings.js";
import { levelError } from "./errors.js";
import { engineRange, keyBytes, type LevelRange, outOfRange } from "./range.js";

/** abstract-level's error for a read at a closed snapshot. */
function snapshotNotOpen(): Error {
  return Object.assign(new Error("Snapshot is not open: cannot use snapshot after close()"), {
    code: "LEVEL_SNAPSHOT_NOT_OPEN",
  });
}

/** What the private API hands `_iterator`, `_keys` and `_values` (formats, encoded range). */
export interface PrivateIteratorOptions extends LevelRange {
  reverse: boolean;
  keys?: boolean;
  values?: boolean;
  limit: number;
  keyEncoding: string;
  valueEncoding?: string;
  snapshot?: { readonly engineSnapshot: Snapshot } | null | undefined;
  fillCache?: unknown;
}

// Cursor states.
const UNPOSITIONED = 0;
/** `seek` put the engine iterator on the next entry to hand out. */
const SOUGHT = 1;
/** The current entry was handed out: move before the next read. */
const CONSUMED = 2;
const ENDED = 3;

/** The engine iterator and the position logic the three iterator kinds share. */
export class ShaleCursor {
  private it: DBIterator | undefined;
  private readonly engine: DB | ColumnFamilyHandle;
  private readonly readOptions: IteratorOptions;
  private readonly reverse: boolean;
  private state: number = UNPOSITIONED;
  readonly keyFormat: string;
  readonly valueFormat: string;

  /**
   * Without an explicit snapshot the engine iterator is made now (it reads at this
   * moment: implicit snapshot); with one, at the first read or seek (the snapshot pins
   * the state, and a snapshot closed meanwhile is reported by that read).
   */
  constructor(engine: DB | ColumnFamilyHandle, options: PrivateIteratorOptions) {
    this.engine = engine;
    this.reverse = options.reverse === true;
    this.keyFormat = options.keyEncoding;
    this.valueFormat = options.valueEncoding ?? "view";
    const ro = engineRange<IteratorOptions>(options, {});
    if (typeof options.fillCache === "boolean") ro.fillCache = options.fillCache;
    this.readOptions = ro;
    if (options.snapshot != null) ro.snapshot = options.snapshot.engineSnapshot;
    else this.open();
  }

  private open(): DBIterator {
    const snapshot = this.readOptions.snapshot;
    if (snapshot?.released) throw snapshotNotOpen();
    try {
      this.it = this.engine.iterator(this.readOptions);
    } catch (e) {
      throw levelError(e);
    }
    return this.it;
  }

  /** Moves to the next entry to hand out; false at the end. */
  step(): boolean {
    const state = this.state;
    if (state === ENDED) return false;
    const it = this.it ?? this.open();
    if (state === UNPOSITIONED) {
      if (this.reverse) it.seekToLast();
      else it.seekToFirst();
    } else if (state === CONSUMED) {
      if (this.reverse) it.prev();
      else it.next();
    }
    if (!it.valid()) {
      this.state = ENDED;
      return false;
    }
    this.state = CONSUMED;
    return true;
  }

  /** The current key, copied. REQUIRES: step() returned true. */
  key(): Uint8Array | string {
    return fromView(this.it!.key(), this.keyFormat);
  }

  /** The current value, copied. REQUIRES: step() returned true. */
  value(): Uint8Array | string {
    return fromView(this.it!.value(), this.valueFormat);
  }

  /** Up to `size` keys, copied; engine errors as Level errors. */
  takeKeys(size: number): (Uint8Array | string)[] {
    const out: (Uint8Array | string)[] = [];
    try {
      while (out.length < size && this.step()) out.push(this.key());
    } catch (e) {
      throw levelError(e);
    }
    return out;
  }

  /** Up to `size` values, copied; engine errors as Level errors. */
  takeValues(size: number): (Uint8Array | string)[] {
    const out: (Uint8Array | string)[] = [];
    try {
      while (out.length < size && this.step()) out.push(this.value());
    } catch (e) {
      throw levelError(e);
    }
    return out;
  }

  /** `seek` with engine errors as Level errors. */
  levelSeek(target: unknown): void {
    try {
      this.seek(target);
    } catch (e) {
      throw levelError(e);
    }
  }

  /** `close` with engine errors as Level errors. */
  levelClose(): void {
    try {
      this.close();
    } catch (e) {
      throw levelError(e);
    }
  }

  seek(target: unknown): void {
    const it = this.it ?? this.open();
    const t = keyBytes(target);
    if (outOfRange(this.readOptions, t, this.reverse)) {
      this.state = ENDED;
      return;
    }
    if (this.reverse) it.seekForPrev(t);
    else it.seek(t);
    this.state = SOUGHT;
  }

  close(): void {
    this.state = ENDED;
    this.it?.close();
  }
}

type Key = Uint8Array | string;
type Db = ConstructorParameters<typeof AbstractIterator>[0];

/** Entries: `[key, value]` (a side is undefined when `keys` / `values` is false). */
export class ShaleIterator extends AbstractIterator<Db, Key, Key> {
  private readonly cursor: ShaleCursor;
  private readonly withKeys: boolean;
  private readonly withValues: boolean;

  constructor(db: Db, engine: DB | ColumnFamilyHandle, options: PrivateIteratorOptions) {
    super(db, options as unknown as AbstractIteratorOptions<Key, Key>);
    this.cursor = new ShaleCursor(engine, options);
    this.withKeys = options.keys !== false;
    this.withValues = options.values !== false;
  }

  private take(size: number): [Key, Key][] {
    const c = this.cursor;
    const out: [Key, Key][] = [];
    try {
      if (this.withKeys && this.withValues) {
        while (out.length < size && c.step()) out.push([c.key(), c.value()]);
      } else {
        while (out.length < size && c.step()) {
          out.push([
            this.withKeys ? c.key() : (undefined as unknown as Key),
            this.withValues ? c.value() : (undefined as unknown as Key),
          ]);
        }
      }
    } catch (e) {
      throw levelError(e);
    }
    return out;
  }

  async _next(): Promise<[Key, Key] | undefined> {
    return this.take(1)[0];
  }

  async _nextv(size: number): Promise<[Key, Key][]> {
    return this.take(size);
  }

  async _all(): Promise<[Key, Key][]> {
    return this.take(this.limit - this.count);
  }

  _seek(target: unknown): void {
    this.cursor.levelSeek(target);
  }

  async _close(): Promise<void> {
    this.cursor.levelClose();
  }
}

/** Keys only. */
export class ShaleKeyIterator extends AbstractKeyIterator<Db, Key> {
  private readonly cursor: ShaleCursor;

  constructor(db: Db, engine: DB | ColumnFamilyHandle, options: PrivateIteratorOptions) {
    super(db, options as unknown as AbstractKeyIteratorOptions<Key>);
    this.cursor = new ShaleCursor(engine, options);
  }

  async _next(): Promise<Key | undefined> {
    return this.cursor.takeKeys(1)[0];
  }

  async _nextv(size: number): Promise<Key[]> {
    return this.cursor.takeKeys(size);
  }

  async _all(): Promise<Key[]> {
    return this.cursor.takeKeys(this.limit - this.count);
  }

  _seek(target: unknown): void {
    this.cursor.levelSeek(target);
  }

  async _close(): Promise<void> {
    this.cursor.levelClose();
  }
}

/** Values only. */
export class ShaleValueIterator extends AbstractValueIterator<Db, Key, Key> {
  private readonly cursor: ShaleCursor;

  constructor(db: Db, engine: DB | ColumnFamilyHandle, options: PrivateIteratorOptions) {
    super(db, options as unknown as AbstractValueIteratorOptions<Key, Key>);
    this.cursor = new ShaleCursor(engine, options);
  }

  async _next(): Promise<Key | undefined> {
    return this.cursor.takeValues(1)[0];
  }

  async _nextv(size: number): Promise<Key[]> {
    return this.cursor.takeValues(size);
  }

  async _all(): Promise<Key[]> {
    return this.cursor.takeValues(this.limit - this.count);
  }

  _seek(target: unknown): void {
    this.cursor.levelSeek(target);
  }

  async _close(): Promise<void> {
    this.cursor.levelClose();
  }
}
