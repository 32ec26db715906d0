/**
 * Prefix seek (RocksDB's, with a prefix extractor): how an iterator's seeks use the tables'
 * prefix filters, per read options.
 *
 * ```
 *   read options            table filters on seek(k)               DB iterator stops
 *   (default)               skip a table whose filter lacks         -
 *                           prefix(k); seekForPrev too
 *   prefixSameAsStart       as above                                at the end of prefix(k)
 *   totalOrderSeek          never                                   (with prefixSameAsStart too)
 *   autoPrefixMode          only when every key in [k, upperBound)  (with prefixSameAsStart too)
 *                           has prefix(k); never on seekForPrev
 * ```
 * Without `totalOrderSeek` or `prefixSameAsStart`, a seek's results are exact within the
 * seek key's prefix and undefined after it (RocksDB's contract): tables skipped for that
 * prefix may hold later keys. A seek key outside the extractor's domain filters nothing
 * (and bounds nothing with `prefixSameAsStart`).
 *
 * Only `seek` and `seekForPrev` filter: `seekToFirst` and `seekToLast` (bounded or not, so
 * every for-of walk and `clear`) read in total order — RocksDB's SeekToFirst with a lower
 * bound seeks it by prefix, whose results past that prefix are undefined; total order is
 * one of those results and the one a range scan wants. The DB iterator sets `active`.
 *
 * A table's filter is used only when the table was written with an extractor of the same
 * name (`TableReader.prefixExtractorName`).
 */
import type { InternalIterator } from "@shale/base";
import type { MemTableBloom } from "@shale/memtable";
import { type PrefixExtractor, samePrefix, type TableReader } from "@shale/sstable";

export interface PrefixSeek {
  readonly extractor: PrefixExtractor;
  /** autoPrefixMode: filter only when the upper bound keeps the seek in one prefix, forward only. */
  readonly auto: boolean;
  readonly upperBound: Uint8Array | undefined;
  readonly upperInclusive: boolean;
  /** The comparator is bytewise (RocksDB's IsSameLengthImmediateSuccessor is bytewise only). */
  readonly bytewise: boolean;
  /**
   * The DB iterator's current positioning is a seek whose key is in the extractor's domain
   * (true), or a seekToFirst/Last or a seek of a key outside it (false). Set once per seek of
   * the DB iterator: the merging iterator's own reseeks (past a range tombstone, to its end)
   * filter only while the user's seek key has a prefix.
   */
  active: boolean;
}

/** The prefix seek of an iterator, or undefined for a total-order one. */
export function prefixSeekOf(
  extractor: PrefixExtractor | undefined,
  totalOrderSeek: boolean,
  autoPrefixMode: boolean,
  upperBound: Uint8Array | undefined,
  upperInclusive: boolean,
  bytewise: boolean,
): PrefixSeek | undefined {
  if (extractor === undefined || totalOrderSeek) return undefined;
  return { extractor, auto: autoPrefixMode, upperBound, upperInclusive, bytewise, active: true };
}

/**
 * RocksDB's IsSameLengthImmediateSuccessor (bytewise): `t` is `s` with its last non-0xff
 * byte incremented and the 0xff bytes after it 0x00, so no key of prefix `s` reaches `t`.
 */
function isSameLengthImmediateSuccessor(s: Uint8Array, t: Uint8Array): boolean {
  const n = s.length;
  if (n !== t.length || n === 0) return false;
  let i = 0;
  while (i < n && s[i] === t[i]) i++;
  if (i >= n) return false;
  if (s[i] === 0xff || s[i]! + 1 !== t[i]) return false;
  for (let j = i + 1; j < n; j++) if (s[j] !== 0xff || t[j] !== 0x00) return false;
  return true;
}

/**
 * autoPrefixMode (RocksDB's FullFilterBlockReader::IsFilterCompatible): every key from a
 * key of prefix `prefix` up to the upper bound has that prefix.
 */
function upperBoundCompatible(p: PrefixSeek, prefix: Uint8Array): boolean {
  const upper = p.upperBound;
  if (upper === undefined || !p.extractor.inDomain(upper)) return false;
  if (samePrefix(p.extractor.transform(upper), prefix)) return true;
  if (p.upperInclusive || !p.bytewise) return false;
  const full = p.extractor.fullLength;
  return (
    full !== undefined && upper.length === full && isSameLengthImmediateSuccessor(prefix, upper)
  );
}

