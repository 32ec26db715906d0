/**
 * The index block as RocksDB writes it for format versions 4 and 5 (kBinarySearch,
 * `index_block_restart_interval` 1, kShortenSeparators), and its reading for 2-5.
 *
 * One entry per data block, restart interval 1 (every entry a restart point):
 * ```
 * entry := varint32 shared (0) ‖ varint32 unshared ‖ key[unshared] ‖ varint64 offset ‖ varint64 size
 * ```
 * - No value length (format version >= 4, property `rocksdb.index.value.is.delta.encoded`
 *   = 1): the handle's varints delimit themselves. An entry that shares a key prefix (only
 *   with a restart interval > 1, which RocksDB allows and this build reads) stores its
 *   handle as `varsigned64 (size - previous size)`, its offset being the previous block's
 *   end (`previous offset + previous size + 5`).
 * - kBinarySearchWithFirstKey (`includeFirstKey`): the value goes on after the handle with
 *   the block's first internal key, `varint32 length ‖ key` (RocksDB's `IndexValue`); e.g.
 *   `00 09 "key000034" 00 ec 07 11 "key000000" 01 00 00 00 00 00 00 00`.
 * - The key is a separator `s`, lastKey(block i) <= s < firstKey(block i + 1), shortened
 *   by the comparator (`findShortestSeparator`; RocksDB's algorithm for the bytewise
 *   comparator, below); the last block's key is its last key, unshortened. When no
 *   separator has the user key of the next block's first key — no user key spans two
 *   blocks — the index stores user keys only (property `rocksdb.index.key.is.user.key` = 1,
 *   format version >= 3); otherwise whole internal keys. A shortened separator's trailer is
 *   RocksDB's `(kMaxSequenceNumber << 8) | kValueTypeForSeek` = `16 ff ff ff ff ff ff ff`.
 *
 * Worked example (two data blocks: [0, 190) ending "key000002"#1,SET, next block from
 * "key000019"... ; the shape of RocksDB's index for db_bench keys):
 * ```
 * 00 09 6b 65 79 30 30 30 30 30 32 00 be 01    "key000002" -> (0, 190)   (user key)
 * 00 00 00 00  01 00 00 00                     restarts [0], numRestarts 1
 * ```
 *
 * Reading: the reader's block iterators and `IndexSearch` work on the classic form
 * (internal keys, `varint32 valueLength`, whole handles). An index in another form is
 * rewritten into it once, when the block is loaded (`normalizeIndexBlock`): a user key
 * gets the trailer `00 00 00 00 00 00 00 00` (seq 0, kind 0: the largest internal key of
 * that user key, so the entry still sorts >= every key of its block and < the next
 * block's), a delta becomes the whole handle.
 */
import {
  bytewiseComparator,
  type Comparator,
  putFixed32,
  putVarint32,
  putVarint64,
  ShaleError,
  TRAILER_SIZE,
  varint32Before,
  varint64Before,
  varintEnd,
} from "@shale/base";
import { allocUninitialized } from "../block/alloc.js";
import { Block } from "../block/block.js";
import { BlockBuilder } from "../block/block-builder.js";
import { type BlockHandle, putBlockHandle, TableFormat } from "../format/format.js";
import { wasmIndexLoader, wasmLoadsIndex } from "./index-wasm.js";

/** The trailer RocksDB appends to a shortened separator. Part of the file format. */
const SEPARATOR_TRAILER = Uint8Array.of(0x16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);

/**
 * RocksDB's BytewiseComparatorImpl::FindShortestSeparator: a short `s` with
 * `start <= s < limit`, or `start` itself when it cannot be shortened.
 */
