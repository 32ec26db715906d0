/**
 * The B+tree's insert shortcuts (btree.ts prepareInsert: next to the last insert, past the
 * last key, and their back-off under random keys) against a model: ascending keys with
 * out-of-order ones, duplicates and keys that leave the spine's shared prefix mixed in;
 * the tree's order, slices, fences and counts are checked after the run (checkInvariants),
 * and a scan must list exactly the model's keys in order.
 */
import {
  bytewiseComparator,
  type Comparator,
  isShaleError,
  LookupState,
  MAX_SEQ,
  toHex,
  ValueKind,
} from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemTable } from "./index.js";

const reverseComparator: Comparator = {
  ...bytewiseComparator,
  name: "test.ReverseBytewise",
  compare: (a, b) => bytewiseComparator.compare(b, a),
};

/** The n-th ascending key: a 3-byte prefix and n big-endian in `width` bytes. */
function ascendingKey(n: number, width: number): Uint8Array {
  const k = new Uint8Array(3 + width);
  k.set([0x75, 0x73, 0x72]);
  for (let i = 0; i < width; i++) k[3 + width - 1 - i] = Math.floor(n / 256 ** i) & 0xff;
  return k;
}

type Step =
  | { t: "next"; gap: number }
  | { t: "random"; key: Uint8Array }
  | { t: "again"; pick: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 12, arbitrary: fc.record({ t: fc.constant("next" as const), gap: fc.nat(3) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("random" as const),
      key: fc.uint8Array({ minLength: 0, maxLength: 8 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("again" as const), pick: fc.nat() }) },
);

describe.each([
  ["bytewise", bytewiseComparator],
  ["reverse", reverseComparator],
])("B+tree insert shortcuts against a model (%s comparator)", (_name, cmp) => {
  it("keeps every key, in order, with ascending runs and keys out of order mixed in", () => {
    fc.assert(
      fc.property(
        fc.array(stepArb, { minLength: 1, maxLength: 700, size: "max" }),
        fc.constantFrom(2, 4),
        fc.constantFrom(256, 1 << 20),
        (steps, width, arenaChunkSize) => {
          const mem = new MemTable({ comparator: cmp, arenaChunkSize, hashIndex: false });
          const added: { key: Uint8Array; seq: number }[] = [];
          let n = 0;
          let seq = 0;
          const value = new Uint8Array([1]);
          for (const s of steps) {
            if (s.t === "again") {
              if (added.length === 0) continue;
              const e = added[s.pick % added.length]!;
              let threw: unknown;
              try {
                mem.add(e.seq, ValueKind.Value, e.key, value);
              } catch (err) {
                threw = err;
              }
              expect(isShaleError(threw, "InvalidArgument")).toBe(true);
              continue;
            }
            const key = s.t === "next" ? ascendingKey((n += 1 + s.gap), width) : s.key;
            seq++;
            mem.add(seq, ValueKind.Value, key, value);
            added.push({ key, seq });
          }
          mem.checkInvariants();
          const expected = added
            .slice()
            .sort((a, b) => cmp.compare(a.key, b.key) || b.seq - a.seq)
            .map((e) => `${toHex(e.key)}@${e.seq}`);
          const scanned: string[] = [];
          const it = mem.newIterator();
          for (it.seekToFirst(); it.valid(); it.next()) {
            const k = it.key();
            const t = k.length - 8;
            const s = k[t + 1]! | (k[t + 2]! << 8) | (k[t + 3]! << 16);
            scanned.push(`${toHex(k.subarray(0, t))}@${s}`);
          }
          it.close();
          expect(scanned).toEqual(expected);
          // Every key is found where it is.
          for (const e of added)
            expect(mem.get(e.key, MAX_SEQ).state).not.toBe(LookupState.NotFound);
        },
      ),
      { numRuns: 60 },
    );
  });
});
