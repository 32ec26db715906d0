/**
 * Block: the uncompressed contents of one table block as held by the reader and the block
 * cache. Key/value blocks (data, index, metaindex, range deletions; format drawn in
 * `block-builder.ts`) carry their parsed restart array position; the filter block carries
 * its parsed Bloom filter reader.
 */
import { getFixed32, ShaleError } from "@shale/base";
import type { BloomFilterReader } from "@shale/bloom";

/** Bytes charged to the block cache on top of a block's data (object overhead). */
const BLOCK_OVERHEAD = 64;

export class Block {
  /**
   * The block contents (trailer excluded). Its own memory: never shared with another block
   * or reused, so views into it stay valid as long as they are referenced.
   */
  readonly data: Uint8Array;
  /** Key/value blocks: offset of the restart array (= end of the entries). Filter blocks: -1. */
  readonly restartsOffset: number;
  /** Key/value blocks: number of restart points (>= 1). Filter blocks: 0. */
  readonly numRestarts: number;
  /** Filter blocks: the Bloom filter over the block's bytes. */
  readonly filter: BloomFilterReader | undefined;

  private constructor(
    data: Uint8Array,
    restartsOffset: number,
    numRestarts: number,
    filter: BloomFilterReader | undefined,
  ) {
    this.data = data;
    this.restartsOffset = restartsOffset;
    this.numRestarts = numRestarts;
    this.filter = filter;
  }

  /** What the block costs in a block cache, in bytes. */
  get charge(): number {
    return this.data.length + BLOCK_OVERHEAD;
  }

  /** True if the block holds no entries (key/value blocks). */
  get isEmpty(): boolean {
    return this.restartsOffset <= 0;
  }

  /** The offset of restart point `i`. REQUIRES: 0 <= i < numRestarts. */
  restartPoint(i: number): number {
    return getFixed32(this.data, this.restartsOffset + i * 4);
  }

  /**
   * Parses a key/value block, checking the restart array: numRestarts >= 1, the array fits,
   * and restart offsets are strictly increasing and inside the entries. Throws Corruption
   * naming `file` and `blockOffset` (the block's offset in the file) otherwise.
   */
  static keyValue(data: Uint8Array, file: string | undefined, blockOffset: number): Block {
    const fail = (what: string): never => {
      throw ShaleError.corruption(`bad block: ${what}`, file, blockOffset);
    };
    if (data.length < 4) fail(`${data.length} bytes is too short for a block`);
    const numRestarts = getFixed32(data, data.length - 4);
    const maxRestarts = Math.floor((data.length - 4) / 4);
    if (numRestarts < 1 || numRestarts > maxRestarts) fail(`bad restart count ${numRestarts}`);
    const restartsOffset = data.length - 4 - numRestarts * 4;
    let previous = -1;
    for (let i = 0; i < numRestarts; i++) {
      const r = getFixed32(data, restartsOffset + i * 4);
      const ok = i === 0 ? r === 0 : r > previous && r < restartsOffset;
      if (!ok) fail(`bad restart point ${i}: ${r}`);
      previous = r;
    }
    return new Block(data, restartsOffset, numRestarts, undefined);
  }

  /** Wraps a filter block. */
  static ofFilter(data: Uint8Array, filter: BloomFilterReader): Block {
    return new Block(data, -1, 0, filter);
  }
}