export function bytewiseSeparator(start: Uint8Array, limit: Uint8Array): Uint8Array {
  const min = Math.min(start.length, limit.length);
  let i = 0;
  while (i < min && start[i] === limit[i]) i++;
  if (i >= min) return start; // one is a prefix of the other
  const s = start[i]!;
  const l = limit[i]!;
  if (s >= l) return start;
  if (i < limit.length - 1 || s + 1 < l) {
    const out = start.slice(0, i + 1);
    out[i] = s + 1;
    return out;
  }
  // start[i] + 1 == limit[i], the last byte of limit: bump the first non-0xff byte after i.
  for (let j = i + 1; j < start.length; j++) {
    if (start[j]! < 0xff) {
      const out = start.slice(0, j + 1);
      out[j] = start[j]! + 1;
      return out;
    }
  }
  return start;
}

/**
 * Builds the index block: `add` once per data block, in order, then `finish`. Keeps the
 * entries with and without sequence numbers (RocksDB's ShortenedIndexBuilder) and writes
 * the user-key form when it is exact.
 */
export class IndexBuilder {
  private readonly comparator: Comparator;
  /** @internal The block of entries with sequence numbers (partitioned-index-builder.ts). */
  readonly withSeq: BlockBuilder;
  /** @internal The block of entries with user keys. */
  readonly withoutSeq: BlockBuilder;
  private keyPlusSeq: boolean;
  /** Values carry the data block's first key (kBinarySearchWithFirstKey). */
  private readonly includeFirstKey: boolean;
  private valueScratch = new Uint8Array(64);
  private entries = 0;

  /**
   * @param formatVersion of the table: from 3 the index may hold user keys, from 4 its
   *   entries omit value lengths.
   * @param includeFirstKey write RocksDB's kBinarySearchWithFirstKey values: the handle,
   *   then the data block's first internal key (varint32 length ‖ bytes). Default: false.
   */
  constructor(comparator: Comparator, formatVersion: number, includeFirstKey = false) {
    this.comparator = comparator;
    const valueLengths = formatVersion < 4;
    this.withSeq = new BlockBuilder(1, valueLengths);
    this.withoutSeq = new BlockBuilder(1, valueLengths);
    this.keyPlusSeq = formatVersion < 3;
    this.includeFirstKey = includeFirstKey;
  }

  /** Number of entries added. */
  get numEntries(): number {
    return this.entries;
  }

  /** True once some separator has the next block's user key: the index keeps sequence numbers. */
  get separatorIsKeyPlusSeq(): boolean {
    return this.keyPlusSeq;
  }

  /** Writes the index with sequence numbers (a partitioned index decides for every partition). */
  useKeyPlusSeq(): void {
    this.keyPlusSeq = true;
  }

  /**
   * Adds the entry of the data block at `handle` whose last internal key is `lastKey`;
   * `nextKey` is the first internal key of the next block (undefined for the last block).
   * Both are views the builder does not keep. Returns the separator (an internal key; a
   * view of `lastKey` when it was not shortened).
   */
  add(
    lastKey: Uint8Array,
    nextKey: Uint8Array | undefined,
    handle: BlockHandle,
    firstKey?: Uint8Array,
  ): Uint8Array {
    const userLast = lastKey.subarray(0, lastKey.length - TRAILER_SIZE);
    let separator = lastKey;
    let userSeparator = userLast;
    if (nextKey !== undefined) {
      const userNext = nextKey.subarray(0, nextKey.length - TRAILER_SIZE);
      const cmp = this.comparator;
      const s =
        cmp === bytewiseComparator
          ? bytewiseSeparator(userLast, userNext)
          : cmp.findShortestSeparator(userLast, userNext);
      if (s.length <= userLast.length && cmp.compare(userLast, s) < 0) {
        separator = new Uint8Array(s.length + TRAILER_SIZE);
        separator.set(s, 0);
        separator.set(SEPARATOR_TRAILER, s.length);
        userSeparator = s;
      }
      if (!this.keyPlusSeq && cmp.compare(userSeparator, userNext) === 0) this.keyPlusSeq = true;
    }
    const value = this.encodeValue(handle, firstKey);
    this.withSeq.add(separator, value);
    if (!this.keyPlusSeq) this.withoutSeq.add(userSeparator, value);
    this.entries++;
    return separator;
  }

