/**
 * BlockBuilder: writes the key/value block format shared by data, index, metaindex and
 * range-deletion blocks (LevelDB/RocksDB `block_builder.cc`).
 *
 * ```
 * block   := entry* restart* numRestarts
 * entry   := varint32 shared ‖ varint32 unshared ‖ varint32 valueLength
 *            ‖ keyDelta[unshared] ‖ value[valueLength]
 * restart := fixed32 LE offset of an entry with shared = 0
 * numRestarts := fixed32 LE (>= 1; an empty block is `00 00 00 00 01 00 00 00`)
 * ```
 * `shared` is the length of the prefix the key shares with the previous key; every
 * `restartInterval`-th entry is a restart point that stores its key whole (shared = 0), so a
 * reader can binary-search the restart array and then scan at most `restartInterval` entries.
 * No checksum here: the block trailer written by the table builder covers the block.
 * `numRestarts`' high bit is the data-block index type (RocksDB's block footer, block.ts):
 * set when the builder was given a hash index (`hashUtilRatio`, data blocks only) and the
 * block got one: then `hashIndex` (data-block-hash-index.ts, where its bytes are drawn)
 * sits between the restart array and the footer:
 * ```
 * dataBlock := entry* restart* hashIndex? (numRestarts | hashBit)
 * ```
 *
 * Index blocks of format version 4+ (`valueLengths: false`) omit `valueLength`: a value is a
 * BlockHandle, whose two varints delimit themselves (RocksDB's value delta encoding; with
 * restart interval 1, the only one written, no entry shares a key prefix, so every value
 * is the whole handle and none is a size delta):
 * ```
 * indexEntry := varint32 shared(0) ‖ varint32 unshared ‖ key[unshared] ‖ handle
 * ```
 *
 * Worked example (restart interval 2): add("apple","1"), add("apply","2"), add("b","3"):
 * ```
 * 00 05 01 61 70 70 6c 65 31     shared 0, unshared 5, "apple", "1"   <- restart @0
 * 04 01 01 79 32                 shared 4, unshared 1, "y", "2"
 * 00 01 01 62 33                 shared 0, unshared 1, "b", "3"       <- restart @14
 * 00 00 00 00 0e 00 00 00        restarts [0, 14]
 * 02 00 00 00                    numRestarts 2
 * ```
 */
import { ByteWriter, putFixed32, ShaleError, TRAILER_SIZE, varintLength } from "@shale/base";
import { BLOCK_FOOTER_HASH_INDEX_BIT, MAX_BLOCK_SIZE_WITH_HASH_INDEX } from "./block.js";
import { DataBlockHashIndexBuilder } from "./data-block-hash-index.js";

export class BlockBuilder {
  private readonly buffer = new ByteWriter(4096);
  private readonly restartInterval: number;
  private restarts: number[] = [0];
  /** Entries since the last restart point. */
  private counter = 0;
  private lastKey = new Uint8Array(64);
  private lastKeyLength = 0;
  private entries = 0;
  private finished = false;
  /** False: entries omit the value length (index blocks of format version 4+). */
  private readonly valueLengths: boolean;
  /** Data blocks with a hash index: its builder (keys are internal keys). */
  private readonly hashIndex: DataBlockHashIndexBuilder | undefined;

  /**
   * @param restartInterval entries between restart points (>= 1).
   * @param valueLengths false for value-delta-encoded index blocks (no value length; only
   *   with restart interval 1, so every value is whole). Default: true.
   * @param hashUtilRatio data blocks of internal keys: append RocksDB's data block hash index
   *   with this many keys per bucket (> 0; data-block-hash-index.ts). Default: none.
   */
  constructor(restartInterval: number, valueLengths = true, hashUtilRatio?: number) {
    if (!Number.isInteger(restartInterval) || restartInterval < 1) {
      throw ShaleError.invalidArgument(
        `blockRestartInterval must be an integer >= 1; got ${restartInterval}`,
      );
    }
    if (!valueLengths && restartInterval !== 1) {
      throw ShaleError.invalidArgument("blocks without value lengths need restart interval 1");
    }
    this.restartInterval = restartInterval;
    this.valueLengths = valueLengths;
    this.hashIndex =
      hashUtilRatio === undefined ? undefined : new DataBlockHashIndexBuilder(hashUtilRatio);
  }

