/**
 * The DB iterator of @shale/db: `newDBIterator(sources)` builds a {@link DBIterator} over
 * the point iterators and range tombstones of every source of a read (memtables, L0 tables,
 * one concatenating iterator per deeper level), at one snapshot.
 *
 * ```
 *   children (newest first) --[RangeDelSkippingIterator where a tombstone can hide a whole run]
 *        --> MergingIterator (internal-key order) --> DBIterator (user keys, resolved values)
 *   rangeTombstones --> RangeDelAggregator (per-key check in DBIterator; per-child skipping)
 * ```
 */

import {
  bytewiseComparator,
  type Comparator,
  EmptyIterator,
  type InternalIterator,
  InternalKeyComparator,
  MAX_SEQ,
  ShaleError,
  type Statistics,
  toBytes,
} from "@shale/base";
import { newMergingIterator } from "@shale/merging-iterator";
import type { FragmentedRangeTombstoneList } from "@shale/range-tombstones";
import type { PrefixExtractor } from "@shale/sstable";
import type { BlobResolver } from "../blob/blob-source.js";
import type { MergeOperator } from "../core/merge-operator.js";
import { type BackgroundPoll, DBIterator } from "./db-iterator.js";
import { emptyTableIterator, iteratorShapeKept, keepIteratorShape } from "./iterator-shape.js";
import type { PinnedIterators } from "./pinned-iterators.js";
import type { PrefixSeek } from "./prefix-seek.js";
import { maxVisibleTombstoneSeq, RangeDelAggregator } from "./range-del-aggregator.js";
import { RangeDelSkippingIterator } from "./skipping-iterator.js";
import { UserKeyOrder } from "./user-key-order.js";

export { type BackgroundPoll, DBIterator } from "./db-iterator.js";
export { PinnedIterators } from "./pinned-iterators.js";
export { RangeDelAggregator } from "./range-del-aggregator.js";
export { RangeDelSkippingIterator } from "./skipping-iterator.js";

/** Everything a DB iterator reads from; assembled by the database (not a user API). */
export interface DBIteratorSources {
  /**
   * Point-entry iterators over internal keys, NEWEST source first: the mutable memtable, the
   * immutable memtables (the database leaves out those without point entries), L0 files
   * newest first, then one concatenating iterator per level L1+ (or the table's iterator for
   * a level of one file). Owned from now on: the DB iterator closes them.
   */
  children: InternalIterator[];
  /** Range tombstones of the sources, fragmented; any order, empty lists allowed. */
  rangeTombstones: FragmentedRangeTombstoneList[];
  /** The user-key comparator. */
  comparator: Comparator;
  /** Resolves merge operands; without one, meeting operands throws InvalidArgument. */
  mergeOperator: MergeOperator | undefined;
  /** Entries (and tombstones) with a higher seq are invisible. */
  snapshotSeq: number;
  /** Inclusive lower bound on user keys. Copied. Default: none. */
  lowerBound?: Uint8Array | undefined;
  /** Exclusive upper bound on user keys. Copied. Default: none. */
  upperBound?: Uint8Array | undefined;
  /** `lowerBound` excludes itself (Level's `gt`). Default: false (inclusive, `gte`). */
  lowerExclusive?: boolean | undefined;
  /** `upperBound` includes itself (Level's `lte`). Default: false (exclusive, `lt`). */
  upperInclusive?: boolean | undefined;
  /**
   * The most entries the iterator lands on, counted over every seek and move (Level's
   * `limit`): once that many were valid, the next position is not. Default: Infinity.
   */
  limit?: number | undefined;
  /**
   * Optional, one per child (same order): an upper bound on the seq of every entry the child
   * can return that the snapshot sees — a table's (or a level's) largest seq, a memtable's
   * largest seq when the iterator is created. With it, a child jumps over every run of keys
   * deleted by a visible range tombstone newer than that bound with one seek, instead of
   * stepping through it. Default: none (every covered entry is visited and dropped).
   */
  childMaxSeqs?: readonly number[] | undefined;
  /** Only the iterable protocol's direction: for-of from the last key backwards. Default: false. */
  reverse?: boolean | undefined;
  /** Tickers IterSeeks, IterNexts, RangeDelCoveredKeys, Merge*. Default: none (no cost). */
  statistics?: Statistics | undefined;
  /** Called once by `close()`: releases what the database pinned (version, memtables). */
  onClose?: (() => void) | undefined;
  /**
   * The tables one seek positions (statistics: TablesPerSeek, recorded per seek when
   * `statistics` is set). Default: 0.
   */
  tablesPerSeek?: number | undefined;
  /** The database's background results, taken at the start of every seek. Default: none. */
  background?: BackgroundPoll | undefined;
  /** What the LevelFilesIterators among `children` were built with. Default: none. */
  pins?: PinnedIterators | undefined;
  /** Reads the values of BlobIndex entries (blob files). Default: none (meeting one is Corruption). */
  blobs?: BlobResolver | undefined;
  /** The family's prefix extractor, for `prefixSameAsStart`. Default: none. */
  prefixExtractor?: PrefixExtractor | undefined;
  /**
   * RocksDB's prefix_same_as_start: after a seek, the iterator is valid only on keys of the
   * seek key's prefix (after seekToFirst/seekToLast: of the first key's). Needs
   * `prefixExtractor`. Default: false.
   */
  prefixSameAsStart?: boolean | undefined;
  /** The prefix seek the children filter by, which the iterator switches (prefix-seek.ts). */
  prefixSeek?: PrefixSeek | undefined;
  /**
   * The family has `ttl`: values end with a 4-byte timestamp that `value()` leaves out
   * (core/ttl.ts). Default: false.
   */
  ttl?: boolean | undefined;
}

