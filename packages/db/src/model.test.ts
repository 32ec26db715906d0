/**
 * Model-based property test: random puts, deletes, merges (max operator), range deletions,
 * batches, snapshots, flushes to L0 tables, compactions (automatic ones after every second
 * flush, and compactRange over random bounds) and reopens against a model that applies every
 * write in sequence order.
 */
import { compareBytes, MemoryFileSystem } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Snapshot } from "./core/snapshot.js";
import { DB } from "./db.js";
import { WriteBatch } from "./write/write-batch.js";

const KEYS = ["", "a", "aa", "ab", "b", "ba", "c", "d", "e", "zz"];
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

type Op =
  | { t: "put"; k: string; v: string }
  | { t: "del"; k: string }
  | { t: "merge"; k: string; v: string }
  | { t: "range"; s: string; e: string }
  | { t: "batch"; ops: Op[] }
  | { t: "snap" }
  | { t: "reopen" }
  | { t: "flush" }
  | { t: "compact"; s: string | undefined; e: string | undefined }
  | { t: "check" };

const key = fc.constantFrom(...KEYS);
const val = fc.string({ maxLength: 6 });
const simple: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ t: fc.constant("put" as const), k: key, v: val }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("del" as const), k: key }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant("merge" as const), k: key, v: val }) },
  {
    weight: 1,
    arbitrary: fc.tuple(key, key).map(([a, b]) => {
      const [s, e] = compareBytes(enc(a), enc(b)) <= 0 ? [a, b] : [b, a];
      return { t: "range" as const, s, e };
    }),
  },
);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 10, arbitrary: simple },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("batch" as const),
      ops: fc.array(simple, { maxLength: 5 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ t: "snap" as const }) },
  { weight: 1, arbitrary: fc.constant({ t: "reopen" as const }) },
  { weight: 2, arbitrary: fc.constant({ t: "flush" as const }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.option(key, { nil: undefined }), fc.option(key, { nil: undefined }))
      .map(([a, b]) => {
        const swap = a !== undefined && b !== undefined && compareBytes(enc(a), enc(b)) > 0;
        return { t: "compact" as const, s: swap ? b : a, e: swap ? a : b };
      }),
  },
  { weight: 2, arbitrary: fc.constant({ t: "check" as const }) },
);

/** state after applying `history` (ops with their seqs) up to `snap`. */
function modelState(history: { seq: number; op: Op }[], snap: number): Map<string, string> {
  const state = new Map<string, string>();
  for (const { seq, op } of history) {
    if (seq > snap) break;
    switch (op.t) {
      case "put":
        state.set(op.k, op.v);
        break;
      case "del":
        state.delete(op.k);
        break;
      case "merge": {
        const cur = state.get(op.k);
        state.set(op.k, cur === undefined || compareBytes(enc(op.v), enc(cur)) > 0 ? op.v : cur);
        break;
      }
      case "range":
        for (const k of KEYS) {
          if (compareBytes(enc(k), enc(op.s)) >= 0 && compareBytes(enc(k), enc(op.e)) < 0)
            state.delete(k);
        }
        break;
    }
  }
  return state;
}

function applyTo(target: DB | WriteBatch, op: Op): void {
  switch (op.t) {
    case "put":
      target.put(op.k, op.v);
      break;
    case "del":
      target.delete(op.k);
      break;
    case "merge":
      target.merge(op.k, op.v);
      break;
    case "range":
      target.deleteRange(op.s, op.e);
      break;
  }
}

describe("db against a model", () => {
  it("agrees with the model for random operations, snapshots and reopens", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 80 }),
        fc.integer({ min: 64, max: 96 }),
        fc.boolean(),
        async (ops, wbKb, tiny) => {
          const fs = new MemoryFileSystem();
          const options = {
            fs,
            mergeOperator: "max" as const,
            writeBufferSize: wbKb * 1024,
            level0FileNumCompactionTrigger: 2,
            // Tiny: one output table per user key, every level over its target (everything
            // cascades to L6), range tombstones clipped at every table boundary.
            ...(tiny ? { targetFileSizeBase: 1, maxBytesForLevelBase: 1 } : {}),
          };
          let db = await DB.open("/db", options);
          const history: { seq: number; op: Op }[] = [];
          let snaps: { snap: Snapshot; seq: number }[] = [];
          let seq = 0;
          const check = () => {
            const latest = modelState(history, seq);
            for (const k of KEYS) expect(dec(db.get(k)), `key "${k}"`).toBe(latest.get(k));
            // The iterator sees the same state, in key order, forward and backward.
            const expected = [...latest.entries()].sort(([a], [b]) => compareBytes(enc(a), enc(b)));
            const forward = [...db.iterator()].map(([k, v]) => [dec(k), dec(v)]);
            expect(forward).toEqual(expected);
            const backward = [...db.iterator({ reverse: true })].map(([k, v]) => [dec(k), dec(v)]);
            expect(backward).toEqual(expected.slice().reverse());
            for (const { snap, seq: s } of snaps) {
              const then = modelState(history, s);
              for (const k of KEYS)
                expect(dec(db.get(k, { snapshot: snap })), `key "${k}" @${s}`).toBe(then.get(k));
              const atSnap = [...db.iterator({ snapshot: snap })].map(([k, v]) => [dec(k), dec(v)]);
              expect(atSnap).toEqual(
                [...then.entries()].sort(([a], [b]) => compareBytes(enc(a), enc(b))),
              );
            }
          };
          try {
            for (const o of ops) {
              if (o.t === "snap") snaps.push({ snap: db.snapshot(), seq });
              else if (o.t === "reopen") {
                await db.close();
                db = await DB.open("/db", options);
                snaps = [];
              } else if (o.t === "flush") await db.flush();
              else if (o.t === "compact") await db.compactRange(o.s, o.e);
              else if (o.t === "check") check();
              else if (o.t === "batch") {
                const b = new WriteBatch();
                for (const x of o.ops) applyTo(b, x);
                db.write(b);
                for (const x of o.ops) history.push({ seq: ++seq, op: x });
              } else {
                applyTo(db, o);
                history.push({ seq: ++seq, op: o });
              }
              expect(db.latestSequence).toBe(seq);
            }
            check();
          } finally {
            await db.close();
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
