/**
 * The first-word range check of MemTable.get (memtable.ts `lowWord` / `highWord`): a get of
 * a key whose first 30 bits sort outside those of every point entry's key answers
 * "nothing here" at once. Against a model (a map of the newest entry per key), with keys
 * short and long, bytes on both sides of 0x80, prefixes of one another, memtables with and
 * without their hash index, and a comparator that is not bytewise.
 */
import {
  bytewiseComparator,
  type Comparator,
  compareBytes,
  LookupResult,
  LookupState,
  MAX_SEQ,
  ValueKind,
} from "@shale/base";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { BTree } from "./btree.js";
import { MemTable } from "./memtable.js";

/** Reverse byte order: the word range still only rules out absent keys. */
const reverse: Comparator = {
  name: "test.ReverseBytewise",
  compare: (a, b) => compareBytes(b, a),
  findShortestSeparator: (a) => a,
  findShortSuccessor: (a) => a,
};

const hex = (k: Uint8Array) => Buffer.from(k).toString("hex");
const keyArb = fc
  .array(fc.constantFrom(0x00, 0x01, 0x7f, 0x80, 0x81, 0xfe, 0xff), { maxLength: 6 })
  .map((bytes) => Uint8Array.from(bytes));

describe("MemTable.get outside the keys' first-word range", () => {
  it("answers as a model of the newest entry per key", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(keyArb, fc.boolean()), { minLength: 1, maxLength: 150 }),
        fc.array(keyArb, { minLength: 1, maxLength: 60 }),
        fc.boolean(),
        fc.boolean(),
        (adds, probes, hashIndex, reversed) => {
          const mem = new MemTable({
            hashIndex,
            comparator: reversed ? reverse : bytewiseComparator,
          });
          const model = new Map<string, number>();
          adds.forEach(([key, isDelete], i) => {
            if (isDelete) mem.add(i + 1, ValueKind.Deletion, key);
            else mem.add(i + 1, ValueKind.Value, key, Uint8Array.of(i & 0xff));
            model.set(hex(key), isDelete ? -1 : i);
          });
          const result = new LookupResult();
          for (const key of [...probes, ...adds.map(([k]) => k)]) {
            result.reset();
            mem.get(key, MAX_SEQ, result);
            const want = model.get(hex(key));
            if (want === undefined) expect(result.state).toBe(LookupState.NotFound);
            else if (want < 0) expect(result.state).toBe(LookupState.Deleted);
            else {
              expect(result.state).toBe(LookupState.Found);
              expect([...result.value!]).toEqual([want & 0xff]);
            }
          }
          mem.unref();
        },
      ),
      { numRuns: 300 },
    );
  });

  it("settles keys before and after every entry, and finds the edge keys", () => {
    const mem = new MemTable({ comparator: bytewiseComparator });
    mem.add(1, ValueKind.Value, Uint8Array.of(0x7f, 0xff), Uint8Array.of(1));
    mem.add(2, ValueKind.Value, Uint8Array.of(0x80), Uint8Array.of(2));
    const r = new LookupResult();
    for (const [key, state] of [
      [Uint8Array.of(0x7f), LookupState.NotFound], // before every key (a prefix of the first)
      [Uint8Array.of(0x7f, 0xff), LookupState.Found],
      [Uint8Array.of(0x80), LookupState.Found],
      [Uint8Array.of(0x80, 0x00), LookupState.NotFound], // first word equal to the last's
      [Uint8Array.of(0x80, 0x00, 0x00, 0x00, 0x01), LookupState.NotFound],
      [Uint8Array.of(0x80, 0x00, 0x00, 0x01), LookupState.NotFound], // past the last word
      [Uint8Array.of(), LookupState.NotFound],
      [Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff), LookupState.NotFound],
    ] as const) {
      r.reset();
      mem.get(key, MAX_SEQ, r);
      expect(r.state).toBe(state);
    }
    mem.unref();
  });

  it("settles a key outside the range without searching (in byte order across 0x80)", () => {
    const mem = new MemTable();
    for (let i = 0; i < 100; i++) {
      mem.add(i + 1, ValueKind.Value, Uint8Array.of(0x7f, i), Uint8Array.of(1));
      mem.add(i + 101, ValueKind.Value, Uint8Array.of(0x80, i, 0, 0, 9), Uint8Array.of(2));
    }
    const search = vi.spyOn(BTree.prototype, "setTargetUser");
    try {
      const r = new LookupResult();
      for (const key of [
        Uint8Array.of(0x81),
        Uint8Array.of(0x81, 0, 0, 0),
        Uint8Array.of(0xff, 1, 2, 3, 4),
        Uint8Array.of(0x7e, 9),
        Uint8Array.of(0x7e, 0xff, 0xff, 0xff),
      ]) {
        r.reset();
        mem.get(key, MAX_SEQ, r);
        expect(r.state).toBe(LookupState.NotFound);
      }
      expect(search).not.toHaveBeenCalled();
      r.reset();
      mem.get(Uint8Array.of(0x80, 5, 0, 0, 9), MAX_SEQ, r);
      expect(r.state).toBe(LookupState.Found);
      expect(search).toHaveBeenCalled();
    } finally {
      search.mockRestore();
    }
    mem.unref();
  });
});
