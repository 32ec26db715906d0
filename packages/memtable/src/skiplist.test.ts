import { bytewiseComparator, compareBytes, ValueKind } from "@shale/base";
import { Random } from "@shale/base/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Arena } from "./arena.js";
import { entrySize, writeEntry } from "./entry.js";
import { MemTable } from "./memtable.js";
import { isBytewise, keyPrefix, MAX_HEIGHT, SkipList } from "./skiplist.js";

describe("keyPrefix", () => {
  it("orders like the keys whenever two prefixes differ", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 6 }), fc.uint8Array({ maxLength: 6 }), (a, b) => {
        const pa = keyPrefix(a, 0, a.length);
        const pb = keyPrefix(b, 0, b.length);
        if (pa !== pb) expect(Math.sign(pa - pb)).toBe(Math.sign(compareBytes(a, b)));
        if (compareBytes(a, b) === 0) expect(pa).toBe(pb);
      }),
      { numRuns: 2000 },
    );
  });

  it("reads at an offset", () => {
    const buf = new Uint8Array([9, 0x80, 1, 2, 3, 4]);
    expect(keyPrefix(buf, 1, 4)).toBe(keyPrefix(new Uint8Array([0x80, 1, 2, 3]), 0, 4));
    expect(keyPrefix(buf, 1, 0)).toBe(-(2 ** 31));
    expect(keyPrefix(new Uint8Array([0xff, 0xff, 0xff, 0xff]), 0, 4)).toBe(2 ** 31 - 1);
  });
});

describe("SkipList", () => {
  it("draws heights with branching 4, capped at 12", () => {
    const arena = new Arena(1 << 16);
    const list = new SkipList(arena, bytewiseComparator);
    expect(list.head).toBe(0);
    expect(list.heightOf(list.head)).toBe(MAX_HEIGHT);
    const counts = new Array<number>(MAX_HEIGHT + 1).fill(0);
    const key = new Uint8Array(4);
    const view = new DataView(key.buffer);
    for (let i = 0; i < 40_000; i++) {
      view.setUint32(0, i);
      list.setTargetUser(key, 1, 1);
      expect(list.prepareInsert()).toBe(true);
      const address = arena.allocateEntry(entrySize(4, 0));
      writeEntry(
        arena.entryChunks[address >>> arena.shift]!,
        address & arena.mask,
        key,
        1,
        1,
        key.subarray(0, 0),
      );
      const node = list.insert(address, keyPrefix(key, 0, 4));
      counts[list.heightOf(node)]!++;
    }
    // Expected shares: 3/4 of height 1, 3/16 of height 2, 3/64 of height 3 (seeded: exact run).
    expect(counts[1]! / 40_000).toBeCloseTo(0.75, 1);
    expect(counts[2]! / 40_000).toBeCloseTo(0.1875, 1);
    expect(counts[3]! / 40_000).toBeCloseTo(0.047, 1);
    expect(counts[0]).toBe(0);
    expect(list.maxHeight).toBeGreaterThanOrEqual(6);
    expect(list.maxHeight).toBeLessThanOrEqual(MAX_HEIGHT);
  });

  it("inserts in order through the splice: ascending, descending, interleaved, duplicates", () => {
    for (const pattern of ["ascending", "descending", "zigzag", "random"] as const) {
      const mem = new MemTable({ arenaChunkSize: 4096 });
      const n = 3000;
      const seen = new Set<number>();
      const rnd = new Random(pattern.length);
      for (let i = 0; i < n; i++) {
        const k =
          pattern === "ascending"
            ? i
            : pattern === "descending"
              ? n - i
              : pattern === "zigzag"
                ? i % 2 === 0
                  ? i
                  : n * 2 - i
                : rnd.uniform(n);
        const key = new Uint8Array([k >>> 8, k & 0xff, 7]);
        const dup = seen.has(k);
        seen.add(k);
        // Every key twice in a row at the same seq: the second is a duplicate found by the splice.
        mem.add(dup ? i + n : 1, ValueKind.Value, key, key);
        expect(() => mem.add(dup ? i + n : 1, ValueKind.Value, key, key)).toThrow(/duplicate/);
        mem.add(i + 2 * n, ValueKind.Merge, key, key);
      }
      mem.checkInvariants();
      expect(mem.numEntries).toBe(2 * n);
    }
  });

  it("recognises the bytewise comparator by identity or name", () => {
    expect(isBytewise(bytewiseComparator)).toBe(true);
    expect(isBytewise({ ...bytewiseComparator })).toBe(true);
    expect(isBytewise({ ...bytewiseComparator, name: "other" })).toBe(false);
  });
});
