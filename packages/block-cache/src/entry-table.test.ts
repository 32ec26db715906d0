import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CacheEntry } from "./entry.js";
import { EntryTable } from "./entry-table.js";
import type { LRUShard } from "./shard.js";

const noShard = null as unknown as LRUShard<number>;

describe("EntryTable", () => {
  it("matches a Map under heavy collisions, wrap-around and growth", () => {
    // Hashes 0..15 and near the end of the table force clusters that wrap around slot 0.
    const hashArb = fc.oneof(fc.nat(3), fc.integer({ min: 12, max: 15 }), fc.integer());
    const op = fc.record({
      kind: fc.constantFrom("insert", "insert", "remove", "removeKey"),
      id: fc.nat(5),
      offset: fc.nat(5),
      hash: hashArb,
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const table = new EntryTable<number>();
        const model = new Map<string, CacheEntry<number>>();
        const hashOf = new Map<string, number>(); // one hash per key, as hashKey would give
        for (const { kind, id, offset, hash } of ops) {
          const key = `${id}/${offset}`;
          const h = hashOf.get(key) ?? hash;
          hashOf.set(key, h);
          const existing = model.get(key);
          if (kind === "insert") {
            const e = new CacheEntry<number>(noShard, id, offset, h, 0, 1, false);
            expect(table.insert(e)).toBe(existing);
            model.set(key, e);
          } else if (kind === "remove") {
            if (existing === undefined) continue;
            table.remove(existing);
            model.delete(key);
          } else {
            expect(table.removeKey(h, id, offset)).toBe(existing);
            model.delete(key);
          }
          expect(table.count).toBe(model.size);
          for (const [k, e] of model) {
            expect(table.find(hashOf.get(k)!, e.id, e.offset)).toBe(e);
          }
          for (const k of hashOf.keys()) {
            if (model.has(k)) continue;
            const [id2, offset2] = k.split("/").map(Number) as [number, number];
            expect(table.find(hashOf.get(k)!, id2, offset2)).toBeUndefined();
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