  /** Number of entries added since the last reset. */
  get numEntries(): number {
    return this.entries;
  }

  get empty(): boolean {
    return this.entries === 0;
  }

  /** Size of the block if finished now (RocksDB's `CurrentSizeEstimate`, hash index included). */
  get currentSizeEstimate(): number {
    const hash = this.hashIndex;
    const extra = hash?.isValid ? hash.estimatedSize : 0;
    return this.buffer.length + this.restarts.length * 4 + 4 + extra;
  }

  /**
   * RocksDB's `EstimateSizeAfterKV` (for blocks with value lengths): the size estimate after
   * adding an entry of a `keyLength`-byte key and a `valueLength`-byte value, counting the
   * whole key (not only its unshared part) and a 4-byte shared-length varint, as RocksDB
   * does (the table builder's flush policy compares it with the block size).
   */
  estimateSizeAfter(keyLength: number, valueLength: number): number {
    let estimate = this.currentSizeEstimate + keyLength + valueLength + 4;
    if (this.counter >= this.restartInterval) estimate += 4;
    return estimate + varintLength(keyLength) + varintLength(valueLength);
  }

  /** The last key added (a view, valid until the next add or reset). REQUIRES: !empty. */
  lastKeyView(): Uint8Array {
    return this.lastKey.subarray(0, this.lastKeyLength);
  }

  /**
   * Appends an entry. REQUIRES: not finished since the last reset; `key` sorts after the
   * previous key (the caller checks the order).
   */
  add(key: Uint8Array, value: Uint8Array): void {
    const w = this.buffer;
    let shared = 0;
    if (this.counter < this.restartInterval) {
      const last = this.lastKey;
      const n = Math.min(this.lastKeyLength, key.length);
      while (shared < n && last[shared] === key[shared]) shared++;
    } else {
      this.restarts.push(w.length);
      this.counter = 0;
    }
    const unshared = key.length - shared;
    w.ensure(15 + unshared + value.length);
    w.varint32(shared).varint32(unshared);
    if (this.valueLengths) w.varint32(value.length);
    w.buf.set(key.subarray(shared), w.pos);
    w.pos += unshared;
    w.buf.set(value, w.pos);
    w.pos += value.length;
    if (key.length > this.lastKey.length) {
      const grown = new Uint8Array(Math.max(key.length, this.lastKey.length * 2));
      grown.set(this.lastKey.subarray(0, shared));
      this.lastKey = grown;
    }
    this.lastKey.set(key.subarray(shared), shared);
    this.lastKeyLength = key.length;
    const hash = this.hashIndex;
    if (hash?.isValid) {
      hash.add(key, key.length - TRAILER_SIZE, this.restarts.length - 1);
    }
    this.counter++;
    this.entries++;
  }

  /**
   * Appends the restart array and returns the block: a view of the builder's buffer, valid
   * until the next `reset`.
   */
  finish(): Uint8Array {
    const w = this.buffer;
    const restarts = this.restarts;
    if (restarts.length >= 0x80000000) {
      throw ShaleError.invalidArgument("too many restart points for a block footer");
    }
    const hash = this.hashIndex;
    const withHash =
      hash?.isValid === true && this.currentSizeEstimate <= MAX_BLOCK_SIZE_WITH_HASH_INDEX;
    w.ensure(restarts.length * 4 + 4 + (hash !== undefined && withHash ? hash.estimatedSize : 0));
    let pos = w.pos;
    for (let i = 0; i < restarts.length; i++) pos = putFixed32(w.buf, pos, restarts[i]!);
    let footer = restarts.length;
    if (hash !== undefined && withHash) {
      pos = hash.finish(w.buf, pos);
      footer = (footer | BLOCK_FOOTER_HASH_INDEX_BIT) >>> 0;
    }
    w.pos = putFixed32(w.buf, pos, footer);
    this.finished = true;
    return w.finish();
  }

  /** True after `finish` until `reset`. */
  get isFinished(): boolean {
    return this.finished;
  }

  /** Starts a new, empty block, reusing the memory. */
  reset(): void {
    this.buffer.clear();
    this.restarts = [0];
    this.counter = 0;
    this.lastKeyLength = 0;
    this.entries = 0;
    this.finished = false;
    this.hashIndex?.reset();
  }
}