function checkSeq(seq: unknown, what: string): number {
  if (typeof seq !== "number") throw new TypeError(`${what} must be a number`);
  if (!(Number.isInteger(seq) && seq >= 0 && seq <= MAX_SEQ)) {
    throw ShaleError.invalidArgument(`${what} out of range: ${seq}`);
  }
  return seq;
}

/** The user-key order and internal-key compare function of one comparator. */
interface Orders {
  readonly order: UserKeyOrder;
  readonly compare: (a: Uint8Array, b: Uint8Array) => number;
}

/**
 * Orders per comparator: both are functions of the comparator alone, and a database makes
 * every iterator with the same one (seekrandom opens one per seek), so they are built once,
 * not per iterator.
 */
const ordersByComparator = new WeakMap<Comparator, Orders>();

function ordersOf(comparator: Comparator): Orders {
  let orders = ordersByComparator.get(comparator);
  if (orders === undefined) {
    const icmp = new InternalKeyComparator(comparator);
    orders = { order: new UserKeyOrder(comparator), compare: (a, b) => icmp.compare(a, b) };
    ordersByComparator.set(comparator, orders);
  }
  return orders;
}

/** The iterator that keeps the DB iterators' hidden classes alive (iterator-shape.ts). */
function newShapeKeeper(): DBIterator {
  return newDBIterator({
    children: [emptyTableIterator(), new EmptyIterator()],
    rangeTombstones: [],
    comparator: bytewiseComparator,
    mergeOperator: undefined,
    snapshotSeq: 0,
  });
}

/**
 * Builds a DB iterator over `sources` (unpositioned: call a seek first). Throws TypeError
 * for malformed sources and InvalidArgument for a bad snapshot or childMaxSeqs of the wrong
 * length; the children are not closed then.
 */
export function newDBIterator(sources: DBIteratorSources): DBIterator {
  if (!iteratorShapeKept()) keepIteratorShape(newShapeKeeper);
  if (typeof sources !== "object" || sources === null) {
    throw new TypeError("newDBIterator: sources must be an object");
  }
  const { children, rangeTombstones, comparator, childMaxSeqs } = sources;
  if (!Array.isArray(children)) throw new TypeError("sources.children must be an array");
  if (!Array.isArray(rangeTombstones)) {
    throw new TypeError("sources.rangeTombstones must be an array");
  }
  if (
    typeof comparator !== "object" ||
    comparator === null ||
    typeof comparator.compare !== "function"
  ) {
    throw new TypeError("sources.comparator must be a Comparator");
  }
  const snapshotSeq = checkSeq(sources.snapshotSeq, "sources.snapshotSeq");
  const limit = sources.limit ?? Number.POSITIVE_INFINITY;
  if (typeof limit !== "number" || !(limit >= 0) || limit !== Math.floor(limit)) {
    throw ShaleError.invalidArgument(`sources.limit must be an integer >= 0 or Infinity: ${limit}`);
  }
  if (childMaxSeqs !== undefined) {
    if (!Array.isArray(childMaxSeqs) || childMaxSeqs.length !== children.length) {
      throw ShaleError.invalidArgument("sources.childMaxSeqs must have one seq per child");
    }
    for (const s of childMaxSeqs) checkSeq(s, "sources.childMaxSeqs[i]");
  }
  const lowerBound =
    sources.lowerBound !== undefined
      ? toBytes(sources.lowerBound, "lowerBound").slice()
      : undefined;
  const upperBound =
    sources.upperBound !== undefined
      ? toBytes(sources.upperBound, "upperBound").slice()
      : undefined;

  const { order, compare } = ordersOf(comparator);
  let lists: FragmentedRangeTombstoneList[] = rangeTombstones;
  for (const list of rangeTombstones) {
    if (list.isEmpty) {
      lists = rangeTombstones.filter((l) => !l.isEmpty);
      break;
    }
  }
  let inputs: InternalIterator[] = children;
  if (lists.length > 0 && childMaxSeqs !== undefined) {
    const newest = maxVisibleTombstoneSeq(lists, snapshotSeq);
    inputs = children.map((child, i) => {
      const bound = childMaxSeqs[i]!;
      return bound < newest
        ? new RangeDelSkippingIterator(
            child,
            new RangeDelAggregator(lists, order, snapshotSeq, bound),
          )
        : child;
    });
  }
  const merged = newMergingIterator(inputs, compare, {
    bytewiseInternalKeys: comparator === bytewiseComparator,
  });
  return new DBIterator({
    iter: merged,
    order,
    mergeOperator: sources.mergeOperator,
    snapshotSeq,
    lowerBound,
    upperBound,
    lowerExclusive: sources.lowerExclusive === true,
    upperInclusive: sources.upperInclusive === true,
    limit,
    rangeDel: lists.length > 0 ? new RangeDelAggregator(lists, order, snapshotSeq) : undefined,
    statistics: sources.statistics,
    reverse: sources.reverse === true,
    onClose: sources.onClose,
    background: sources.background,
    tablesPerSeek: sources.tablesPerSeek ?? 0,
    pins: sources.pins,
    blobs: sources.blobs,
    prefixExtractor: sources.prefixSameAsStart === true ? sources.prefixExtractor : undefined,
    prefixSeek: sources.prefixSeek,
    ttl: sources.ttl === true,
  });
}
