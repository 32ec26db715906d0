/**
 * Point-lookup state carried through the layers of a `get` (RocksDB's GetContext):
 * mutable memtable -> immutable memtables -> tables, newest to oldest.
 *
 * A layer looks at the newest entries of the user key visible at `snapshotSeq`:
 * - a Value ends the lookup: `state = Found`, `value` set (a view; see below). If merge
 *   operands were collected by newer layers, the caller merges them onto this base.
 * - a BlobIndex ends it the same way with `blobIndex = true`: `value` is then the blob
 *   index (a reference into a `.blob` file), which the caller resolves to the user's value
 *   (merging onto it like onto a Value).
 * - a Deletion / SingleDeletion ends it: `state = Deleted` (operands, if any, merge onto
 *   no base).
 * - a Merge operand is appended to `operands` (newest first) and the lookup goes on:
 *   `state = Merging`.
 * - an entry whose seq is below `maxCoveringSeq` (the newest range tombstone covering the
 *   key, at or below the snapshot, seen so far) counts as deleted.
 * - nothing found leaves `state` as it was (NotFound or Merging).
 *
 * Layers update `maxCoveringSeq` with their own range tombstones before looking at their
 * points. Once it is non-zero, older layers cannot hold a visible entry newer than it, so
 * the caller can stop descending when `state !== NotFound && state !== Merging`, or when
 * every remaining layer is older than `maxCoveringSeq`.
 *
 * One lookup, not a stale one: every layer's `get` first calls `enter(layer, userKey,
 * snapshotSeq)`, which continues the lookup the result holds only when it is for the same
 * key array, the same snapshot and a layer that has not folded into it yet — the way a
 * caller descending through layers passes it. Anything else (the next key, another
 * snapshot, the same memtable or table asked again) resets the result first, so a result
 * reused without `reset()` cannot report the previous key's answer.
 *
 * The value without a view: a layer may set it as a range of a larger array
 * (`setValueRange(bytes, offset, length)`: a cached block's bytes), read back as
 * `valueBytes[valueOffset, valueOffset + valueLength)` — no object made per lookup; `value`
 * makes the view only when asked (once per value). A layer that has a view sets `value`.
 *
 * Ownership: `value` and `operands` are views into memtable arenas or cached blocks, valid
 * while the owning memtable / cache handle is alive. Layers that pin a cache handle for the
 * value register it with `pin` so the caller releases it with `releasePins()` when done.
 * Reuse one LookupResult per call site: `reset()` clears it without allocating (and drops
 * its references to the layers it went through).
 */

export const LookupState = Object.freeze({
  NotFound: 0,
  Found: 1,
  Deleted: 2,
  Merging: 3,
} as const);
export type LookupState = (typeof LookupState)[keyof typeof LookupState];

/** Something that must be released when the looked-up bytes are no longer needed. */
export interface Releasable {
  release(): void;
}

export class LookupResult {
  state: LookupState = LookupState.NotFound;
  /**
   * The base value when `state === Found`: `valueBytes[valueOffset, valueOffset +
   * valueLength)` (see the file comment); undefined otherwise.
   */
  valueBytes: Uint8Array | undefined = undefined;
  valueOffset = 0;
  valueLength = 0;
  /** The view `value` made of the range, until the range changes. */
  private valueView: Uint8Array | undefined = undefined;
  /** Seq of the entry that ended the lookup (Found / Deleted), else 0. */
  seq = 0;
  /** With `state === Found`: `value` is a blob index (kind BlobIndex), not the value itself. */
  blobIndex = false;
  /** Merge operands collected so far, newest first. */
  readonly operands: Uint8Array[] = [];
  /** Highest seq of a range tombstone covering the key at the snapshot, 0 if none. */
  maxCoveringSeq = 0;
  /** Resources that keep `value` / `operands` alive. */
  private readonly pins: Releasable[] = [];
  /** The lookup being folded: its key (the array itself), snapshot and layers so far. */
  private userKey: Uint8Array | undefined = undefined;
  private snapshotSeq = -1;
  /** `layers[0, layerCount)`: the layers entered since the reset (slots past it are cleared). */
  private readonly layers: (object | undefined)[] = [];
  private layerCount = 0;

