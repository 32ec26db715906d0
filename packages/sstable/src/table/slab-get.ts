/**
 * SlabGet: a table reader's point lookup in a data block held by a `SharedBlockCache`
 * (`@shale/block-cache`), with no `Block` object: the block is found by (file number,
 * offset), searched in place in the cache's slab bytes (`SlabSearch`), and what the lookup
 * takes from it — the value, merge operands — is copied out before the slot's generation
 * is checked. Only then does the result change, so a block another thread recycled while
 * it was read is never seen: the lookup reads the block itself instead (`SLAB_MISS`).
 *
 * The value is copied into `valueBuf`, which the next lookup through this reader reuses:
 * a `Found` result's value is valid until then (as a recycling block cache's values are).
 * Merge operands are copied each (they outlive the lookup).
 *
 * Threading: one SlabGet per table reader, in the reader's thread; the cache is shared.
 */
import {
  type LookupResult,
  LookupState,
  ShaleError,
  type Statistics,
  Ticker,
  TRAILER_SIZE,
  trailerSeq,
  ValueKind,
} from "@shale/base";
import type { SharedBlockCache } from "@shale/block-cache";
import type { KeyOrder } from "../block/key-order.js";
import { SlabSearch } from "../block/slab-search.js";

/** The lookup ended in this block: `result` has its outcome (or none: not in the table). */
export const SLAB_DONE = 0;
/** Not answered from the cache (not there, recycled meanwhile, or unreadable there). */
export const SLAB_MISS = 1;
/** The block ended inside the lookup (merge operands so far, folded): go on to the next. */
export const SLAB_BLOCK_ENDED = 2;

const NONE = 0;
const FOUND = 1;
const DELETED = 2;
const COVERED = 3;
const BAD_KIND = 4;

export class SlabGet {
  /** The last Found value's bytes, `[0, valueLength)` of a lookup result. */
  private valueBuf = new Uint8Array(256);
  private readonly search: SlabSearch;
  private readonly operands: Uint8Array[] = [];

  constructor(order: KeyOrder) {
    this.search = new SlabSearch(order);
  }

  /**
   * Looks `userKey` (seek key `target`) up in block (file, offset) of `cache`, folding what
   * it finds into `result` as `TableReader.fold` does. `hints`, if given, records per index
   * entry where its block was found (slot + 1, generation; at `2 * entry`), and is tried
   * first: a hit then reads the slot's record, not the cache's hash table. `globalSeqno`: the table's (0: the
   * stored seqs). Returns SLAB_DONE, SLAB_MISS or SLAB_BLOCK_ENDED.
   */
  run(
    cache: SharedBlockCache,
    file: number,
    offset: number,
    hints: Int32Array | undefined,
    entry: number,
    target: Uint8Array,
    userKey: Uint8Array,
    result: LookupResult,
    globalSeqno: number,
    order: KeyOrder,
    stats: Statistics | undefined,
    fileName: string | undefined,
  ): number {
    // Where this index entry's block was last found, if it is still there: no hashing.
    let slot = -1;
    if (hints !== undefined) {
      const hint = hints[2 * entry]!;
      if (hint !== 0 && cache.lookupAt(hint - 1, hints[2 * entry + 1]!)) slot = hint - 1;
    }
    if (slot < 0) {
      slot = cache.lookup(file, offset);
      if (slot < 0) {
        if (stats !== undefined) stats.tick(Ticker.BlockCacheMiss);
        return SLAB_MISS;
      }
      if (hints !== undefined) {
        hints[2 * entry] = slot + 1;
        hints[2 * entry + 1] = cache.lookupGeneration;
      }
    }
    const generation = cache.lookupGeneration;
    const data = cache.data;
    const s = this.search;
    s.seek(data, cache.lookupStart, cache.lookupLength, target);
    const operands = this.operands;
    operands.length = 0;
    const covering = result.maxCoveringSeq;
    let outcome = NONE;
    let seq = 0;
    let kind = 0;
    let valueLength = 0;
    for (; s.valid(); s.next()) {
      const kb = s.keyBuf;
      const t = s.keyLength - TRAILER_SIZE;
      if (order.compareUserKeyAt(kb, 0, s.keyLength, userKey) !== 0) break;
      seq = globalSeqno === 0 ? trailerSeq(kb, t) : globalSeqno;
      if (seq < covering) {
        outcome = COVERED;
        break;
      }
      kind = kb[t]!;
      if (kind === ValueKind.Value || kind === ValueKind.BlobIndex) {
        outcome = FOUND;
        valueLength = s.valueLength;
        let buf = this.valueBuf;
        if (buf.length < valueLength) this.valueBuf = buf = new Uint8Array(2 * valueLength);
        const from = s.valueOffset;
        for (let i = 0; i < valueLength; i++) buf[i] = data[from + i]!;
        break;
      }
      if (kind === ValueKind.Merge) {
        operands.push(data.slice(s.valueOffset, s.valueOffset + s.valueLength));
        continue;
      }
      outcome =
        kind === ValueKind.Deletion || kind === ValueKind.SingleDeletion ? DELETED : BAD_KIND;
      break;
    }
    const ended = outcome === NONE && !s.valid();
    const corrupt = s.corrupt;
    // Everything taken from the block is copied: was it the block's?
    if (!cache.isCurrent(slot, generation) || corrupt) {
      // Recycled meanwhile, or a block the search cannot read: the classic path decides
      // (it reads the block itself and reports a corrupt one).
      if (stats !== undefined) stats.tick(Ticker.BlockCacheMiss);
      return SLAB_MISS;
    }
    if (stats !== undefined) stats.tick(Ticker.BlockCacheHit);
    for (let i = 0; i < operands.length; i++) result.operands.push(operands[i]!);
    if (operands.length > 0) result.state = LookupState.Merging;
    switch (outcome) {
      case FOUND:
        result.state = LookupState.Found;
        result.setValueRange(this.valueBuf, 0, valueLength);
        result.seq = seq;
        result.blobIndex = kind === ValueKind.BlobIndex;
        return SLAB_DONE;
      case DELETED:
        result.state = LookupState.Deleted;
        result.seq = seq;
        return SLAB_DONE;
      case COVERED:
        result.state = LookupState.Deleted;
        result.seq = covering;
        return SLAB_DONE;
      case BAD_KIND:
        throw ShaleError.corruption(`unknown value kind ${kind} in a data block`, fileName, offset);
      default:
        return ended ? SLAB_BLOCK_ENDED : SLAB_DONE;
    }
  }
}
