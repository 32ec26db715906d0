/**
 * A memtable's range tombstones (`[start, end)@seq`), kept apart from its point entries as
 * RocksDB keeps `range_del_table_` apart from `table_`: entries of kind RangeDeletion in the
 * memtable's arena (start as the user key, end as the value; entry.ts), ordered in a B+tree
 * of their own, made by the first tombstone (most memtables have none), and listed in
 * insertion order as views into the arena. Lookups go through a cache of the fragmented
 * list, made on first use (range-tombstone-cache.ts).
 */
import {
  type Comparator,
  invariants,
  type RangeTombstone,
  ShaleError,
  TRAILER_SIZE,
  trailerSeq,
  ValueKind,
} from "@shale/base";
import type { FragmentedRangeTombstoneList } from "@shale/range-tombstones";
import type { Arena } from "./arena.js";
import { BTree, type TreeRoots } from "./btree.js";
import { checkInserted, checkTree } from "./btree-check.js";
import { readVarint32, storeEntry, varintEnd } from "./entry.js";
import { duplicateError } from "./memtable-errors.js";
import { RangeTombstoneCache } from "./range-tombstone-cache.js";

export class MemTableTombstones {
  private readonly arena: Arena;
  private readonly comparator: Comparator;
  /** The tombstones' tree, made by the first tombstone. */
  private tree: BTree | undefined = undefined;
  /** The tombstones in insertion order, views into the arena; append-only. */
  readonly list: RangeTombstone[] = [];
  /** Their entry addresses, in the same order (exported with the memtable). */
  private readonly addresses: number[] = [];
  /**
   * Answers maxCoveringSeq; made on first use (most memtables have no tombstone, and a small
   * one made often notices each object).
   */
  private cache: RangeTombstoneCache | undefined = undefined;

  /**
   * No tombstones, or (`roots` and `addresses` given) those of an exported memtable whose
   * arena is `arena`.
   */
  constructor(arena: Arena, comparator: Comparator, roots?: TreeRoots, addresses?: Int32Array) {
    this.arena = arena;
    this.comparator = comparator;
    if (roots === undefined) return;
    this.tree = new BTree(arena, comparator, roots);
    if (addresses === undefined) return;
    for (let i = 0; i < addresses.length; i++) {
      this.addresses.push(addresses[i]!);
      this.addView(addresses[i]!);
    }
  }

  /** Tombstones added. */
  get count(): number {
    return this.list.length;
  }

  /** Bytes of the address list (approximateMemoryUsage). */
  get addressBytes(): number {
    return this.addresses.length * 4;
  }

  /**
   * Adds `[start, end)@seq` (arguments checked by the caller but for the order of start and
   * end). InvalidArgument if start > end or the tombstone is there already.
   */
  add(seq: number, start: Uint8Array, end: Uint8Array): void {
    if (this.comparator.compare(start, end) > 0) {
      throw ShaleError.invalidArgument("range tombstone start is after its end");
    }
    const tree = this.ensureTree();
    tree.setTargetUser(start, seq, ValueKind.RangeDeletion);
    if (!tree.prepareInsert()) throw duplicateError(seq, ValueKind.RangeDeletion);
    const address = storeEntry(
      this.arena,
      start,
      tree.targetSeqHigh,
      tree.targetSeqLow,
      ValueKind.RangeDeletion,
      end,
    );
    tree.insert(address);
    if (invariants) checkInserted(tree, address);
    this.addresses.push(address);
    this.addView(address);
  }

  /** See MemTable.maxCoveringTombstoneSeq. */
  maxCoveringSeq(userKey: Uint8Array, snapshotSeq: number): number {
    if (this.list.length === 0) return 0;
    return this.rangeTombstoneCache().maxCoveringSeq(userKey, snapshotSeq);
  }

  /** See MemTable.fragmentedRangeTombstones. */
  fragmented(): FragmentedRangeTombstoneList {
    return this.rangeTombstoneCache().fragmented();
  }

  /** The tree's roots for an export; an empty tree is made if none was (the format has one). */
  exportRoots(): TreeRoots {
    return this.ensureTree().roots;
  }

  /** The addresses for an export, in shared memory. */
  exportAddresses(): SharedArrayBuffer {
    const addresses = new Int32Array(new SharedArrayBuffer(this.addresses.length * 4));
    for (let i = 0; i < addresses.length; i++) addresses[i] = this.addresses[i]!;
    return addresses.buffer as SharedArrayBuffer;
  }

  /** Entries in the tree, checked (checkTree: order, slices, links, counts). */
  checkedCount(): number {
    return this.tree === undefined ? 0 : checkTree(this.tree);
  }

  /** The cache of fragmented range tombstones, made on first use. */
  private rangeTombstoneCache(): RangeTombstoneCache {
    let cache = this.cache;
    if (cache === undefined) {
      cache = new RangeTombstoneCache(this.list, this.comparator);
      this.cache = cache;
    }
    return cache;
  }

  /** The tree, made on first use. */
  private ensureTree(): BTree {
    let tree = this.tree;
    if (tree === undefined) {
      tree = new BTree(this.arena, this.comparator);
      this.tree = tree;
    }
    return tree;
  }

  private addView(address: number): void {
    const arena = this.arena;
    const chunk = arena.entryChunks[address >>> arena.shift]!;
    const ikeyLength = readVarint32(chunk, address & arena.mask);
    const start = varintEnd;
    const t = start + ikeyLength - TRAILER_SIZE;
    const endLength = readVarint32(chunk, t + TRAILER_SIZE);
    const end = varintEnd;
    this.list.push({
      start: chunk.subarray(start, t),
      end: chunk.subarray(end, end + endLength),
      seq: trailerSeq(chunk, t),
    });
  }
}
