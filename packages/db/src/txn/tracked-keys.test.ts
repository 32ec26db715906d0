/**
 * The tracked-key set against a list model: random tracks (short keys over a small alphabet,
 * so many repeat; some long ones, so the byte buffer grows), savepoint cuts and clears, past
 * the size where the set builds its Map and back. A key is tracked once, at its first seq;
 * the keys come back in the order tracked with their family and bytes; a cleared set reused
 * holds nothing of before.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TrackedKeys } from "./tracked-keys.js";

type Op =
  | { op: "add"; familyId: number; key: Uint8Array; seq: number }
  | { op: "truncate"; n: number }
  | { op: "clear" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      op: fc.constant("add" as const),
      familyId: fc.nat(1),
      key: fc.oneof(
        { weight: 6, arbitrary: fc.uint8Array({ maxLength: 3, max: 3 }) },
        { weight: 1, arbitrary: fc.uint8Array({ minLength: 100, maxLength: 400 }) },
      ),
      seq: fc.nat(1000),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("truncate" as const), n: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("clear" as const) }) },
);

interface Entry {
  familyId: number;
  key: Uint8Array;
  seq: number;
}

const same = (e: Entry, familyId: number, key: Uint8Array) =>
  e.familyId === familyId && Buffer.from(e.key).equals(key);

describe("TrackedKeys", () => {
  it("matches a list of (family, key, first seq) through tracks, cuts and clears", () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 150 }), (ops) => {
        const set = new TrackedKeys();
        let model: Entry[] = [];
        let minSeq = Number.POSITIVE_INFINITY;
        for (const op of ops) {
          if (op.op === "add") {
            const at = model.findIndex((e) => same(e, op.familyId, op.key));
            expect(set.indexOf(op.familyId, op.key)).toBe(at);
            set.add(op.familyId, op.key, op.seq);
            if (at < 0) {
              model.push({ familyId: op.familyId, key: op.key.slice(), seq: op.seq });
              minSeq = Math.min(minSeq, op.seq);
            }
            op.key.fill(0xee); // the set keeps its own copy
          } else if (op.op === "truncate") {
            set.truncate(op.n);
            model = model.slice(0, op.n);
          } else {
            set.clear();
            model = [];
            minSeq = Number.POSITIVE_INFINITY;
          }
          expect(set.count).toBe(model.length);
          model.forEach((e, i) => {
            expect(set.familyAt(i)).toBe(e.familyId);
            expect(set.seqAt(i)).toBe(e.seq);
            expect(set.keyAt(i)).toEqual(e.key);
            expect(set.indexOf(e.familyId, e.key)).toBe(i);
          });
          // minSeq never rises above the smallest seq tracked (a cut may leave it lower).
          if (model.length > 0)
            expect(set.minSeq).toBeLessThanOrEqual(Math.min(...model.map((e) => e.seq)));
          if (op.op === "clear") expect(set.minSeq).toBe(minSeq);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("tells a key of one family from the same bytes of another, past the linear search", () => {
    const set = new TrackedKeys();
    for (let i = 0; i < 20; i++) set.add(i % 2, new Uint8Array([i >> 1]), i);
    expect(set.count).toBe(20);
    for (let i = 0; i < 20; i++) expect(set.indexOf(i % 2, new Uint8Array([i >> 1]))).toBe(i);
    expect(set.indexOf(2, new Uint8Array([0]))).toBe(-1);
    set.truncate(12); // still past the linear search: the Map must forget keys 12..19
    expect(set.indexOf(1, new Uint8Array([7]))).toBe(-1);
    set.add(1, new Uint8Array([7]), 99);
    expect(set.count).toBe(13);
    expect(set.indexOf(1, new Uint8Array([7]))).toBe(12);
    expect(set.seqAt(12)).toBe(99);
    set.truncate(5);
    expect(set.indexOf(1, new Uint8Array([9]))).toBe(-1);
    expect(set.indexOf(0, new Uint8Array([2]))).toBe(4);
  });
});