/** What answers whether a source may hold keys of a prefix: a table reader, a memtable's bloom. */
export interface PrefixFilter {
  prefixMayMatch(prefix: Uint8Array): boolean;
}

/**
 * A table's (or memtable's) iterator that answers a seek whose key's prefix the source's
 * prefix filter rules out by becoming invalid, without reading the source (RocksDB's
 * BlockBasedTableIterator::CheckPrefixMayMatch, and MemTableIterator::Seek with the memtable
 * prefix bloom). Every other move goes to the inner iterator.
 */
export class PrefixFilteredIterator implements InternalIterator {
  /** The last seek was ruled out by the filter. */
  private skipped = false;

  constructor(
    private readonly inner: InternalIterator,
    private readonly reader: PrefixFilter,
    private readonly p: PrefixSeek,
  ) {}

  /** Whether `internalKey`'s prefix is certainly not in the table. */
  private ruledOut(internalKey: Uint8Array, backward: boolean): boolean {
    const p = this.p;
    if (!p.active || (backward && p.auto)) return false;
    const user = internalKey.subarray(0, internalKey.length - 8);
    const e = p.extractor;
    if (!e.inDomain(user)) return false;
    const prefix = e.transform(user);
    if (p.auto && !upperBoundCompatible(p, prefix)) return false;
    return !this.reader.prefixMayMatch(prefix);
  }

  valid(): boolean {
    return !this.skipped && this.inner.valid();
  }

  seek(target: Uint8Array): void {
    this.skipped = this.ruledOut(target, false);
    if (!this.skipped) this.inner.seek(target);
  }

  seekForPrev(target: Uint8Array): void {
    this.skipped = this.ruledOut(target, true);
    if (!this.skipped) this.inner.seekForPrev(target);
  }

  seekToFirst(): void {
    this.skipped = false;
    this.inner.seekToFirst();
  }

  seekToLast(): void {
    this.skipped = false;
    this.inner.seekToLast();
  }

  next(): void {
    this.inner.next();
  }

  prev(): void {
    this.inner.prev();
  }

  key(): Uint8Array {
    return this.inner.key();
  }

  value(): Uint8Array {
    return this.inner.value();
  }

  isValuePinned(): boolean {
    return this.inner.isValuePinned?.() === true;
  }

  userKeyDiffersAt(): number {
    const inner = this.inner;
    return inner.userKeyDiffersAt !== undefined ? inner.userKeyDiffersAt() : -1;
  }

  close(): void {
    this.inner.close();
  }
}

/** `reader`'s iterator, filtered by prefix when the table's prefix filter is `p`'s extractor's. */
export function prefixFiltered(
  inner: InternalIterator,
  reader: TableReader,
  p: PrefixSeek | undefined,
): InternalIterator {
  return p !== undefined && reader.prefixExtractorName === p.extractor.name
    ? new PrefixFilteredIterator(inner, reader, p)
    : inner;
}

/**
 * A memtable's iterator, filtered by prefix when the memtable has a prefix bloom: the
 * memtable's filter was made with the family's extractor, the one `p` seeks with.
 */
export function memTablePrefixFiltered(
  inner: InternalIterator,
  bloom: MemTableBloom | undefined,
  p: PrefixSeek | undefined,
): InternalIterator {
  return p !== undefined && bloom?.hasPrefixes === true
    ? new PrefixFilteredIterator(inner, bloom, p)
    : inner;
}

/**
 * RocksDB's LevelIterator rule for prefix seeks: a seek that had to move on to a later file
 * of the level (the file it landed in had nothing, perhaps ruled out by its filter) and
 * landed on a key of another prefix than the target's ends the level's part of the seek.
 * True when the level should be invalidated. Only in plain prefix mode (not autoPrefixMode).
 */
export function leftTargetPrefix(p: PrefixSeek, target: Uint8Array, key: Uint8Array): boolean {
  if (!p.active) return false;
  const extractor = p.extractor;
  const t = target.subarray(0, target.length - 8);
  if (!extractor.inDomain(t)) return false;
  const k = key.subarray(0, key.length - 8);
  return !extractor.inDomain(k) || !samePrefix(extractor.transform(t), extractor.transform(k));
}
