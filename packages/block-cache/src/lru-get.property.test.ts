/**
 * `LRUCache.get` and `touch` (and `lookup` + `release`, which pin as well): a hit leaves the
 * list alone, marking the entry referenced; eviction gives referenced entries a second
 * chance. Checked against a model of that list.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CacheHandle } from "./entry.js";
import { LRUCache } from "./lru-cache.js";

/** The shard's list without a high-priority pool: keys oldest first, with referenced bits. */
class ListModel {
  readonly order: { key: number; referenced: boolean }[] = [];

  linkNewest(key: number): void {
    this.order.push({ key, referenced: false });
  }

  unlink(key: number): void {
    this.order.splice(
      this.order.findIndex((e) => e.key === key),
      1,
    );
  }

  reference(key: number): void {
    const e = this.order.find((x) => x.key === key);
    if (e !== undefined) e.referenced = true;
  }

  /** Evicts one entry, relinking referenced ones first; returns the evicted key. */
  evictOne(): number {
    for (;;) {
      const e = this.order.shift()!;
      if (!e.referenced) return e.key;
      this.linkNewest(e.key);
    }
  }
}

describe("LRUCache.get", () => {
  it("returns the value, counts hits and misses, and needs no release", () => {
    const evicted: string[] = [];
    const cache = new LRUCache<string>({
      capacity: 2,
      numShardBits: 0,
      onEvict: (v) => evicted.push(v),
    });
    cache.insertUnpinned(1, 0, "a", 1);
    expect(cache.get(1, 0)).toBe("a");
    expect(cache.get(1, 8)).toBeUndefined();
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 1 });
    expect(cache.usage).toBe(1);
    // Not pinned: erase frees it at once.
    cache.erase(1, 0);
    expect(evicted).toEqual(["a"]);
    expect(cache.usage).toBe(0);
  });

  it("rejects bad keys on a miss", () => {
    const cache = new LRUCache<string>({ capacity: 2 });
    expect(() => cache.get(-1, 0)).toThrow();
    expect(() => cache.get(1, 0.5)).toThrow();
  });

  it("an entry read by get outlives entries that were not (second chance)", () => {
    const evicted: number[] = [];
    const cache = new LRUCache<number>({
      capacity: 3,
      numShardBits: 0,
      highPriPoolRatio: 0,
      onEvict: (v) => evicted.push(v),
    });
    for (let k = 0; k < 3; k++) cache.insertUnpinned(1, k, k, 1);
    cache.get(1, 0); // the oldest, referenced
    cache.insertUnpinned(1, 3, 3, 1);
    expect(evicted).toEqual([1]);
    cache.insertUnpinned(1, 4, 4, 1);
    expect(evicted).toEqual([1, 2]);
    cache.insertUnpinned(1, 5, 5, 1);
    expect(evicted).toEqual([1, 2, 0]); // its second chance is used up
  });

  it("touch: a hit through insertReferenced's reference, until the entry leaves the cache", () => {
    const evicted: string[] = [];
    const cache = new LRUCache<string>({
      capacity: 2,
      numShardBits: 0,
      highPriPoolRatio: 0,
      onEvict: (v) => evicted.push(v),
    });
    const a = cache.insertReferenced(1, 0, "a", 1)!;
    expect(a.value).toBe("a");
    expect(cache.touch(a)).toBe("a");
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 0 });
    // Referenced: the second chance keeps it over "b" when "c" comes in.
    cache.insertReferenced(1, 1, "b", 1);
    cache.insertReferenced(1, 2, "c", 1);
    expect(evicted).toEqual(["b"]);
    expect(cache.touch(a)).toBe("a");
    // Replaced: the reference is to the old entry, which has left the cache (room for the
    // new one was made first: "a" had its second chance, "c" went).
    cache.insertUnpinned(1, 0, "a2", 1);
    expect(evicted).toEqual(["b", "c", "a"]);
    expect(cache.touch(a)).toBeUndefined();
    expect(cache.stats().hits).toBe(2);
    // Not inserted (larger than the capacity): no reference.
    expect(cache.insertReferenced(1, 9, "big", 3)).toBeUndefined();
    // Erased.
    const c = cache.insertReferenced(1, 3, "d", 1)!;
    cache.erase(1, 3);
    expect(cache.touch(c)).toBeUndefined();
    expect(() => cache.release(c)).toThrow(/already released/);
    const other = new LRUCache<string>({ capacity: 2 });
    expect(() => other.touch(a)).toThrow(TypeError);
  });

  it("evicts in the order of the second-chance list model", () => {
    const step = fc.record({
      key: fc.nat(),
      kind: fc.constantFrom("get", "touch", "use", "insert"),
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(step, { maxLength: 200 }),
        (n, steps) => {
          const evicted: number[] = [];
          const cache = new LRUCache<number>({
            capacity: n,
            numShardBits: 0,
            highPriPoolRatio: 0,
            onEvict: (v) => evicted.push(v),
          });
          const model = new ListModel();
          const expected: number[] = [];
          // References of every entry inserted (insertReferenced), live or not.
          const refs = new Map<number, CacheHandle<number>>();
          let next = 0;
          const insert = (): void => {
            const k = next++;
            if (model.order.length === n) expected.push(model.evictOne());
            refs.set(k, cache.insertReferenced(1, k, k, 1)!);
            model.linkNewest(k);
          };
          for (let i = 0; i < n; i++) insert();
          for (const { key, kind } of steps) {
            const k = model.order[key % model.order.length]!.key;
            if (kind === "get") {
              expect(cache.get(1, k)).toBe(k);
              model.reference(k);
            } else if (kind === "touch") {
              expect(cache.touch(refs.get(k)!)).toBe(k);
              model.reference(k);
              // A reference of an evicted entry counts nothing.
              const gone =
                expected.length > 0 ? refs.get(expected[expected.length - 1]!) : undefined;
              if (gone !== undefined) {
                const hits = cache.stats().hits;
                expect(cache.touch(gone)).toBeUndefined();
                expect(cache.stats().hits).toBe(hits);
              }
            } else if (kind === "use") {
              // A pinned hit marks the entry as get does; its release leaves the list alone.
              cache.release(cache.lookup(1, k)!);
              model.reference(k);
            } else {
              insert();
            }
            expect(evicted).toEqual(expected);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
