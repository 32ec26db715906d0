/**
 * What an operation list may do next: the families that exist, the live snapshots, and
 * which keys a single delete may take (RocksDB's contract: a key put exactly once since its
 * last single delete, never mixed with Deletes, Merges or range deletions: once one of those
 * lands on a key with writes below it, the key is never single-deleted again, since a
 * SingleDelete/Put pair that vanishes in a compaction hides the older entries of its stripe,
 * the Delete among them). The generator asks it
 * before each operation; `checkOps` runs it over a whole list (a shrunk list must still be
 * one a correct database can run).
 */
import { ingestOrder, type Op, type WriteOp } from "./ops.js";

/**
 * A key's writes: none (no entry: nothing, or Put/SingleDelete pairs that cancel out), one
 * Put on top of that ("once"), or anything else ("more", for good).
 */
type KeyHistory = "once" | "more";

export class Tracker {
  /** Families that exist, `default` first. */
  readonly families: string[] = ["default"];
  /** Every family name ever created (a name is never reused). */
  readonly everCreated = new Set<string>(["default"]);
  readonly snapshots = new Set<number>();
  nextSnapshot = 0;
  /** Per family: keys with writes that a SingleDelete has not cancelled. */
  private readonly history = new Map<string, Map<string, KeyHistory>>([["default", new Map()]]);

  /** True if a single delete of `k` in `cf` keeps RocksDB's contract. */
  singleDeletable(cf: string, k: string): boolean {
    return this.history.get(cf)?.get(k) === "once";
  }

  /** The keys of `cf` a single delete may take now. */
  singleDeletableKeys(cf: string): string[] {
    const h = this.history.get(cf);
    if (h === undefined) return [];
    const out: string[] = [];
    for (const [k, v] of h) if (v === "once") out.push(k);
    return out;
  }

  hasFamily(cf: string): boolean {
    return this.history.has(cf);
  }

  /** Why `w` may not run now (undefined: it may). */
  checkWrite(w: WriteOp): string | undefined {
    if (!this.history.has(w.cf)) return `family ${w.cf} does not exist`;
    if (w.t === "sdel" && !this.singleDeletable(w.cf, w.k))
      return `single delete of ${w.cf}/${w.k}, not put exactly once since its last delete`;
    if (w.t === "drange" && !(w.s < w.e)) return `empty range [${w.s}, ${w.e})`;
    return undefined;
  }

  applyWrite(w: WriteOp): void {
    const h = this.history.get(w.cf);
    if (h === undefined) return;
    switch (w.t) {
      case "put":
        h.set(w.k, h.has(w.k) ? "more" : "once");
        return;
      case "del":
        // Over a key with writes below, a Delete breaks the promise for good: a pair that
        // vanishes above it hides it, and what it deleted shows again (RocksDB's outcome).
        if (h.has(w.k)) h.set(w.k, "more");
        return;
      case "sdel":
        h.delete(w.k);
        return;
      case "merge":
        h.set(w.k, "more");
        return;
      case "drange":
        // A key under a range tombstone keeps its put below it: no single delete until a
        // point delete. (A key with no write since its last delete has nothing below.)
        for (const k of h.keys()) if (k >= w.s && k < w.e) h.set(k, "more");
        return;
    }
  }

  /** Why `op` may not run now (undefined: it may); applies it if it may. */
  step(op: Op): string | undefined {
    const why = this.check(op);
    if (why === undefined) this.apply(op);
    return why;
  }

