/**
 * The point-lookup side of a memtable's range tombstones: `maxCoveringSeq(userKey, snapshot)`
 * over the raw, append-only list of tombstones (views into the arena, insertion order).
 *
 * RocksDB's MemTable caches a FragmentedRangeTombstoneList, drops it when a range deletion
 * is added and rebuilds it on the next read. Here:
 *
 * ```
 *   tombstones  [t0 t1 t2 ... t(built-1) | t(built) ... t(n-1)]
 *                \_______ list _________/ \______ tail ______/
 *                fragmented once,           added since the list was built,
 *                O(log F + log S) a lookup  scanned linearly by each lookup
 *
 *   n <= linearMax         scan all n linearly (no list; the common case costs nothing)
 *   n >  linearMax         first read: build the list over all n
 *                          later reads: max(list lookup, scan of the tail); rebuild once
 *                          the tail scans since the last build add up to the estimated
 *                          cost of a rebuild (REBUILD_VISITS per tombstone)
 * ```
 *
 * The tail rule is ski rental: a reader pays at most about twice what the best schedule of
 * rebuilds would have cost. Rebuilding on the first read after every add (RocksDB) makes
 * alternating `add(RangeDeletion)` / `get` cost a whole fragmentation per get (135-170 ms at
 * 50k tombstones, against 0.7 ms for a linear scan); with the tail rule it costs a list
 * lookup plus a short scan, and a rebuild every few thousand adds (~19 us per add + get at
 * 50k, memtable-tombstone-bench). After a batch of b adds the next reads scan the b new
 * tombstones, and the list is rebuilt after 64 n / b of them: soon after a large batch,
 * late after a small one, whose scan costs little.
 *
 * Memory: the raw list is the memtable's own (views into the arena). The fragmented list
 * copies its boundary keys into one packed buffer (@shale/range-tombstones does so for lookup
 * locality; about the tombstones' key bytes) and holds per fragment two key views and its
 * stack; it is dropped at the next rebuild or with the memtable.
 *
 * Thread-safety: one thread (reads build the list: they mutate this cache).
 */
import type { Comparator, RangeTombstone } from "@shale/base";
import { FragmentedRangeTombstoneList } from "@shale/range-tombstones";

/**
 * Up to this many tombstones a lookup scans them all (and nothing is built). Measured with
 * 16-byte keys: a scan costs 14-17 ns per tombstone (68 ns for 4, 133 ns for 8), a list
 * lookup 56 ns at 4 tombstones and 69 ns at 8; below 4 they are within noise of each other.
 */
export const LINEAR_MAX = 4;

/**
 * Estimated cost of fragmenting, per tombstone, in tombstones scanned linearly: building the
 * list over n tombstones took as long as 33-95 scans of all n (n = 16 .. 50k, 16-byte keys).
 */
export const REBUILD_VISITS = 64;

/** Highest seq <= snapshotSeq (and > best) of ts[from, to) covering userKey; else best. */
function scan(
  ts: readonly RangeTombstone[],
  from: number,
  to: number,
  c: Comparator,
  userKey: Uint8Array,
  snapshotSeq: number,
  best: number,
): number {
  for (let i = from; i < to; i++) {
    const t = ts[i]!;
    if (
      t.seq <= snapshotSeq &&
      t.seq > best &&
      c.compare(t.start, userKey) <= 0 &&
      c.compare(userKey, t.end) < 0
    ) {
      best = t.seq;
    }
  }
  return best;
}

export class RangeTombstoneCache {
  private list: FragmentedRangeTombstoneList | undefined;
  /** Number of tombstones (a prefix of `tombstones`) the list was built from. */
  private built = 0;
  /** Tombstones scanned in tails since the list was built. */
  private tailVisits = 0;

  /**
   * @param tombstones the memtable's raw tombstones: only ever appended to, by the owner.
   * @param linearMax scan linearly up to this many tombstones. Default: LINEAR_MAX.
   */
  constructor(
    private readonly tombstones: readonly RangeTombstone[],
    private readonly comparator: Comparator,
    private readonly linearMax: number = LINEAR_MAX,
  ) {}

  /** Highest seq of a tombstone covering `userKey` with seq <= snapshotSeq; 0 if none. */
  maxCoveringSeq(userKey: Uint8Array, snapshotSeq: number): number {
    const ts = this.tombstones;
    const n = ts.length;
    if (n <= this.linearMax) return scan(ts, 0, n, this.comparator, userKey, snapshotSeq, 0);
    let list = this.list;
    let from = this.built;
    if (list === undefined || from < n) {
      this.tailVisits += n - from;
      if (list === undefined || this.tailVisits >= REBUILD_VISITS * n) {
        list = this.rebuild();
        from = n;
      }
    }
    const best = list.maxCoveringSeq(userKey, snapshotSeq);
    return from === n ? best : scan(ts, from, n, this.comparator, userKey, snapshotSeq, best);
  }

  /** The fragmented list of every tombstone so far (built now if out of date). */
  fragmented(): FragmentedRangeTombstoneList {
    const list = this.list;
    return list !== undefined && this.built === this.tombstones.length ? list : this.rebuild();
  }

  /** Tombstones the cached list was built from (0 before the first build; for tests). */
  get numBuilt(): number {
    return this.built;
  }

  private rebuild(): FragmentedRangeTombstoneList {
    const list = new FragmentedRangeTombstoneList(this.tombstones, this.comparator);
    this.list = list;
    this.built = this.tombstones.length;
    this.tailVisits = 0;
    return list;
  }
}
