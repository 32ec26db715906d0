/**
 * BloomFilterBuilder: collects key hashes, then writes a FastLocalBloom filter (layout in
 * `format.ts`).
 *
 * The number of keys is only known at `finish()`, so the builder keeps every 64-bit hash
 * until then. How it keeps them is the point of RocksDB commit a92bd0a183 (seed 004):
 *
 * ```
 * "chunked" (default, RocksDB's std::deque):
 *   chunks: [c0 full][c1 full][c2 full] ... current: [c3 partly filled]
 *   each chunk = 8192 hashes = 16384 x u32 (lo, hi, lo, hi, ...) = 64 KiB
 *   finish(): c0 -> filter, release c0; c1 -> filter, release c1; ...
 *   memory ~ exactly what the hashes need (< 64 KiB slack), no copying, no large
 *   contiguous block. Released chunks go to a free list that the next filter draws from
 *   (as malloc would reuse the deque's freed blocks), so no chunk becomes GC garbage.
 *
 * "doubling" (the "before", RocksDB's std::vector):
 *   one Uint32Array; when full, allocate 2x and copy. Up to 2x the needed space, each
 *   hash copied ~once more on average, a 2x-size contiguous block, and the capacity is kept
 *   across filters (like vector::clear()).
 * ```
 *
 * Both produce byte-identical filters for the same hashes.
 */
import { ShaleError } from "@shale/base";
import {
  checkBitsPerKey,
  chooseNumProbes,
  FilterFormat,
  millibitsPerKey,
  numLinesFor,
  writeMetadata,
} from "./format.js";
import { hashKey64 } from "./hash.js";
import { addHashesToFilter } from "./probe.js";
import type { HashChunks } from "./ribbon-banding.js";

/** How the builder holds hashes until `finish()`. */
export type HashStorage = "chunked" | "doubling";

export interface BloomFilterBuilderOptions {
  /**
   * Bits of filter per key; sets size and number of probes (RocksDB's ChooseNumProbes).
   * Must be in [1, 100]. Default: 10 (about 1 % false positives, 6 probes).
   */
  bitsPerKey?: number;
  /**
   * "chunked": hashes in a list of fixed 64 KiB chunks, released while the filter is filled
   * (to the builder's free list, which the next filter draws from).
   * "doubling": one array grown by doubling (the pre-seed-004 design, kept for comparison).
   * Default: "chunked".
   */
  hashStorage?: HashStorage;
}

/** Hashes per chunk in "chunked" storage. */
export const CHUNK_HASHES = 8192;
const CHUNK_WORDS = CHUNK_HASHES * 2;
/** First capacity (in hashes) of the "doubling" array. */
const DOUBLING_INITIAL_HASHES = 256;
const EMPTY = new Uint32Array(0);

/**
 * Builds one filter at a time: `addKey`/`addHash` ..., then `finish()`, which returns the
 * filter and resets the builder for the next one.
 *
 * Not thread-safe. Between filters a "chunked" builder keeps its released chunks on a
 * free list (as many as the largest filter so far needed; the next filters draw from it
 * and allocate nothing), and a "doubling" builder keeps its array (as large as the largest
 * filter so far needed, rounded up to a power of two). Drop the builder to free them.
 */
export class BloomFilterBuilder {
  /** The bits-per-key setting in thousandths (round(bitsPerKey * 1000)). */
  readonly millibitsPerKey: number;
  /** Probes per key, from `millibitsPerKey`. */
  readonly numProbes: number;
  /** The hash storage in use. */
  readonly hashStorage: HashStorage;

  private readonly chunked: boolean;
  /** Full chunks, oldest first ("chunked" only). */
  private chunks: Uint32Array[] = [];
  /** The chunk being filled ("chunked") or the whole array ("doubling"). */
  private current: Uint32Array = EMPTY;
  /** Words used in `current`. */
  private pos = 0;
  private count = 0;
  /** The previous hash; -1 (never a u32) when there is none. */
  private prevLo = -1;
  private prevHi = -1;
  /**
   * Free list: chunks released by finish()/reset(), reused before allocating ("chunked"
   * only). Never shrinks: it holds what the largest filter so far needed, less the chunks
   * in use (as malloc keeps the freed blocks of RocksDB's deque in its arena).
   */
  private spare: Uint32Array[] = [];
  private peakBytes = 0;

  constructor(options: BloomFilterBuilderOptions = {}) {
    if (typeof options !== "object" || options === null) {
      throw new TypeError("BloomFilterBuilder options must be an object");
    }
    const bitsPerKey = options.bitsPerKey ?? 10;
    const hashStorage = options.hashStorage ?? "chunked";
    checkBitsPerKey(bitsPerKey);
    if (hashStorage !== "chunked" && hashStorage !== "doubling") {
      throw ShaleError.invalidArgument(
        `hashStorage must be "chunked" or "doubling", got ${String(hashStorage)}`,
      );
    }
    this.millibitsPerKey = millibitsPerKey(bitsPerKey);
    this.numProbes = chooseNumProbes(this.millibitsPerKey);
    this.hashStorage = hashStorage;
    this.chunked = hashStorage === "chunked";
  }

