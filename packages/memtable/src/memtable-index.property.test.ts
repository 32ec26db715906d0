/**
 * The hash index's life in a memtable (memtable.ts, MemTable.index) against a model: it is
 * made, sized for the entries so far, by the first get once INDEX_MIN_ENTRIES point entries
 * are in, filled from the tree INDEX_BUILD_STEP entries per get or add, and kept by every
 * add; gets before, during and after the build answer as the model does, and the memory
 * figure counts the table before it is made as after.
 */
import { LookupResult, LookupState, MAX_SEQ, ValueKind } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemTable } from "./index.js";
import { INDEX_BUILD_ENTRIES, INDEX_BUILD_STEP, INDEX_MIN_ENTRIES } from "./memtable-options.js";

interface Point {
  key: number;
  seq: number;
  kind: ValueKind;
  value: number;
}

const keyBytes = (k: number) => new Uint8Array([0x6b, k >>> 8, k & 0xff]);

/** The newest point of `key` with seq <= snapshot: [state, seq, value byte]. */
function modelGet(points: readonly Point[], key: number, snapshot: number) {
  let best: Point | undefined;
  for (const p of points) {
    if (p.key === key && p.seq <= snapshot && (best === undefined || p.seq > best.seq)) best = p;
  }
  if (best === undefined) return [LookupState.NotFound, 0, -1];
  if (best.kind === ValueKind.Deletion) return [LookupState.Deleted, best.seq, -1];
  return [LookupState.Found, best.seq, best.value];
}

function memGet(mem: MemTable, key: number, snapshot: number) {
  const r = mem.get(keyBytes(key), snapshot, new LookupResult());
  return [r.state, r.state === LookupState.NotFound ? 0 : r.seq, r.value?.[0] ?? -1];
}