  /**
   * The base value when `state === Found`, as a view (made on the first read after
   * `setValueRange`; the array itself when the range is all of it).
   */
  get value(): Uint8Array | undefined {
    const bytes = this.valueBytes;
    if (bytes === undefined) return undefined;
    const offset = this.valueOffset;
    const length = this.valueLength;
    if (offset === 0 && length === bytes.length) return bytes;
    let view = this.valueView;
    if (view === undefined) {
      view = new Uint8Array(bytes.buffer, bytes.byteOffset + offset, length);
      this.valueView = view;
    }
    return view;
  }

  set value(v: Uint8Array | undefined) {
    this.valueBytes = v;
    this.valueOffset = 0;
    this.valueLength = v === undefined ? 0 : v.length;
    this.valueView = undefined;
  }

  /** Sets the base value to `bytes[offset, offset + length)` without making a view. */
  setValueRange(bytes: Uint8Array, offset: number, length: number): void {
    this.valueBytes = bytes;
    this.valueOffset = offset;
    this.valueLength = length;
    this.valueView = undefined;
  }

  reset(): void {
    this.state = LookupState.NotFound;
    this.valueBytes = undefined;
    this.valueOffset = 0;
    this.valueLength = 0;
    this.valueView = undefined;
    this.seq = 0;
    this.blobIndex = false;
    if (this.operands.length !== 0) this.operands.length = 0;
    this.maxCoveringSeq = 0;
    if (this.pins.length !== 0) this.releasePins();
    this.userKey = undefined;
    this.snapshotSeq = -1;
    // Slots cleared rather than `length = 0` (a runtime call on every get); no layer is kept
    // alive by a reused result.
    const layers = this.layers;
    for (let i = 0; i < this.layerCount; i++) layers[i] = undefined;
    this.layerCount = 0;
  }

  /**
   * Called by a layer (memtable, table) as its `get` begins: continues the lookup held here
   * when `userKey` is the same array and `snapshotSeq` the same as the previous layer's and
   * `layer` has not folded into it yet; otherwise resets the result (unless no layer entered
   * it since its last reset) and starts a new lookup of `userKey` at `snapshotSeq`.
   * Allocation-free once the layer list has grown.
   */
  enter(layer: object, userKey: Uint8Array, snapshotSeq: number): void {
    if (this.userKey !== userKey || this.snapshotSeq !== snapshotSeq || this.entered(layer)) {
      // A result no layer has entered since its reset keeps what its caller set in it (a
      // maxCoveringSeq from the caller's own tombstones, say).
      if (this.userKey !== undefined) this.reset();
      this.userKey = userKey;
      this.snapshotSeq = snapshotSeq;
    }
    this.layers[this.layerCount++] = layer;
  }

  private entered(layer: object): boolean {
    const layers = this.layers;
    for (let i = 0; i < this.layerCount; i++) if (layers[i] === layer) return true;
    return false;
  }

  /** True once a Value or a deletion was found: older layers need not be read. */
  get done(): boolean {
    return this.state === LookupState.Found || this.state === LookupState.Deleted;
  }

  /** Keeps `r` alive until `releasePins()` (e.g. a block-cache handle behind `value`). */
  pin(r: Releasable): void {
    this.pins.push(r);
  }

  releasePins(): void {
    const pins = this.pins;
    for (let i = 0; i < pins.length; i++) pins[i]!.release();
    pins.length = 0;
  }
}

/**
 * A range tombstone: deletes every key k with `start <= k < end` (user-comparator order)
 * whose seq is lower than `seq`. Stored in memtables and in tables' range-deletion blocks.
 */
export interface RangeTombstone {
  start: Uint8Array;
  end: Uint8Array;
  seq: number;
}