  /**
   * The entry's value: the handle, and with `includeFirstKey` the block's first internal
   * key, length-prefixed (RocksDB's `IndexValue::EncodeTo`). A view of scratch memory.
   */
  private encodeValue(handle: BlockHandle, firstKey: Uint8Array | undefined): Uint8Array {
    const keyLength = this.includeFirstKey ? firstKey!.length : 0;
    const bound = TableFormat.MAX_BLOCK_HANDLE_SIZE + 5 + keyLength;
    if (this.valueScratch.length < bound) this.valueScratch = new Uint8Array(2 * bound);
    const out = this.valueScratch;
    let n = putBlockHandle(out, 0, handle);
    if (this.includeFirstKey) {
      n = putVarint32(out, n, keyLength);
      out.set(firstKey!, n);
      n += keyLength;
    }
    return out.subarray(0, n);
  }

  /**
   * The index block contents (a view of the builder's memory, valid until it is dropped) and
   * whether its keys are user keys.
   */
  finish(): { contents: Uint8Array; keyIsUserKey: boolean } {
    if (this.keyPlusSeq) return { contents: this.withSeq.finish(), keyIsUserKey: false };
    return { contents: this.withoutSeq.finish(), keyIsUserKey: true };
  }
}

/** How an index block is encoded (from the table properties). */
export interface IndexEncoding {
  /** Keys are user keys (`rocksdb.index.key.is.user.key`). */
  keyIsUserKey: boolean;
  /** No value lengths, handles after a shared prefix as size deltas. */
  valueIsDeltaEncoded: boolean;
  /**
   * Values carry the data block's first internal key after the handle (kBinarySearchWithFirstKey):
   * `handle ‖ varint32 length ‖ key`. Default: false.
   */
  hasFirstKey?: boolean;
}

/**
 * The common case of `normalizeIndexBlock`, without decoding keys: an index whose entries
 * all store their key whole (restart interval 1, as RocksDB and shale write it), so every
 * value is a whole handle. One pass copies the entries into a reused buffer with the value
 * length and (for user keys) the 8-byte trailer inserted, then into memory of their own.
 * Returns undefined when an entry shares a key prefix or is malformed (the general path
 * decodes it and reports damage). With `wasm`, a block of `WASM_INDEX_MIN_ENTRIES` entries
 * or more (up to `WASM_INDEX_MAX_BYTES`) is rewritten by index-wasm.ts, which gives the
 * same answer (its twin is the loop below).
 */
