/**
 * Property tests of eviction order stated without a model: unpinned entries leave in least
 * recently used order, and high-priority entries outlive low-priority churn while they fit
 * in the pool.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LRUCache } from "./lru-cache.js";

describe("eviction order", () => {
  it("evicts released entries least recently used first", () => {
    // A use is a lookup + release; a pinned key is used when its (only) pin is released.
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
            onEvict: (_value, _id, offset) => evicted.push(offset),
          });
          const lastUse = new Map<number, number>();
          let clock = 0;
          for (let k = 0; k < n; k++) {
            cache.insertUnpinned(1, k, k, 1);
            lastUse.set(k, clock++);
          }
          const held = new Map<number, ReturnType<typeof cache.lookup>>();
          const unpin = (k: number): void => {
            cache.release(held.get(k)!);
            held.delete(k);
            lastUse.set(k, clock++);
          };
          for (const { key, kind } of steps) {
            const k = key % n;
            if (kind === "use") {
              const h = cache.lookup(1, k)!;
              expect(h.value).toBe(k);
              cache.release(h);
              if (!held.has(k)) lastUse.set(k, clock++);
            } else if (kind === "pin" && !held.has(k)) {
              held.set(k, cache.lookup(1, k));
            } else if (kind === "unpin" && held.size > 0) {
              unpin([...held.keys()][key % held.size]!);
            }
          }
          for (const k of [...held.keys()]) unpin(k);
          expect(evicted).toEqual([]);
          // n new keys push every old one out, in order of last use.
          for (let k = 0; k < n; k++) cache.insertUnpinned(2, k, -1, 1);
          expect(evicted).toEqual([...lastUse].sort((a, b) => a[1] - b[1]).map(([k]) => k));
        },
      ),
      { numRuns: 300 },
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
