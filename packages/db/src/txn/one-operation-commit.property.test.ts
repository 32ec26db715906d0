/**
 * Transactions of one operation commit the way of `db.put` (transaction.ts's `writeBatch`):
 * the key and value are read from the transaction's batch, and the views made for one
 * transaction are reused by the next transaction of the same shape (the batch is reused).
 * Random runs of such transactions — put, delete, merge, single-key getForUpdate-then-put,
 * keys and values of every length (some past 127 bytes: two-byte length prefixes; some long
 * enough to grow the batch's buffer), the caller's arrays changed after each call — optimistic
 * and pessimistic, end equal to a model, and so do the same writes made with `db.put`.
 */
import { MemoryFileSystem } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";

type Op = { op: "put" | "merge"; k: Uint8Array; v: Uint8Array } | { op: "delete"; k: Uint8Array };

const keyArb = fc.oneof(
  { weight: 4, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 3, max: 3 }) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 120, maxLength: 300 }) },
);
const valueArb = fc.oneof(
  { weight: 4, arbitrary: fc.uint8Array({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 100, maxLength: 3000 }) },
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constantFrom("put" as const, "merge" as const), k: keyArb, v: valueArb }),
  fc.record({ op: fc.constant("delete" as const), k: keyArb }),
);

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

function apply(model: Map<string, Uint8Array>, op: Op): void {
  const name = hex(op.k);
  if (op.op === "delete") model.delete(name);
  else if (op.op === "put") model.set(name, op.v.slice());
  else {
    const old = model.get(name);
    model.set(
      name,
      old === undefined ? op.v.slice() : Buffer.concat([old, Buffer.from(","), op.v]),
    );
  }
}

async function check(
  kind: "optimistic" | "pessimistic" | "plain",
  ops: readonly Op[],
): Promise<void> {
  const db = await DB.open("/db", {
    fs: new MemoryFileSystem(),
    mergeOperator: "stringappend",
    ...(kind === "pessimistic" ? { transactionDB: {} } : {}),
  });
  const model = new Map<string, Uint8Array>();
  for (const op of ops) {
    // The caller's arrays are changed once each call returns: the batch holds copies.
    const k = op.k.slice();
    const v = op.op === "delete" ? new Uint8Array(0) : op.v.slice();
    if (kind === "plain") {
      if (op.op === "delete") db.delete(k);
      else if (op.op === "put") db.put(k, v);
      else db.merge(k, v);
    } else {
      const txn = db.beginTransaction();
      if (op.op === "delete") await txn.delete(k);
      else if (op.op === "put") await txn.put(k, v);
      else await txn.merge(k, v);
      k.fill(0xff);
      v.fill(0xff);
      txn.commit();
    }
    apply(model, op);
  }
  for (const op of ops) {
    const got = db.get(op.k);
    const want = model.get(hex(op.k));
    expect(got === undefined ? undefined : hex(got)).toBe(
      want === undefined ? undefined : hex(want),
    );
  }
  await db.close();
}

describe("one-operation commits", () => {
  for (const kind of ["optimistic", "pessimistic", "plain"] as const) {
    it(`leave what the model says (${kind})`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40 }), (ops) =>
          check(kind, ops),
        ),
        { numRuns: 60 },
      );
    });
  }
});