function rewriteWholeEntries(
  data: Uint8Array,
  limit: number,
  numRestarts: number,
  encoding: IndexEncoding,
  wasm: boolean,
): Uint8Array | undefined {
  const loader = wasm && wasmLoadsIndex(data.length, numRestarts) ? wasmIndexLoader() : undefined;
  if (loader !== undefined) {
    const { keyIsUserKey, valueIsDeltaEncoded } = encoding;
    const out = loader.rewrite(
      data,
      limit,
      numRestarts,
      keyIsUserKey,
      valueIsDeltaEncoded,
      allocUninitialized,
    );
    return out === undefined || out.length > 0 ? out : emptyIndexBlock();
  }
  const trailer = encoding.keyIsUserKey ? TRAILER_SIZE : 0;
  const delta = encoding.valueIsDeltaEncoded;
  // Each entry grows by at most: the trailer, a longer key-length varint (1), a value
  // length (2: a handle is at most 20 bytes); its restart offset adds 4.
  const bound = limit + numRestarts * (trailer + 3 + 4) + 4;
  if (scratch.length < bound) scratch = new Uint8Array(Math.max(bound, 2 * scratch.length));
  if (restartScratch.length < numRestarts) {
    restartScratch = new Int32Array(Math.max(numRestarts, 2 * restartScratch.length));
  }
  const out = scratch;
  const restarts = restartScratch;
  let w = 0;
  let count = 0;
  let p = 0;
  while (p < limit) {
    // One entry per restart point, each storing its key whole (shared 0, one byte).
    if (count >= numRestarts || data[p] !== 0) return undefined;
    let q = p + 1;
    let unshared = q < limit ? data[q]! : 0x80;
    if (unshared < 0x80) {
      q++;
    } else {
      unshared = varint32Before(data, q, limit);
      if (unshared < 0) return undefined;
      q = varintEnd;
    }
    let valueLength: number;
    if (delta) {
      // The handle's two varints delimit themselves: find where they end.
      const valueStart = q + unshared;
      const offsetEnd = varint64Before(data, valueStart, limit) < 0 ? -1 : varintEnd;
      const end = offsetEnd < 0 || varint64Before(data, offsetEnd, limit) < 0 ? -1 : varintEnd;
      if (end < 0) return undefined;
      valueLength = end - valueStart;
    } else {
      valueLength = varint32Before(data, q, limit);
      if (valueLength < 0 || valueLength > TableFormat.MAX_BLOCK_HANDLE_SIZE) return undefined;
      q = varintEnd;
      if (q + unshared + valueLength > limit) return undefined;
    }
    const keyLength = unshared + trailer;
    if (keyLength < TRAILER_SIZE) return undefined;
    restarts[count++] = w;
    out[w++] = 0;
    w = putVarint32(out, w, keyLength);
    w = putVarint32(out, w, valueLength);
    // Byte loops: keys and handles are short, and a subarray per entry is garbage.
    const keyEnd = q + unshared;
    for (let i = q; i < keyEnd; i++) out[w++] = data[i]!;
    for (let i = 0; i < trailer; i++) out[w++] = 0;
    const valueEnd = keyEnd + valueLength;
    for (let i = keyEnd; i < valueEnd; i++) out[w++] = data[i]!;
    p = valueEnd;
  }
  if (count === 0) return emptyIndexBlock();
  const result = allocUninitialized(w + 4 * count + 4);
  result.set(out.subarray(0, w), 0);
  for (let i = 0; i < count; i++) putFixed32(result, w + 4 * i, restarts[i]!);
  putFixed32(result, w + 4 * count, count);
  return result;
}

// Reused by `rewriteWholeEntries` (single-threaded), only read before it returns.
let scratch = new Uint8Array(0);
let restartScratch = new Int32Array(0);

/** A block with no entries: restarts [0], count 1 (the classic empty block). */
function emptyIndexBlock(): Uint8Array {
  return Uint8Array.of(0, 0, 0, 0, 1, 0, 0, 0);
}

/**
 * The index block `data` in the classic form the reader searches (internal keys, value
 * lengths, whole handles; restart interval 1): `data` itself when it already is, else a
 * rewritten copy in memory of its own. Throws Corruption naming `file` and `blockOffset`
 * for a malformed entry. `wholeEntriesPath` (tests only: false) allows the fast path for
 * blocks whose entries all store their keys whole; `wasm` (tests only: false) lets that
 * path run in WebAssembly for blocks of `WASM_INDEX_MIN_ENTRIES` entries or more
 * (up to `WASM_INDEX_MAX_BYTES`).
 */
