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
 */
import { isShaleError, MemoryFileSystem } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import type { Transaction } from "./transaction.js";

const dec = new TextDecoder();
const str = (b: Uint8Array | undefined) => (b === undefined ? undefined : dec.decode(b));
const KEYS = 5;
const key = (i: number) => `k${i}`;

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
    k: fc.nat(KEYS - 1),
  }),
  fc.record({
    who: fc.nat(TXNS - 1),
    op: fc.constant("put" as const),
    k: fc.nat(KEYS - 1),
    v: fc.nat(99),
  }),
  fc.record({ who: fc.nat(TXNS - 1), op: fc.constant("commit" as const) }),
  fc.record({
    who: fc.constant(-1 as const),
    op: fc.constant("plainPut" as const),
    k: fc.nat(KEYS - 1),
    v: fc.nat(99),
  }),
);

/** Committed versions per key: [time, value | undefined (deleted)], oldest first. */
class Model {
  time = 0;
  readonly versions: [number, string | undefined][][] = Array.from({ length: KEYS }, () => []);

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
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { minLength: 1, maxLength: 60 }),
        fc.array(fc.boolean(), { minLength: TXNS, maxLength: TXNS }),
        async (steps, snapshots) => {
          const db = await DB.open("/db", { fs: new MemoryFileSystem() });
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
              t.writes.has(k)
                ? t.writes.get(k)
                : model.valueAt(k, t.snapshot ? t.begin : model.time);
            for (const s of steps) {
              if (s.op === "plainPut") {
                db.put(key(s.k), String(s.v));
                model.write(s.k, String(s.v));
                continue;
              }
              const t = begin(s.who);
              switch (s.op) {
                case "get":
                  expect(str(t.txn.get(key(s.k)))).toBe(expected(t, s.k));
                  break;
                case "getForUpdate":
                  track(t, s.k);
                  expect(str(t.txn.getForUpdate(key(s.k)) as Uint8Array | undefined)).toBe(
                    expected(t, s.k),
                  );
                  break;
                case "put":
                  track(t, s.k);
                  t.txn.put(key(s.k), `t${s.who}:${s.v}`);
                  t.writes.set(s.k, `t${s.who}:${s.v}`);
                  break;
                case "delete":
                  track(t, s.k);
                  t.txn.delete(key(s.k));
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
            for (let k = 0; k < KEYS; k++)
              expect(str(db.get(key(k)))).toBe(model.valueAt(k, model.time));
            expect(db.getProperty("shale.num-snapshots")).toBe("0");
          } finally {
            await db.close();
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