  /** Number of hashes held (consecutive duplicates are not counted). */
  get numEntries(): number {
    return this.count;
  }

  /**
   * Most bytes of hash storage held at once since construction, including the moment a
   * "doubling" array is copied into its successor (old + new).
   */
  get peakAllocatedBytes(): number {
    return Math.max(this.peakBytes, this.allocatedBytes);
  }

  /** Bytes of hash storage currently held (incl. unused capacity and kept chunks). */
  get allocatedBytes(): number {
    return ((this.chunks.length + this.spare.length) * CHUNK_WORDS + this.current.length) * 4;
  }

  /** Adds `key` (any bytes, any length; only read, not kept). */
  addKey(key: Uint8Array): void {
    if (!(key instanceof Uint8Array)) throw new TypeError("key must be a Uint8Array");
    // Hash straight into the storage slot; keep it only if it differs from the previous.
    let pos = this.pos;
    if (pos === this.current.length) {
      this.grow();
      pos = this.pos;
    }
    const current = this.current;
    hashKey64(key, current, pos);
    const lo = current[pos]!;
    const hi = current[pos + 1]!;
    if (lo === this.prevLo && hi === this.prevHi) return;
    this.prevLo = lo;
    this.prevHi = hi;
    this.pos = pos + 2;
    this.count++;
  }

  /**
   * Adds a key by its 64-bit hash from `hashKey64` (`lo` = out[0], `hi` = out[1]). A hash
   * equal to the previous one is skipped (a key added twice in a row counts once).
   * REQUIRES: lo and hi are 32-bit integers (they are taken `>>> 0`).
   */
  addHash(lo: number, hi: number): void {
    lo >>>= 0;
    hi >>>= 0;
    if (lo === this.prevLo && hi === this.prevHi) return;
    this.prevLo = lo;
    this.prevHi = hi;
    let pos = this.pos;
    if (pos === this.current.length) {
      this.grow();
      pos = this.pos;
    }
    const current = this.current;
    current[pos] = lo;
    current[pos + 1] = hi;
    this.pos = pos + 2;
    this.count++;
  }

  /**
   * The hashes held, in the order added, viewed in place (not copied): full chunks, then
   * `current[0, currentWords)`. For a builder that stores its hashes in this one and reads
   * them back (the Ribbon builder). Valid until the next add, finish or reset.
   * @internal
   */
  heldHashes(): HashChunks {
    return { chunks: this.chunks, current: this.current, currentWords: this.pos };
  }

  /** Size in bytes `finish()` would return now (bits + 5 metadata bytes). */
  estimatedSize(): number {
    return (
      numLinesFor(this.count, this.millibitsPerKey) * FilterFormat.LINE_BYTES +
      FilterFormat.METADATA_BYTES
    );
  }

  /**
   * Writes the filter of every hash added since the last finish/reset and resets the
   * builder. With no keys the filter is the 5 metadata bytes only, which readers answer
   * "no" for every key (RocksDB does the same).
   * @returns a new Uint8Array owned by the caller.
   */
  finish(): Uint8Array {
    const numLines = numLinesFor(this.count, this.millibitsPerKey);
    const len = numLines * FilterFormat.LINE_BYTES;
    const filter = new Uint8Array(len + FilterFormat.METADATA_BYTES);
    if (numLines > 0) {
      const numProbes = this.numProbes;
      const chunks = this.chunks;
      // The deque: consume front to back, releasing each chunk as soon as it is in. A
      // released chunk goes to the free list (what malloc does for RocksDB's deque), not to
      // the GC: garbage chunks would linger until a collection and inflate the peak RSS.
      const spare = this.spare;
      for (let i = 0; i < chunks.length; i++) {
        const chunk = chunks[i]!;
        chunks[i] = EMPTY;
        addHashesToFilter(filter, numLines, numProbes, chunk, chunk.length);
        spare.push(chunk);
      }
      addHashesToFilter(filter, numLines, numProbes, this.current, this.pos);
    }
    writeMetadata(filter, len, this.numProbes);
    this.reset();
    return filter;
  }

  /** Drops every hash added since the last finish/reset. */
  reset(): void {
    // After finish() the chunks are on the free list already (and EMPTY here).
    for (const chunk of this.chunks) if (chunk !== EMPTY) this.spare.push(chunk);
    this.chunks = [];
    this.pos = 0;
    this.count = 0;
    this.prevLo = -1;
    this.prevHi = -1;
  }

  /** `current` is full: start a new chunk, or double the array. */
  private grow(): void {
    const current = this.current;
    if (this.chunked) {
      if (current.length > 0) this.chunks.push(current);
      this.current = this.spare.pop() ?? new Uint32Array(CHUNK_WORDS);
      this.pos = 0;
      this.peakBytes = Math.max(this.peakBytes, this.allocatedBytes);
      return;
    }
    const next = new Uint32Array(Math.max(current.length * 2, DOUBLING_INITIAL_HASHES * 2));
    next.set(current);
    this.current = next;
    this.peakBytes = Math.max(this.peakBytes, (current.length + next.length) * 4);
  }
}
