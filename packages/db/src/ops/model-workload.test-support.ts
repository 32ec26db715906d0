/**
 * A random workload over a database and a model of what it must hold (a Map), for the
 * checkpoint and backup tests: puts, deletes, range deletions and batches over 400 keys,
 * values large enough that memtables switch, flush and compact while it runs.
 */
import { Random } from "@shale/base/testing";
import type { DB } from "../db.js";
import { WriteBatch } from "../write/write-batch.js";

const decoder = new TextDecoder();
export const key = (i: number) => `key${String(i).padStart(4, "0")}`;

export class ModelWorkload {
  readonly model = new Map<string, string>();
  private readonly random: Random;
  private n = 0;

  constructor(
    private readonly db: DB,
    seed: number,
  ) {
    this.random = new Random(seed);
  }

  /** One random write, applied to the database and the model. */
  step(): void {
    const r = this.random.uniform(100);
    const k = key(this.random.uniform(400));
    this.n++;
    if (r < 70) {
      const v = `v${this.n}-${"x".repeat(this.random.uniform(200))}`;
      this.db.put(k, v);
      this.model.set(k, v);
    } else if (r < 85) {
      this.db.delete(k);
      this.model.delete(k);
    } else if (r < 90) {
      const a = this.random.uniform(400);
      const lo = key(a);
      const hi = key(a + 1 + this.random.uniform(10));
      this.db.deleteRange(lo, hi);
      for (const m of [...this.model.keys()]) if (m >= lo && m < hi) this.model.delete(m);
    } else {
      const batch = new WriteBatch();
      const staged: [string, string | undefined][] = [];
      for (let i = 0; i < 5; i++) {
        const bk = key(this.random.uniform(400));
        if (this.random.uniform(4) === 0) {
          batch.delete(bk);
          staged.push([bk, undefined]);
        } else {
          const v = `b${this.n}.${i}`;
          batch.put(bk, v);
          staged.push([bk, v]);
        }
      }
      this.db.write(batch);
      for (const [bk, v] of staged) {
        if (v === undefined) this.model.delete(bk);
        else this.model.set(bk, v);
      }
    }
  }

  /** A copy of the model now. */
  snapshot(): Map<string, string> {
    return new Map(this.model);
  }
}

/** Everything a database holds, as strings. */
export function contents(db: DB): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of db.iterator()) out.set(decoder.decode(k), decoder.decode(v));
  return out;
}

/** The event loop turns once. */
export const tick = () => new Promise<void>((r) => setImmediate(r));
