import {
  ArrayIterator,
  bytewiseComparator,
  type CompareFn,
  compareBytes,
  type InternalIterator,
  InternalKeyComparator,
  makeInternalKey,
  toHex,
} from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MergingIterator } from "./merging-iterator.js";

type Op =
  | { op: "seek"; target: Uint8Array }
  | { op: "seekForPrev"; target: Uint8Array }
  | { op: "seekToFirst" }
  | { op: "seekToLast" }
  | { op: "next" }
  | { op: "prev" };

/** Short keys over a 4-letter alphabet: many shared prefixes, collisions and near misses. */
const keyArb = fc
  .array(fc.integer({ min: 0, max: 3 }), { maxLength: 4 })
  .map((a) => Uint8Array.from(a));

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: keyArb.map((target) => ({ op: "seek" as const, target })) },
  { weight: 2, arbitrary: keyArb.map((target) => ({ op: "seekForPrev" as const, target })) },
  { weight: 1, arbitrary: fc.constant({ op: "seekToFirst" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "seekToLast" as const }) },
  { weight: 5, arbitrary: fc.constant({ op: "next" as const }) },
  { weight: 5, arbitrary: fc.constant({ op: "prev" as const }) },
);

const compares: Record<string, CompareFn> = {
  bytewise: compareBytes,
  reverse: (a, b) => compareBytes(b, a),
};
const compareArb = fc.constantFrom(...Object.keys(compares));

function position(it: InternalIterator): string {
  return it.valid() ? `${toHex(it.key())}=${toHex(it.value())}` : "<invalid>";
}

/** Applies `op` to the iterator under test; returns false if it was skipped (not valid). */
function apply(it: InternalIterator, op: Op, refValid: boolean): boolean {
  switch (op.op) {
    case "seek":
      it.seek(op.target);
      return true;
    case "seekForPrev":
      it.seekForPrev(op.target);
      return true;
    case "seekToFirst":
      it.seekToFirst();
      return true;
    case "seekToLast":
      it.seekToLast();
      return true;
    case "next":
      if (!refValid) return false;
      it.next();
      return true;
    case "prev":
      if (!refValid) return false;
      it.prev();
      return true;
  }
}

/** Applies `ops` to `it` and to the reference `ref`, expecting the same position after each. */
function replay(it: InternalIterator, ref: InternalIterator, ops: readonly Op[]): void {
  for (const op of ops) {
    if (!apply(it, op, ref.valid())) continue;
    apply(ref, op, true);
    expect(position(it)).toBe(position(ref));
  }
}

/** Sorted `keys` (and their values) dealt to `k` children by `assignment`, each sorted. */
function splitAmong(
  keys: Uint8Array[],
  values: Uint8Array[],
  k: number,
  assignment: number[],
  compare: CompareFn,
): InternalIterator[] {
  const parts: { keys: Uint8Array[]; values: Uint8Array[] }[] = [];
  for (let c = 0; c < k; c++) parts.push({ keys: [], values: [] });
  keys.forEach((key, i) => {
    const part = parts[assignment[i]! % k]!;
    part.keys.push(key);
    part.values.push(values[i]!);
  });
  return parts.map((p) => new ArrayIterator(p.keys, p.values, compare));
}