export function normalizeIndexBlock(
  data: Uint8Array,
  encoding: IndexEncoding,
  file: string | undefined,
  blockOffset: number,
  wholeEntriesPath = true,
  wasm = true,
): Uint8Array {
  const firstKey = encoding.hasFirstKey === true;
  if (!encoding.keyIsUserKey && !encoding.valueIsDeltaEncoded && !firstKey) return data;
  const fail = (what: string): never => {
    throw ShaleError.corruption(`bad index block: ${what}`, file, blockOffset);
  };
  // Parses the restart array (numRestarts, bounds) the usual way.
  const parsed = Block.keyValue(data, file, blockOffset);
  const limit = parsed.restartsOffset;
  // The whole-entries paths know handles only; values with first keys take the general one.
  const fast =
    wholeEntriesPath && !firstKey
      ? rewriteWholeEntries(data, limit, parsed.numRestarts, encoding, wasm)
      : undefined;
  if (fast !== undefined) return fast;
  const out = new BlockBuilder(1);
  const trailer = encoding.keyIsUserKey ? TRAILER_SIZE : 0;
  let key = new Uint8Array(64);
  let keyLength = 0;
  let value = new Uint8Array(TableFormat.MAX_BLOCK_HANDLE_SIZE + 5 + 64);
  const handle: BlockHandle = { offset: 0, size: 0 };
  let havePrevious = false;
  let p = 0;
  while (p < limit) {
    const shared = varint32Before(data, p, limit);
    const unshared = shared < 0 ? -1 : varint32Before(data, varintEnd, limit);
    if (unshared < 0) fail(`malformed entry header at ${p}`);
    let q = varintEnd;
    let valueEnd = -1;
    if (!encoding.valueIsDeltaEncoded) {
      const vlen = varint32Before(data, q, limit);
      if (vlen < 0) fail(`malformed entry header at ${p}`);
      q = varintEnd;
      valueEnd = q + unshared + vlen;
    }
    if (shared > keyLength) fail(`shared prefix ${shared} longer than the previous key`);
    if (q + unshared > limit) fail(`entry at ${p} overruns the block`);
    const fullLength = shared + unshared;
    if (fullLength + trailer > key.length) {
      const grown = new Uint8Array(Math.max(fullLength + trailer, key.length * 2));
      grown.set(key.subarray(0, shared));
      key = grown;
    }
    key.set(data.subarray(q, q + unshared), shared);
    keyLength = fullLength;
    q += unshared;
    const end = valueEnd >= 0 ? valueEnd : limit;
    if (!encoding.valueIsDeltaEncoded || shared === 0) {
      const offset = varint64Before(data, q, end);
      const size = offset < 0 ? -1 : varint64Before(data, varintEnd, end);
      if (size < 0) fail(`malformed block handle at ${q}`);
      handle.offset = offset;
      handle.size = size;
    } else {
      // varsigned64 (zigzag) size delta on the previous handle.
      if (!havePrevious) fail(`delta-encoded handle at ${q} without a previous one`);
      const z = varint64Before(data, q, end);
      if (z < 0) fail(`malformed handle delta at ${q}`);
      const delta = z % 2 === 0 ? z / 2 : -(z + 1) / 2;
      handle.offset = handle.offset + handle.size + TableFormat.BLOCK_TRAILER_SIZE;
      handle.size += delta;
      if (handle.size < 0) fail(`negative block size at ${q}`);
    }
    // The first key (kBinarySearchWithFirstKey): varint32 length ‖ an internal key.
    let after = varintEnd;
    let firstKeyStart = 0;
    let firstKeyLength = 0;
    if (firstKey) {
      firstKeyLength = varint32Before(data, after, end);
      firstKeyStart = varintEnd;
      if (firstKeyLength < TRAILER_SIZE || firstKeyStart + firstKeyLength > end) {
        fail(`bad first key in the index value at ${q}`);
      }
      after = firstKeyStart + firstKeyLength;
    }
    if (valueEnd >= 0 && after !== valueEnd) fail(`bad index value at ${q}`);
    p = after;
    havePrevious = true;
    if (trailer > 0) key.fill(0, keyLength, keyLength + trailer);
    else if (keyLength < TRAILER_SIZE) fail(`index key shorter than an internal key at ${p}`);
    const valueBound = TableFormat.MAX_BLOCK_HANDLE_SIZE + 5 + firstKeyLength;
    if (value.length < valueBound) value = new Uint8Array(2 * valueBound);
    let v = putVarint64(value, 0, handle.offset);
    v = putVarint64(value, v, handle.size);
    if (firstKey) {
      v = putVarint32(value, v, firstKeyLength);
      value.set(data.subarray(firstKeyStart, firstKeyStart + firstKeyLength), v);
      v += firstKeyLength;
    }
    out.add(key.subarray(0, keyLength + trailer), value.subarray(0, v));
  }
  const built = out.finish();
  const copy = allocUninitialized(built.length);
  copy.set(built);
  return copy;
}