  private check(op: Op): string | undefined {
    switch (op.t) {
      case "put":
      case "del":
      case "sdel":
      case "merge":
      case "drange":
        return this.checkWrite(op);
      case "batch": {
        // Checked in order on a copy: a batch may put a key and single-delete it.
        const copy = this.copy();
        for (const w of op.ops) {
          const why = copy.checkWrite(w);
          if (why !== undefined) return why;
          copy.applyWrite(w);
        }
        return undefined;
      }
      case "txn": {
        const copy = this.copy();
        for (const w of op.ops) {
          if (w.t !== "put" && w.t !== "del" && w.t !== "merge") return `${w.t} in a transaction`;
          const why = copy.checkWrite(w);
          if (why !== undefined) return why;
          copy.applyWrite(w);
        }
        for (const r of op.reads) if (!this.hasFamily(r.cf)) return `family ${r.cf} does not exist`;
        if (op.conflict !== undefined) {
          const c = op.conflict;
          if (!op.ops.some((w) => w.cf === c.cf && "k" in w && w.k === c.k))
            return "the conflicting write is to a key the transaction did not write";
        }
        return undefined;
      }
      case "ingest": {
        if (op.ops.length === 0) return "an ingested file with no entries";
        let last: string | undefined;
        for (const w of op.ops) {
          if (w.cf !== op.cf) return `an ingested entry of family ${w.cf} in a file for ${op.cf}`;
          const why = this.checkWrite(w);
          if (why !== undefined) return why;
          if (w.t === "drange") continue;
          if (last !== undefined && !(w.k > last))
            return `ingested keys out of order or repeated: ${last} then ${w.k}`;
          last = w.k;
        }
        return undefined;
      }
      case "get":
      case "iter":
        if (!this.hasFamily(op.cf)) return `family ${op.cf} does not exist`;
        if (op.snap !== undefined && !this.snapshots.has(op.snap))
          return `snapshot ${op.snap} is not live`;
        return undefined;
      case "prefix":
      case "flush":
      case "compact":
        return this.hasFamily(op.cf) ? undefined : `family ${op.cf} does not exist`;
      case "snap":
        return this.snapshots.has(op.id) ? `snapshot ${op.id} exists` : undefined;
      case "release":
        return this.snapshots.has(op.id) ? undefined : `snapshot ${op.id} is not live`;
      case "checkpoint":
      case "reopen":
        return undefined;
      case "createCf":
        return this.everCreated.has(op.cf) ? `family ${op.cf} was created before` : undefined;
      case "dropCf":
        return op.cf !== "default" && this.hasFamily(op.cf)
          ? undefined
          : `family ${op.cf} cannot be dropped`;
    }
  }

  private apply(op: Op): void {
    switch (op.t) {
      case "put":
      case "del":
      case "sdel":
      case "merge":
      case "drange":
        this.applyWrite(op);
        return;
      case "batch":
        for (const w of op.ops) this.applyWrite(w);
        return;
      case "ingest":
        for (const w of ingestOrder(op.ops)) this.applyWrite(w);
        return;
      case "txn":
        if (op.conflict !== undefined) this.applyWrite({ t: "put", ...op.conflict });
        else for (const w of op.ops) this.applyWrite(w);
        return;
      case "snap":
        this.snapshots.add(op.id);
        this.nextSnapshot = Math.max(this.nextSnapshot, op.id + 1);
        return;
      case "release":
        this.snapshots.delete(op.id);
        return;
      case "reopen":
        this.snapshots.clear();
        return;
      case "createCf":
        this.families.push(op.cf);
        this.everCreated.add(op.cf);
        this.history.set(op.cf, new Map());
        return;
      case "dropCf":
        this.families.splice(this.families.indexOf(op.cf), 1);
        this.history.delete(op.cf);
        return;
      default:
        return;
    }
  }

  /** An independent copy (to try writes on). */
  copy(): Tracker {
    const t = new Tracker();
    t.families.splice(0, t.families.length, ...this.families);
    for (const n of this.everCreated) t.everCreated.add(n);
    t.history.clear();
    for (const [cf, h] of this.history) t.history.set(cf, new Map(h));
    return t;
  }
}

/** Why `ops` is not a list a correct database can run (undefined: it is). */
export function checkOps(ops: readonly Op[]): string | undefined {
  const t = new Tracker();
  for (const [i, op] of ops.entries()) {
    const why = t.step(op);
    if (why !== undefined) return `op ${i}: ${why}`;
  }
  return undefined;
}