describe("MergingIterator: random operation sequences", () => {
  it("matches the reference ArrayIterator over the union (unique keys split among children)", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(keyArb, { selector: toHex, maxLength: 60 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.nat(), { minLength: 60, maxLength: 60 }),
        compareArb,
        fc.array(opArb, { maxLength: 80 }),
        (keys, k, assignment, compareName, ops) => {
          const compare = compares[compareName]!;
          keys.sort(compare);
          const values = keys.map((key, i) => Uint8Array.of(i, ...key));
          const it = new MergingIterator(splitAmong(keys, values, k, assignment, compare), compare);
          replay(it, new ArrayIterator(keys, values, compare), ops);
          it.close();
        },
      ),
      { numRuns: 400 },
    );
  });

  it("with bytewiseInternalKeys, orders internal keys as the comparator (prefix words)", () => {
    // User keys of 0..12 bytes over {0, 1, 0xff}: shorter than, equal to and longer than the
    // 8 bytes of the prefix words, zero bytes against the words' zero padding.
    const bytesArb = (maxLength: number) => fc.array(fc.constantFrom(0, 1, 0xff), { maxLength });
    const prefixes = [
      [0, 0, 0, 0, 0, 0, 1, 2],
      [0, 0, 0, 0, 0, 0, 1, 3],
    ];
    const userArb = fc
      .oneof(
        bytesArb(12),
        // Two 8-byte prefixes and short tails: many ties on the words (a compare from byte 8).
        fc.tuple(fc.constantFrom(...prefixes), bytesArb(4)).map(([p, t]) => [...p, ...t]),
      )
      .map((a) => Uint8Array.from(a));
    const ikeyArb = fc
      .tuple(userArb, fc.integer({ min: 0, max: 5 }), fc.constantFrom(0, 1, 2))
      .map(([u, seq, kind]) => makeInternalKey(u, seq, kind));
    const icmp = new InternalKeyComparator(bytewiseComparator);
    const compare: CompareFn = (a, b) => icmp.compare(a, b);
    fc.assert(
      fc.property(
        fc.uniqueArray(ikeyArb, { selector: toHex, maxLength: 60 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.nat(), { minLength: 60, maxLength: 60 }),
        fc.array(opArb, { maxLength: 80 }),
        (keys, k, assignment, ops) => {
          keys.sort(compare);
          const values = keys.map((_, i) => Uint8Array.of(i));
          const it = new MergingIterator(
            splitAmong(keys, values, k, assignment, compare),
            compare,
            { bytewiseInternalKeys: true },
          );
          // Seek targets must be internal keys too.
          const internalOps = ops.map((op) =>
            op.op === "seek" || op.op === "seekForPrev"
              ? { ...op, target: makeInternalKey(op.target, 3, 1) }
              : op,
          );
          replay(it, new ArrayIterator(keys, values, compare), internalOps);
          it.close();
        },
      ),
      { numRuns: 400 },
    );
  });

  it("matches a sorted (key, child) model when children share keys", () => {
    fc.assert(
      fc.property(
        fc.array(fc.uniqueArray(keyArb, { selector: toHex, maxLength: 25 }), {
          minLength: 1,
          maxLength: 6,
        }),
        compareArb,
        fc.array(opArb, { maxLength: 80 }),
        (lists, compareName, ops) => {
          const compare = compares[compareName]!;
          const model: { key: Uint8Array; value: Uint8Array }[] = [];
          const children = lists.map((list, c) => {
            list.sort(compare);
            const values = list.map((key) => Uint8Array.of(c, ...key));
            for (let i = 0; i < list.length; i++) model.push({ key: list[i]!, value: values[i]! });
            return new ArrayIterator(list, values, compare);
          });
          // Stable sort by key keeps children in index order among equal keys.
          model.sort((a, b) => compare(a.key, b.key));
          const it = new MergingIterator(children, compare);
          let pos = -1;
          const show = () => {
            const e = model[pos];
            return e === undefined ? "<invalid>" : `${toHex(e.key)}=${toHex(e.value)}`;
          };
          for (const op of ops) {
            const valid = pos >= 0 && pos < model.length;
            if (!apply(it, op, valid)) continue;
            switch (op.op) {
              case "seek": {
                pos = model.findIndex((e) => compare(e.key, op.target) >= 0);
                break;
              }
              case "seekForPrev": {
                pos = model.length - 1;
                while (pos >= 0 && compare(model[pos]!.key, op.target) > 0) pos--;
                break;
              }
              case "seekToFirst":
                pos = model.length > 0 ? 0 : -1;
                break;
              case "seekToLast":
                pos = model.length - 1;
                break;
              case "next":
                pos = pos + 1 < model.length ? pos + 1 : -1;
                break;
              case "prev":
                pos = pos - 1;
                break;
            }
            expect(position(it), op.op).toBe(show());
          }
          it.close();
        },
      ),
      { numRuns: 400 },
    );
  });
});
