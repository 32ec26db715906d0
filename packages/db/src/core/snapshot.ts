/**
 * Snapshots: a sequence number that reads can be pinned to. A read at snapshot S sees, for
 * each key, the newest entry with seq <= S. Live snapshots also tell compaction which old
 * versions must be kept.
 */
import { ShaleError } from "@shale/base";

export class Snapshot {
  readonly seq: number;
  private list: SnapshotList | undefined;
  /** The database's list it was made in (kept after release, to tell databases apart). */
  private readonly owner: SnapshotList;

  /** @internal created by `db.snapshot()`. */
  constructor(seq: number, list: SnapshotList) {
    this.seq = seq;
    this.list = list;
    this.owner = list;
  }

  /** @internal true if `list` made this snapshot. */
  belongsTo(list: SnapshotList): boolean {
    return this.owner === list;
  }

  /** Lets compaction drop what only this snapshot could see. Idempotent. */
  release(): void {
    this.list?.remove(this);
    this.list = undefined;
  }

  get released(): boolean {
    return this.list === undefined;
  }
}

/** The live snapshots of a database, oldest first. */
export class SnapshotList {
  private readonly items: Snapshot[] = [];

  create(seq: number): Snapshot {
    const s = new Snapshot(seq, this);
    this.items.push(s); // seqs only grow, so the list stays sorted
    return s;
  }

  remove(s: Snapshot): void {
    const i = this.items.indexOf(s);
    if (i >= 0) this.items.splice(i, 1);
  }

  get size(): number {
    return this.items.length;
  }

  /** Sequence numbers of live snapshots, ascending (may repeat). */
  sequences(): number[] {
    return this.items.map((s) => s.seq);
  }

  oldest(): number | undefined {
    return this.items[0]?.seq;
  }

  /**
   * Checks a snapshot passed in read options and returns its sequence number: a TypeError
   * unless it is a Snapshot; InvalidArgument if another database made it (its sequence
   * numbers mean nothing here) or it was released (compaction may have dropped what it saw).
   */
  check(s: unknown): number {
    if (!(s instanceof Snapshot))
      throw new TypeError("readOptions.snapshot must come from db.snapshot()");
    if (!s.belongsTo(this))
      throw ShaleError.invalidArgument("readOptions.snapshot belongs to another database");
    if (s.released) throw ShaleError.invalidArgument("readOptions.snapshot was released");
    return s.seq;
  }
}
