/**
 * The model a metamorphic run is checked against: each column family a sorted map (plain
 * strings; every key is ASCII, so string order is byte order), snapshots as copies of the
 * state, and the result text of every operation — what a correct database prints.
 *
 * `ModelState` is the data alone (the runner keeps one too, to tell which writes a power cut
 * took); `Model` executes operations and renders their results with the functions below,
 * which the runner shares, so both print alike.
 */
import { type IterStep, ingestOrder, type Op, PREFIX_LENGTH, type WriteOp } from "./ops.js";

/** The merge operator of every run: RocksDB's "stringappend" with its "," delimiter. */
export function appendOperand(old: string | undefined, operand: string): string {
  return old === undefined ? operand : `${old},${operand}`;
}

/** The data of the column families by name. */
export class ModelState {
  readonly families = new Map<string, Map<string, string>>([["default", new Map()]]);

  clone(): ModelState {
    const c = new ModelState();
    c.families.clear();
    for (const [name, kv] of this.families) c.families.set(name, new Map(kv));
    return c;
  }

  family(cf: string): Map<string, string> | undefined {
    return this.families.get(cf);
  }

  /** Applies a write; a write to a family that does not exist is ignored. */
  apply(w: WriteOp): void {
    const kv = this.families.get(w.cf);
    if (kv === undefined) return;
    switch (w.t) {
      case "put":
        kv.set(w.k, w.v);
        return;
      case "del":
      case "sdel":
        kv.delete(w.k);
        return;
      case "merge":
        kv.set(w.k, appendOperand(kv.get(w.k), w.v));
        return;
      case "drange":
        for (const k of [...kv.keys()]) if (k >= w.s && k < w.e) kv.delete(k);
        return;
    }
  }

  /** The entries of `cf` in [lo, hi), sorted (empty for a family that does not exist). */
  sorted(cf: string, lo?: string, hi?: string): [string, string][] {
    const kv = this.families.get(cf);
    if (kv === undefined) return [];
    const out: [string, string][] = [];
    for (const e of kv) {
      if ((lo === undefined || e[0] >= lo) && (hi === undefined || e[0] < hi)) out.push(e);
    }
    return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }

  /** Every family and its entries, in one text (to compare whole databases). */
  dump(): string {
    const names = [...this.families.keys()].sort();
    return names
      .map(
        (n) =>
          `${n}{${this.sorted(n)
            .map(([k, v]) => `${k}=${v}`)
            .join(" ")}}`,
      )
      .join(" ");
  }
}

/** The rendering of a point read's result. */
export function renderValue(v: string | undefined): string {
  return v === undefined ? "-" : v;
}

/** Runs `steps` over sorted `entries` as an iterator would: one token per step. */
export function iterateModel(entries: [string, string][], steps: readonly IterStep[]): string {
  let pos = -1;
  const out: string[] = [];
  for (const s of steps) {
    if (s === "first") pos = entries.length > 0 ? 0 : -1;
    else if (s === "last") pos = entries.length - 1;
    else if (s === "next") pos = pos < 0 || pos + 1 >= entries.length ? -1 : pos + 1;
    else if (s === "prev") pos = pos < 0 ? -1 : pos - 1;
    else if ("seek" in s) pos = entries.findIndex(([k]) => k >= s.seek);
    else {
      pos = -1;
      for (let i = entries.length - 1; i >= 0; i--) {
        if (entries[i]![0] <= s.seekForPrev) {
          pos = i;
          break;
        }
      }
    }
    out.push(pos < 0 ? "." : `${entries[pos]![0]}=${entries[pos]![1]}`);
  }
  return out.join(" ");
}

/** The keys a prefix seek yields: from `k` on, sharing its prefix, at most `n`. */
export function prefixModel(entries: [string, string][], k: string, n: number): string {
  const prefix = k.slice(0, PREFIX_LENGTH);
  const out: string[] = [];
  for (const [key, v] of entries) {
    if (out.length >= n) break;
    if (key < k) continue;
    if (key.slice(0, PREFIX_LENGTH) !== prefix) break;
    out.push(`${key}=${v}`);
  }
  return out.join(" ");
}

/** Executes operations on the model state; `exec` returns what a correct database prints. */
export class Model {
  readonly state = new ModelState();
  private readonly snaps = new Map<number, ModelState>();

  exec(op: Op): string {
    const s = this.state;
    switch (op.t) {
      case "put":
      case "del":
      case "sdel":
      case "merge":
      case "drange":
        s.apply(op);
        return "ok";
      case "batch":
        for (const w of op.ops) s.apply(w);
        return "ok";
      case "ingest":
        for (const w of ingestOrder(op.ops)) s.apply(w);
        return "ok";
      case "txn": {
        const view = s.clone();
        for (const w of op.ops) view.apply(w);
        const reads = op.reads.map(({ cf, k }) => renderValue(view.family(cf)?.get(k)));
        if (op.conflict !== undefined) {
          const { cf, k, v } = op.conflict;
          s.apply({ t: "put", cf, k, v });
          return `conflict ${reads.join(" ")}`;
        }
        for (const w of op.ops) s.apply(w);
        return `committed ${reads.join(" ")}`;
      }
      case "get": {
        const from = op.snap === undefined ? s : this.snaps.get(op.snap);
        return renderValue(from?.family(op.cf)?.get(op.k));
      }
      case "iter": {
        const from = op.snap === undefined ? s : this.snaps.get(op.snap);
        return iterateModel(from?.sorted(op.cf, op.lo, op.hi) ?? [], op.steps);
      }
      case "prefix":
        return prefixModel(s.sorted(op.cf), op.k, op.n);
      case "snap":
        this.snaps.set(op.id, s.clone());
        return "ok";
      case "release":
        this.snaps.delete(op.id);
        return "ok";
      case "flush":
      case "compact":
        return "ok";
      case "checkpoint":
        return s.dump();
      case "reopen":
        this.snaps.clear();
        return "ok";
      case "createCf":
        s.families.set(op.cf, new Map());
        return "ok";
      case "dropCf":
        s.families.delete(op.cf);
        return "ok";
    }
  }
}