describe("MemTable hash index: built lazily, sized, then kept by adds", () => {
  it("answers gets as the model does, whenever the first get comes", () => {
    const opArb = fc.record({
      key: fc.integer({ min: 0, max: 150 }),
      deletion: fc.boolean(),
      value: fc.integer({ min: 0, max: 255 }),
      // Gets after this add: none most of the time.
      gets: fc.array(fc.integer({ min: 0, max: 160 }), { maxLength: 2 }),
      getChance: fc.integer({ min: 0, max: 9 }),
    });
    fc.assert(
      fc.property(
        fc.array(opArb, { minLength: 1, maxLength: 220 }),
        fc.boolean(),
        (ops, shuffledSeqs) => {
          const mem = new MemTable();
          const points: Point[] = [];
          // Seqs ascending, or a permutation (adds arrive in any seq order).
          const seqs = ops.map((_, i) => i + 1);
          if (shuffledSeqs) seqs.reverse();
          for (const [i, op] of ops.entries()) {
            const p: Point = {
              key: op.key,
              seq: seqs[i]!,
              kind: op.deletion ? ValueKind.Deletion : ValueKind.Value,
              value: op.value,
            };
            points.push(p);
            if (p.kind === ValueKind.Deletion) mem.add(p.seq, p.kind, keyBytes(p.key));
            else mem.add(p.seq, p.kind, keyBytes(p.key), new Uint8Array([p.value]));
            if (op.getChance !== 0) continue;
            const before = mem.approximateMemoryUsage();
            for (const k of op.gets) {
              expect(memGet(mem, k, MAX_SEQ)).toEqual(modelGet(points, k, MAX_SEQ));
              const snapshot = 1 + (k % points.length);
              expect(memGet(mem, k, snapshot)).toEqual(modelGet(points, k, snapshot));
            }
            // The table a get builds is the one already counted.
            expect(mem.approximateMemoryUsage()).toBe(before);
          }
          mem.checkInvariants();
          for (let k = 0; k <= 160; k++) {
            expect(memGet(mem, k, MAX_SEQ)).toEqual(modelGet(points, k, MAX_SEQ));
          }
          mem.checkInvariants();
        },
      ),
      { numRuns: 200 },
    );
  });

  it("is not made by adds; a first get starts it, and gets and adds fill it step by step", () => {
    const mem = new MemTable();
    const state = mem as unknown as { index: unknown; build: unknown };
    const value = new Uint8Array([7]);
    const key = (i: number) => new Uint8Array([i >>> 16, (i >>> 8) & 0xff, i & 0xff]);
    const n = 5000;
    for (let i = 0; i < n; i++) mem.add(i + 1, ValueKind.Value, key(i), value);
    expect(state.index).toBeUndefined();
    // The memory figure counts the table the build will make; the arena alone is below it.
    const unindexed = new MemTable({ hashIndex: false });
    for (let i = 0; i < n; i++) unindexed.add(i + 1, ValueKind.Value, key(i), value);
    expect(mem.approximateMemoryUsage()).toBeGreaterThan(unindexed.approximateMemoryUsage());
    // The first get starts the build; every answer during it comes from the tree.
    let calls = 0;
    for (let i = 0; state.index === undefined || state.build !== undefined; i++) {
      calls++;
      if (i % 3 === 0) {
        // An add during the build: a newer version of a key the walk has not reached.
        mem.add(n + 1 + i, ValueKind.Deletion, key(n - 1 - i));
        expect(mem.get(key(n - 1 - i)).state).toBe(LookupState.Deleted);
      } else {
        expect(mem.get(key(i)).value).toEqual(value);
      }
    }
    // No call built it all: it took about one call per INDEX_BUILD_STEP entries.
    expect(calls).toBeGreaterThan(n / INDEX_BUILD_STEP / 2);
    expect(calls).toBeLessThanOrEqual(Math.ceil((n + calls) / INDEX_BUILD_STEP) + 1);
    mem.checkInvariants();
    expect(mem.get(key(n - 1)).state).toBe(LookupState.Deleted);
    expect(mem.get(key(1)).value).toEqual(value);
    expect(INDEX_MIN_ENTRIES).toBeLessThan(n);
  });

  it("is made by the add that makes INDEX_BUILD_ENTRIES if no get came, and filled by adds", () => {
    const mem = new MemTable();
    const state = mem as unknown as { index: unknown; build: unknown };
    const value = new Uint8Array([7]);
    const key = (i: number) => new Uint8Array([i >>> 16, (i >>> 8) & 0xff, i & 0xff]);
    for (let i = 0; i < INDEX_BUILD_ENTRIES - 1; i++)
      mem.add(i + 1, ValueKind.Value, key(i), value);
    expect(state.index).toBeUndefined();
    mem.add(INDEX_BUILD_ENTRIES, ValueKind.Value, key(INDEX_BUILD_ENTRIES - 1), value);
    expect([state.index !== undefined, state.build !== undefined]).toEqual([true, true]);
    let adds = 0;
    for (let i = INDEX_BUILD_ENTRIES; state.build !== undefined; i++, adds++) {
      // Newer versions of keys the walk may not have reached yet.
      mem.add(i + 1, ValueKind.Deletion, key(i - INDEX_BUILD_ENTRIES));
    }
    expect(adds).toBeGreaterThan(INDEX_BUILD_ENTRIES / INDEX_BUILD_STEP / 2);
    mem.checkInvariants();
    expect(mem.get(key(0)).state).toBe(LookupState.Deleted);
    expect(mem.get(key(adds - 1)).state).toBe(LookupState.Deleted);
    expect(mem.get(key(adds)).value).toEqual(value);
  });
  it("hashIndexFrom sets the add that makes the index; bad values are TypeErrors", () => {
    const state = (m: MemTable) => m as unknown as { index: unknown; build: unknown };
    const value = new Uint8Array([7]);
    const key = (i: number) => new Uint8Array([i >>> 8, i & 0xff]);
    const mem = new MemTable({ hashIndexFrom: INDEX_MIN_ENTRIES });
    for (let i = 0; i < INDEX_MIN_ENTRIES - 1; i++) mem.add(i + 1, ValueKind.Value, key(i), value);
    expect(state(mem).index).toBeUndefined();
    mem.add(INDEX_MIN_ENTRIES, ValueKind.Value, key(INDEX_MIN_ENTRIES - 1), value);
    expect(state(mem).index).not.toBeUndefined();
    for (let i = INDEX_MIN_ENTRIES; state(mem).build !== undefined; i++)
      mem.add(i + 1, ValueKind.Value, key(i), value);
    mem.checkInvariants();
    expect(mem.get(key(3)).value).toEqual(value);
    // The default waits for INDEX_BUILD_ENTRIES.
    const lazy = new MemTable();
    for (let i = 0; i < INDEX_MIN_ENTRIES; i++) lazy.add(i + 1, ValueKind.Value, key(i), value);
    expect(state(lazy).index).toBeUndefined();
    for (const bad of [0, 63, 64.5, Number.NaN, 2 ** 31, "64"])
      expect(() => new MemTable({ hashIndexFrom: bad as number })).toThrow(TypeError);
  });
});
