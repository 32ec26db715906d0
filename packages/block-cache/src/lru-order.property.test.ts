/**
 * Property tests of eviction order stated without a model: entries leave by second chance
 * (never hit first, then hit, each in list order), pinned entries never, and high-priority entries outlive low-priority churn while they fit
 * in the pool.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LRUCache } from "./lru-cache.js";

describe("eviction order", () => {
  it("evicts entries never hit first, then those hit, each in the order they were linked in", () => {
    // A hit is a lookup + release, or a pin held a while: it marks the entry referenced and
    // leaves the list alone, so eviction gives it a second chance (shard.ts).
    const step = fc.record({ key: fc.nat(), kind: fc.constantFrom("use", "use", "pin", "unpin") });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.array(step, { maxLength: 200 }),
        (n, steps) => {
          const evicted: number[] = [];
          const cache = new LRUCache<number>({
            capacity: n,
            numShardBits: 0,
            highPriPoolRatio: 0,
            onEvict: (_value, id, offset) => {
              if (id === 1) evicted.push(offset);
            },
          });
          for (let k = 0; k < n; k++) cache.insertUnpinned(1, k, k, 1);
          const hit = new Set<number>();
          const held = new Map<number, ReturnType<typeof cache.lookup>>();
          const unpin = (k: number): void => {
            cache.release(held.get(k)!);
            held.delete(k);
          };
          for (const { key, kind } of steps) {
            const k = key % n;
            if (kind === "use") {
              const h = cache.lookup(1, k)!;
              expect(h.value).toBe(k);
              cache.release(h);
              hit.add(k);
            } else if (kind === "pin" && !held.has(k)) {
              held.set(k, cache.lookup(1, k));
              hit.add(k);
            } else if (kind === "unpin" && held.size > 0) {
              unpin([...held.keys()][key % held.size]!);
            }
          }
          for (const k of [...held.keys()]) unpin(k);
          expect(evicted).toEqual([]);
          expect(cache.pinnedUsage).toBe(0);
          // 2n new keys push every old one out (a hit one outlives a few new ones): the ones
          // never hit, then the hit ones.
          for (let k = 0; k < 2 * n; k++) cache.insertUnpinned(2, k, -1, 1);
          const keys = [...Array(n).keys()];
          expect(evicted).toEqual([
            ...keys.filter((k) => !hit.has(k)),
            ...keys.filter((k) => hit.has(k)),
          ]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("never evicts a pinned entry: eviction takes it off the list, its release links it in", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 30 }),
        fc.array(fc.tuple(fc.nat(), fc.boolean()), { maxLength: 200 }),
        (n, steps) => {
          const cache = new LRUCache<number>({ capacity: n, numShardBits: 0 });
          for (let k = 0; k < n; k++) cache.insertUnpinned(1, k, k, 1);
          const pinnedKey = 0;
          const handle = cache.lookup(1, pinnedKey)!;
          let next = 0;
          for (const [key, insert] of steps) {
            if (insert) cache.insertUnpinned(2, next++, -1, 1);
            else cache.get(2, key % Math.max(1, next));
            expect(cache.get(1, pinnedKey)).toBe(pinnedKey);
          }
          cache.release(handle);
          expect(cache.pinnedUsage).toBe(0);
          expect(cache.usage).toBeLessThanOrEqual(n);
          for (const shard of cache["shards"]) shard.verify();
        },
      ),
      { numRuns: 200 },
    );
  });

  it("keeps high-priority entries through low-priority churn while they fit the pool", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 2000 }),
        fc.constantFrom(0.1, 0.3, 0.5, 0.9, 1),
        fc.array(fc.integer({ min: 1, max: 100 }), { maxLength: 20 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(100), fc.boolean()), { maxLength: 300 }),
        (capacity, ratio, highCharges, churn) => {
          const cache = new LRUCache<string>({
            capacity,
            numShardBits: 0,
            highPriPoolRatio: ratio,
          });
          const pool = Math.floor(capacity * ratio);
          // High-priority entries that fit the pool together.
          const kept: number[] = [];
          let used = 0;
          highCharges.forEach((charge, i) => {
            if (used + charge > pool) return;
            used += charge;
            kept.push(i);
            cache.insertUnpinned(1, i, "high", charge, "high");
          });
          // Low-priority churn with charges that fit beside them; lookups of the high ones.
          for (const [key, charge, touchHigh] of churn) {
            if (touchHigh && kept.length > 0) {
              cache.release(cache.lookup(1, kept[key % kept.length]!)!);
            }
            const c = Math.min(charge, capacity - used);
            cache.insertUnpinned(2, key % 64, "low", c);
          }
          for (const i of kept) expect(cache.lookup(1, i)?.value).toBe("high");
        },
      ),
      { numRuns: 300 },
    );
  });
});
