/**
 * Optimistic transactions against a model of snapshot isolation with write-conflict
 * detection. A random schedule interleaves the steps of a few transactions (get,
 * getForUpdate, put, delete, commit) with plain writes; the model keeps every committed
 * version of every key with a logical time, and checks:
 *
 * - reads: a transaction sees its own writes over the state at its snapshot (or, without
 *   one, the latest state);
 * - a commit succeeds exactly when no tracked key (written or read with getForUpdate) was
 *   written by anyone else after it was tracked — so every success is serializable with
 *   respect to its tracked keys at its commit point, and every Busy is a real conflict
 *   (none for disjoint keys);
 * - the database ends equal to the committed writes applied in commit order (a serial
 *   order of the transactions that committed).
 *
 * Run once on the default family alone, and once over two column families that hold the
 * same key names (a key of one family never conflicts with its namesake in the other).
 */
import { isShaleError, MemoryFileSystem } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ColumnFamilyHandle } from "../column-family/handle.js";
import { DB } from "../db.js";
import type { Transaction } from "./transaction.js";

const dec = new TextDecoder();
const str = (b: Uint8Array | undefined) => (b === undefined ? undefined : dec.decode(b));
/** Key names per family; model keys 0..SLOTS-1 are (family k / KEYS, name k % KEYS). */
const KEYS = 5;
const SLOTS = 2 * KEYS;
const key = (i: number) => `k${i % KEYS}`;

type Step =
  | { who: number; op: "get" | "getForUpdate" | "delete"; k: number }
  | { who: number; op: "put"; k: number; v: number }
  | { who: number; op: "commit" }
  | { who: -1; op: "plainPut"; k: number; v: number };

const TXNS = 4;
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    who: fc.nat(TXNS - 1),
    op: fc.constantFrom("get" as const, "getForUpdate" as const, "delete" as const),
    k: fc.nat(SLOTS - 1),
  }),
  fc.record({
    who: fc.nat(TXNS - 1),
    op: fc.constant("put" as const),
    k: fc.nat(SLOTS - 1),
    v: fc.nat(99),
  }),
  fc.record({ who: fc.nat(TXNS - 1), op: fc.constant("commit" as const) }),
  fc.record({
    who: fc.constant(-1 as const),
    op: fc.constant("plainPut" as const),
    k: fc.nat(SLOTS - 1),
    v: fc.nat(99),
  }),
);

/** Committed versions per key: [time, value | undefined (deleted)], oldest first. */
class Model {
  time = 0;
  readonly versions: [number, string | undefined][][] = Array.from({ length: SLOTS }, () => []);

  valueAt(k: number, t: number): string | undefined {
    const vs = this.versions[k]!;
    for (let i = vs.length - 1; i >= 0; i--) if (vs[i]![0] <= t) return vs[i]![1];
    return undefined;
  }

  writtenAfter(k: number, t: number): boolean {
    const vs = this.versions[k]!;
    return vs.length > 0 && vs[vs.length - 1]![0] > t;
  }

  write(k: number, v: string | undefined): void {
    this.versions[k]!.push([++this.time, v]);
  }
}

interface TxnModel {
  txn: Transaction;
  begin: number;
  snapshot: boolean;
  /** key -> time it was first tracked */
  tracked: Map<number, number>;
  /** own writes, in order: key -> value (undefined: deleted) */
  writes: Map<number, string | undefined>;
}

describe("optimistic transactions: snapshot isolation model", () => {
  it("commits exactly the conflict-free transactions, with the right reads and final state", async () => {
    await runModel(false);
  });

  it("does so over two column families holding the same key names", async () => {
    await runModel(true);
  });
});

/**
 * `twoFamilies`: model keys KEYS.. go to family "b"; else every model key k is the default
 * family's `key(k)`, and keys k and k + KEYS are the same key.
 */
async function runModel(twoFamilies: boolean): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.array(stepArb, { minLength: 1, maxLength: 60 }),
      fc.array(fc.boolean(), { minLength: TXNS, maxLength: TXNS }),
      async (steps, snapshots) => {
        const db = await DB.open("/db", {
          fs: new MemoryFileSystem(),
          ...(twoFamilies ? { columnFamilies: { b: {} }, createMissingColumnFamilies: true } : {}),
        });
        const b = twoFamilies ? db.columnFamily("b") : undefined;
        /** The family of model key k (undefined: default). */
        const fam = (k: number): ColumnFamilyHandle | undefined => (k >= KEYS ? b : undefined);
        /** Model key k as the model keeps it (one family: k and k + KEYS are one key). */
        const slot = (k: number) => (twoFamilies ? k : k % KEYS);
        try {
          const model = new Model();
          const txns: (TxnModel | undefined)[] = new Array(TXNS).fill(undefined);
          const begin = (who: number): TxnModel => {
            let t = txns[who];
            if (t === undefined) {
              t = {
                txn: db.beginTransaction({ snapshot: snapshots[who]! }),
                begin: model.time,
                snapshot: snapshots[who]!,
                tracked: new Map(),
                writes: new Map(),
              };
              txns[who] = t;
            }
            return t;
          };
          const track = (t: TxnModel, k: number) => {
            if (!t.tracked.has(k)) t.tracked.set(k, t.snapshot ? t.begin : model.time);
          };
          const expected = (t: TxnModel, k: number) =>
            t.writes.has(k) ? t.writes.get(k) : model.valueAt(k, t.snapshot ? t.begin : model.time);
          for (const step of steps) {
            const s = "k" in step ? { ...step, k: slot(step.k) } : step;
            if (s.op === "plainPut") {
              (fam(s.k) ?? db).put(key(s.k), String(s.v));
              model.write(s.k, String(s.v));
              continue;
            }
            const t = begin(s.who);
            switch (s.op) {
              case "get":
                expect(str(t.txn.get(key(s.k), undefined, fam(s.k)))).toBe(expected(t, s.k));
                break;
              case "getForUpdate":
                track(t, s.k);
                expect(
                  str(t.txn.getForUpdate(key(s.k), undefined, fam(s.k)) as Uint8Array | undefined),
                ).toBe(expected(t, s.k));
                break;
              case "put":
                track(t, s.k);
                t.txn.put(key(s.k), `t${s.who}:${s.v}`, fam(s.k));
                t.writes.set(s.k, `t${s.who}:${s.v}`);
                break;
              case "delete":
                track(t, s.k);
                t.txn.delete(key(s.k), fam(s.k));
                t.writes.set(s.k, undefined);
                break;
              case "commit": {
                let conflict = false;
                for (const [k, at] of t.tracked) if (model.writtenAfter(k, at)) conflict = true;
                let failed: unknown;
                try {
                  t.txn.commit();
                } catch (e) {
                  failed = e;
                }
                if (conflict) expect(isShaleError(failed, "Busy")).toBe(true);
                else expect(failed).toBeUndefined();
                if (!conflict) for (const [k, v] of t.writes) model.write(k, v);
                txns[s.who] = undefined;
                break;
              }
            }
          }
          for (const t of txns) t?.txn.rollback();
          for (let k = 0; k < (twoFamilies ? SLOTS : KEYS); k++)
            expect(str((fam(k) ?? db).get(key(k)))).toBe(model.valueAt(k, model.time));
          expect(db.getProperty("shale.num-snapshots")).toBe("0");
        } finally {
          await db.close();
        }
      },
    ),
    { numRuns: 300 },
  );
}
