import { ShaleError } from "@shale/base";
import { describe, expect, it } from "vitest";
import { ERASE_STEP_ENTRIES, ERASE_STEP_SLOTS, LRUCache, MAX_POOLED_HANDLES } from "./lru-cache.js";

/** Keys of unpinned entries, oldest first, "*" marking the high pool (single-shard caches). */
function lruOrder<V>(cache: LRUCache<V>): string[] {
  return cache["shards"][0]!.lruKeys();
}

const single = (capacity: number, extra: { highPriPoolRatio?: number; strict?: boolean } = {}) =>
  new LRUCache<string>({
    capacity,
    numShardBits: 0,
    highPriPoolRatio: extra.highPriPoolRatio ?? 0,
    strictCapacityLimit: extra.strict ?? false,
  });

const incomplete = expect.objectContaining({ code: "Incomplete" });
const invalid = expect.objectContaining({ code: "InvalidArgument" });

describe("LRUCache basics", () => {
  it("inserts, looks up, pins and releases", () => {
    const cache = single(100);
    const h = cache.insert(1, 0, "a", 10);
    expect(h).toMatchObject({ value: "a", charge: 10, id: 1, offset: 0 });
    expect(cache.pinnedUsage).toBe(10);
    cache.release(h);
    expect(cache.pinnedUsage).toBe(0);
    const hit = cache.lookup(1, 0)!;
    expect(hit.value).toBe("a");
    expect(cache.lookup(1, 1)).toBeUndefined();
    expect(cache.lookup(2, 0)).toBeUndefined();
    cache.release(hit);
    expect(cache.stats()).toEqual({
      hits: 1,
      misses: 2,
      inserts: 1,
      evictions: 0,
      usage: 10,
      pinnedUsage: 0,
      capacity: 100,
      entries: 1,
    });
    cache.resetStats();
    expect(cache.stats()).toMatchObject({
      hits: 0,
      misses: 0,
      inserts: 0,
      evictions: 0,
      usage: 10,
    });
  });

  it("gives each pin its own handle, reusing released ones (no allocation per pinned hit)", () => {
    const cache = single(100);
    cache.insertUnpinned(1, 0, "a", 1);
    cache.insertUnpinned(1, 1, "b", 1);
    const a = cache.lookup(1, 0)!;
    const b = cache.lookup(1, 0)!;
    expect(a).not.toBe(b); // two pins, two handles
    expect([a.value, b.value, cache.pinnedUsage]).toEqual(["a", "a", 1]);
    cache.release(a);
    expect(() => cache.release(a)).toThrow(invalid); // released: detected
    expect(cache.pinnedUsage).toBe(1); // b's pin is still held
    cache.release(b);
    expect(cache.pinnedUsage).toBe(0);
    // The last released handle is the next pin's, of any entry.
    const c = cache.lookup(1, 1)!;
    expect(c).toBe(b);
    expect([c.value, c.id, c.offset, c.charge]).toEqual(["b", 1, 1, 1]);
    expect(cache.lookup(1, 0)).toBe(a);
    cache.release(c);
    cache.release(a);
    expect(cache.pinnedUsage).toBe(0);
    cache["shards"][0]!.verify();
  });

  it("evicts the least recently used unpinned entries first", () => {
    const cache = single(3);
    for (const offset of [0, 1, 2]) cache.insertUnpinned(1, offset, `v${offset}`, 1);
    cache.release(cache.lookup(1, 0)!); // 0 becomes the most recent
    cache.insertUnpinned(1, 3, "v3", 2); // evicts 1 then 2
    expect(lruOrder(cache)).toEqual(["1/0", "1/3"]);
    expect(cache.stats().evictions).toBe(2);
  });

  it("never evicts a pinned entry and exceeds capacity without the strict limit", () => {
    const cache = single(10);
    const pinned = cache.insert(1, 0, "pinned", 8);
    expect(cache.insertUnpinned(1, 1, "x", 5)).toBe(false); // would be evicted at once
    const big = cache.insert(1, 2, "big", 5);
    expect(cache.usage).toBe(13);
    const again = cache.lookup(1, 0)!;
    expect(again.value).toBe("pinned");
    cache.release(pinned);
    cache.release(again);
    // Over capacity on release: freed instead of kept.
    expect(cache.lookup(1, 0)).toBeUndefined();
    expect(cache.usage).toBe(5);
    cache.release(big);
    expect(cache.lookup(1, 2)?.value).toBe("big");
  });

  it("with strictCapacityLimit, insert throws Incomplete and insertUnpinned returns false", () => {
    const cache = single(10, { strict: true });
    const a = cache.insert(1, 0, "a", 6);
    cache.insertUnpinned(1, 1, "b", 3);
    expect(() => cache.insert(1, 2, "c", 5)).toThrow(incomplete);
    expect(() => cache.insert(1, 2, "c", 5)).toThrow(ShaleError);
    expect(cache.insertUnpinned(1, 2, "c", 5)).toBe(false);
    // The unpinned entry was evicted trying to make room; the pinned one stays.
    expect(cache.stats()).toMatchObject({ usage: 6, entries: 1, inserts: 2, evictions: 1 });
    expect(cache.insertUnpinned(1, 2, "c", 4)).toBe(true);
    expect(cache.usage).toBe(10);
    cache.release(a);
  });

  it("an insert after a miss of its key still replaces an entry added since the miss", () => {
    const freed: string[] = [];
    const cache = new LRUCache<string>({ capacity: 100, onEvict: (v) => freed.push(v) });
    expect(cache.get(1, 0)).toBeUndefined(); // remembered: (1, 0) absent
    cache.insertUnpinned(1, 0, "a", 3); // absent indeed: not looked for
    cache.insertUnpinned(1, 0, "b", 4); // the same key again: "a" is replaced
    expect(cache.get(1, 0)).toBe("b");
    expect(freed).toEqual(["a"]);
    expect(cache.stats()).toMatchObject({ entries: 1, usage: 4 });
    expect(cache.lookup(2, 0)).toBeUndefined();
    const h = cache.insert(2, 0, "c", 5);
    cache.insertUnpinned(3, 0, "d", 1); // another key between the miss and the insert
    expect(cache.insertReferenced(2, 0, "e", 6)).toBeDefined();
    expect(cache.get(2, 0)).toBe("e");
    expect(cache.stats()).toMatchObject({ entries: 3, usage: 16, pinnedUsage: 5 });
    cache.release(h);
    expect(freed).toEqual(["a", "c"]);
    for (const shard of cache["shards"]) shard.verify();
  });

  it("throws on a second release and on foreign handles", () => {
    const cache = single(10);
    const other = single(10);
    const h = cache.insert(1, 0, "a", 1);
    expect(() => other.release(h)).toThrow(TypeError);
    expect(() => cache.release({ value: "a", charge: 1, id: 1, offset: 0 })).toThrow(TypeError);
    cache.release(h);
    expect(() => cache.release(h)).toThrow(invalid);
    cache.erase(1, 0);
    expect(() => cache.release(h)).toThrow(invalid);
  });

  it("frees an erased pinned entry on its last release", () => {
    const freed: string[] = [];
    const cache = new LRUCache<string>({
      capacity: 10,
      numShardBits: 0,
      onEvict: (v) => freed.push(v),
    });
    const h = cache.insert(1, 0, "a", 4);
    const h2 = cache.lookup(1, 0)!;
    cache.erase(1, 0);
    expect(cache.lookup(1, 0)).toBeUndefined();
    expect(cache.stats()).toMatchObject({ usage: 4, pinnedUsage: 4, entries: 0 });
    cache.release(h);
    expect(freed).toEqual([]);
    expect(h2.value).toBe("a"); // still owned while pinned
    cache.release(h2);
    expect(freed).toEqual(["a"]);
    expect(cache.stats()).toMatchObject({ usage: 0, pinnedUsage: 0, entries: 0, evictions: 0 });
  });

  it("replaces an entry; the old value lives on while pinned", () => {
    const freed: string[] = [];
    const cache = new LRUCache<string>({ capacity: 10, onEvict: (v) => freed.push(v) });
    const old = cache.insert(1, 0, "old", 3);
    const fresh = cache.insert(1, 0, "new", 2);
    expect(cache.usage).toBe(5);
    const found = cache.lookup(1, 0)!;
    expect(found.value).toBe("new");
    cache.release(fresh);
    cache.release(found);
    expect(old.value).toBe("old");
    cache.release(old);
    expect(freed).toEqual(["old"]);
    expect(cache.stats()).toMatchObject({ usage: 2, entries: 1, inserts: 2 });
    cache.insertUnpinned(1, 0, "newer", 1); // an unpinned old entry is freed at once
    expect(freed).toEqual(["old", "new"]);
  });

  it("setCapacity shrinks by evicting LRU entries and can grow again", () => {
    const cache = single(10);
    for (let i = 0; i < 5; i++) cache.insertUnpinned(7, i, `v${i}`, 2);
    const pinned = cache.lookup(7, 0)!;
    cache.setCapacity(5);
    expect(cache.capacity).toBe(5);
    expect(lruOrder(cache)).toEqual(["7/4"]);
    expect(cache.stats()).toMatchObject({ usage: 4, pinnedUsage: 2, evictions: 3 });
    cache.setCapacity(0);
    expect(cache.usage).toBe(2); // only the pinned entry
    cache.release(pinned);
    expect(cache.usage).toBe(0);
    cache.setCapacity(100);
    expect(cache.insertUnpinned(7, 9, "x", 100)).toBe(true);
  });

  it("splits the capacity exactly over the shards", () => {
    const cache = new LRUCache<string>({ capacity: 1003, numShardBits: 3 });
    const shards = cache["shards"];
    expect(cache.numShards).toBe(8);
    expect(shards.reduce((n, s) => n + s.capacity, 0)).toBe(1003);
    expect(shards.map((s) => s.capacity)).toEqual([126, 126, 126, 125, 125, 125, 125, 125]);
    cache.setCapacity(7);
    expect(shards.map((s) => s.capacity)).toEqual([1, 1, 1, 1, 1, 1, 1, 0]);
  });

  it("hasRoomFor answers for the key's own shard, not the total", () => {
    const cache = new LRUCache<string>({ capacity: 400, numShardBits: 2 }); // 4 x 100
    // Insert until the shard of (1, 0) is full; the keys spread over all four shards.
    let offset = 1;
    while (cache.hasRoomFor(1, 0, 10)) cache.insertUnpinned(1, offset++, "x", 10);
    expect(cache.usage).toBeLessThan(cache.capacity); // the total still has room
    const evictions = cache.stats().evictions;
    cache.insertUnpinned(1, 0, "y", 10);
    expect(cache.stats().evictions).toBe(evictions + 1); // its shard had to evict
    // Some other shard still has room for the same charge.
    let other = false;
    for (let o = 10_000; o < 10_100 && !other; o++) other = cache.hasRoomFor(1, o, 10);
    expect(other).toBe(true);
  });

  it("eraseId erases every entry of one id in every shard", () => {
    const cache = new LRUCache<string>({ capacity: 1 << 20, numShardBits: 4 });
    for (let i = 0; i < 100; i++) {
      cache.insertUnpinned(1, i * 4096, "a", 10);
      cache.insertUnpinned(2, i * 4096, "b", 10);
    }
    const pinned = cache.lookup(1, 0)!;
    cache.eraseId(1);
    expect(cache.stats()).toMatchObject({ entries: 100, usage: 1010, pinnedUsage: 10 });
    expect(cache.lookup(1, 4096)).toBeUndefined();
    cache.release(pinned);
    expect(cache.usage).toBe(1000);
    for (const shard of cache["shards"]) shard.verify();
  });

  it("eraseIdSoon erases a big id's entries in bounded steps, one per macrotask, in order", async () => {
    const freed: number[] = [];
    const cache = new LRUCache<string>({
      capacity: 1 << 30,
      numShardBits: 2,
      onEvict: (_v, id) => freed.push(id),
    });
    const n = ERASE_STEP_ENTRIES * 2 + 100;
    for (let i = 0; i < n; i++) {
      cache.insertUnpinned(1, i * 4096, "a", 10);
      cache.insertUnpinned(3, i * 4096, "c", 10);
    }
    for (let i = 0; i < 50; i++) cache.insertUnpinned(2, i * 4096, "b", 10);
    const pinned = cache.lookup(1, 0)!;
    cache.eraseIdSoon(1);
    cache.eraseIdSoon(2);
    // Nothing yet: the caller does not pay for it.
    expect(cache.stats().entries).toBe(2 * n + 50);
    expect(cache.get(1, 4096)).toBe("a");
    expect(cache.pendingEraseIds).toEqual([1, 2]);
    const steps: number[] = [];
    while (cache.pendingEraseIds.length > 0) {
      const before = cache.stats().entries;
      await new Promise((r) => setTimeout(r, 1));
      steps.push(before - cache.stats().entries);
      for (const shard of cache["shards"]) shard.verify();
    }
    for (const step of steps) expect(step).toBeLessThanOrEqual(ERASE_STEP_ENTRIES);
    // Every id-1 and id-2 entry left the table (the pinned one too: it is freed on release).
    expect(steps.reduce((a, b) => a + b, 0)).toBe(n + 50);
    expect(cache.stats()).toMatchObject({ entries: n, pinnedUsage: 10 });
    expect(cache.get(1, 4096)).toBeUndefined();
    expect(cache.get(2, 0)).toBeUndefined();
    expect(cache.get(3, 4096)).toBe("c");
    // In order: every id-1 entry was freed before the first id-2 one (the pinned one waits).
    const firstTwo = freed.indexOf(2);
    expect(freed.slice(firstTwo).every((id) => id === 2)).toBe(true);
    expect(freed.filter((id) => id === 1).length).toBe(n - 1);
    cache.release(pinned);
    expect(freed.filter((id) => id === 1).length).toBe(n);
    expect(cache.usage).toBe(10 * n);
  });

  it("eraseIdSoon scans a bounded number of slots per step, however few entries match", async () => {
    const cache = new LRUCache<string>({ capacity: 1 << 30, numShardBits: 0 });
    const n = ERASE_STEP_SLOTS * 3;
    for (let i = 0; i < n; i++) cache.insertUnpinned(2, i * 4096, "b", 1);
    for (let i = 0; i < 10; i++) cache.insertUnpinned(1, i * 4096, "a", 1); // the last slots
    cache.eraseIdSoon(1);
    let steps = 0;
    while (cache.pendingEraseIds.length > 0) {
      await new Promise((r) => setTimeout(r, 1));
      steps++;
    }
    expect(steps).toBeGreaterThanOrEqual(3);
    expect(cache.stats().entries).toBe(n);
    expect(cache.get(1, 0)).toBeUndefined();
    expect(cache.get(2, 0)).toBe("b");
    cache["shards"][0]!.verify();
  });

  it("eraseIdSoon rejects a bad id at once", () => {
    const cache = single(100);
    expect(() => cache.eraseIdSoon(-1)).toThrow(invalid);
    expect(() => cache.eraseIdSoon(1.5)).toThrow(invalid);
    expect(cache.pendingEraseIds).toEqual([]);
  });

  it("hands out fresh ids", () => {
    const a = single(1);
    const b = single(1);
    expect([a.newId(), a.newId(), a.newId()]).toEqual([1, 2, 3]);
    expect(b.newId()).toBe(1);
  });

  it("keeps keys up to 2^53-1 exact", () => {
    const cache = new LRUCache<string>({ capacity: 100 });
    const max = Number.MAX_SAFE_INTEGER;
    const keys: [number, number][] = [
      [max, 0],
      [max - 1, 0],
      [0, max],
      [0, max - 1],
      [max, max],
      [1, 0],
      [0, 2 ** 32], // equal under id * 2^32 + offset
      [2 ** 32, 0],
    ];
    keys.forEach(([id, offset], i) => {
      cache.insertUnpinned(id, offset, `v${i}`, 1);
    });
    expect(cache.stats().entries).toBe(keys.length);
    keys.forEach(([id, offset], i) => {
      const h = cache.lookup(id, offset)!;
      expect(h.value).toBe(`v${i}`);
      cache.release(h);
    });
  });
});

describe("high-priority pool", () => {
  it("follows the worked example of shard.ts", () => {
    const cache = single(100, { highPriPoolRatio: 0.5 });
    cache.insertUnpinned(0, 1, "H1", 30, "high");
    cache.insertUnpinned(0, 2, "H2", 30, "high");
    expect(lruOrder(cache)).toEqual(["0/1", "0/2*"]); // H1 demoted
    cache.insertUnpinned(0, 3, "L1", 20, "low");
    expect(lruOrder(cache)).toEqual(["0/1", "0/3", "0/2*"]);
    cache.insertUnpinned(0, 4, "L2", 30);
    expect(lruOrder(cache)).toEqual(["0/3", "0/4", "0/2*"]);
  });

  it("keeps high-priority entries through low-priority churn up to the pool size", () => {
    const cache = single(1000, { highPriPoolRatio: 0.3 });
    for (let i = 0; i < 3; i++) cache.insertUnpinned(1, i, "index", 100, "high");
    for (let i = 0; i < 1000; i++) cache.insertUnpinned(2, i, "data", 1 + (i % 50));
    for (let i = 0; i < 3; i++) expect(cache.lookup(1, i)?.value).toBe("index");
  });

  it("demotes overflow from the pool so it can be evicted", () => {
    const cache = single(1000, { highPriPoolRatio: 0.3 });
    for (let i = 0; i < 4; i++) cache.insertUnpinned(1, i, "index", 100, "high");
    expect(lruOrder(cache)).toEqual(["1/0", "1/1*", "1/2*", "1/3*"]);
    for (let i = 0; i < 1000; i++) cache.insertUnpinned(2, i, "data", 1 + (i % 50));
    expect(cache.lookup(1, 0)).toBeUndefined();
    for (let i = 1; i < 4; i++) expect(cache.lookup(1, i)).toBeDefined();
  });

  it("leaves a pinned hit in place; eviction relinks it at the head of its own pool", () => {
    const cache = single(100, { highPriPoolRatio: 0.5 });
    cache.insertUnpinned(0, 1, "L1", 10);
    cache.insertUnpinned(0, 2, "L2", 10);
    cache.insertUnpinned(0, 3, "H1", 10, "high");
    cache.insertUnpinned(0, 4, "H2", 10, "high");
    cache.release(cache.lookup(0, 1)!);
    cache.release(cache.lookup(0, 3)!);
    expect(lruOrder(cache)).toEqual(["0/1", "0/2", "0/3*", "0/4*"]);
    // 40 + 70 > 100: L1 (hit) goes back to the head of the low region, L2 is evicted.
    cache.insertUnpinned(0, 5, "L3", 70);
    expect(lruOrder(cache)).toEqual(["0/1", "0/5", "0/3*", "0/4*"]);
    expect(cache.stats().evictions).toBe(1);
  });

  it("follows the pinned part of shard.ts's worked example", () => {
    const cache = single(100, { highPriPoolRatio: 0.5 });
    cache.insertUnpinned(0, 1, "H1", 30, "high");
    cache.insertUnpinned(0, 2, "H2", 30, "high");
    cache.insertUnpinned(0, 3, "L1", 20);
    cache.insertUnpinned(0, 4, "L2", 30);
    expect(lruOrder(cache)).toEqual(["0/3", "0/4", "0/2*"]);
    const l1 = cache.lookup(0, 3)!;
    expect(lruOrder(cache)).toEqual(["0/3", "0/4", "0/2*"]); // pinned, still listed
    expect(cache.pinnedUsage).toBe(20);
    cache.insertUnpinned(0, 5, "L3", 30); // 110 > 100: L1 pinned, off the list; L2 evicted
    expect(lruOrder(cache)).toEqual(["0/5", "0/2*"]);
    cache.release(l1);
    expect(lruOrder(cache)).toEqual(["0/5", "0/3", "0/2*"]);
    expect(cache.pinnedUsage).toBe(0);
    expect(cache.stats()).toMatchObject({ usage: 80, evictions: 2 });
  });

  it("treats high priority as low when the ratio is 0", () => {
    const cache = single(100, { highPriPoolRatio: 0 });
    cache.insertUnpinned(0, 1, "H", 10, "high");
    cache.insertUnpinned(0, 2, "L", 10);
    expect(lruOrder(cache)).toEqual(["0/1", "0/2"]);
  });
});

describe("slots and handles", () => {
  it("a stale reference never reaches the entry that reuses its slot", () => {
    const cache = single(10);
    const a = cache.insert(1, 0, "a", 10);
    cache.release(a);
    const ref = cache.insertReferenced(1, 4096, "r", 0)!; // newer than (1, 0)
    cache.insertUnpinned(2, 0, "b", 10); // evicts (1, 0) only: its slot is free
    expect(cache.touch(ref)).toBe("r");
    cache.erase(1, 4096); // the reference's entry leaves; its slot is free too
    cache.insertUnpinned(3, 0, "c", 0); // reuses a freed slot
    cache.insertUnpinned(3, 4096, "d", 0);
    // The reference is never given to another entry: every new first pin gets another.
    for (const [id, offset] of [
      [2, 0],
      [3, 0],
      [3, 4096],
    ] as const) {
      expect(cache.lookup(id, offset)).not.toBe(ref);
    }
    expect(cache.touch(ref)).toBeUndefined();
    expect(() => cache.release(ref)).toThrow(invalid);
    cache["shards"][0]!.verify();
  });

  it("pools released handles: a second release throws until a later pin takes the handle", () => {
    const cache = single(10);
    const a = cache.insert(1, 0, "a", 10);
    cache.release(a);
    expect(a.value).toBeUndefined(); // pooled: it keeps no value alive
    cache.insertUnpinned(2, 0, "b", 10); // evicts (1, 0)
    expect(() => cache.release(a)).toThrow(invalid);
    expect(cache.pinnedUsage).toBe(0);
    const b = cache.lookup(2, 0)!;
    expect(b).toBe(a); // reused: no allocation for the pin of (2, 0)
    expect([b.value, b.id, b.offset, b.charge]).toEqual(["b", 2, 0, 10]);
    expect(cache.pinnedUsage).toBe(10);
    const b2 = cache.lookup(2, 0)!; // the pool is empty: a new handle
    expect(b2).not.toBe(b);
    cache.release(b);
    cache.release(b2);
    expect(cache.pinnedUsage).toBe(0);
    expect(cache.get(2, 0)).toBe("b");
    // At most MAX_POOLED_HANDLES are kept; a released handle beyond them still throws.
    const held = [];
    for (let i = 0; i < MAX_POOLED_HANDLES + 5; i++) held.push(cache.lookup(2, 0)!);
    for (const h of held) cache.release(h);
    for (const h of held) expect(() => cache.release(h)).toThrow(invalid);
    expect(cache["pool"].length).toBe(MAX_POOLED_HANDLES);
    expect(cache.pinnedUsage).toBe(0);
    cache["shards"][0]!.verify();
  });

  it("a reference holds no pin: releasing it throws, and a pin of its entry is another handle", () => {
    const cache = single(10);
    const ref = cache.insertReferenced(1, 0, "r", 4)!;
    expect(() => cache.release(ref)).toThrow(invalid);
    const h = cache.lookup(1, 0)!;
    expect(h).not.toBe(ref);
    expect(() => cache.release(ref)).toThrow(invalid); // h's pin stays
    expect(cache.pinnedUsage).toBe(4);
    cache.release(h);
    expect(cache.touch(ref)).toBe("r");
    cache.erase(1, 0);
    expect(cache.touch(ref)).toBeUndefined();
    cache["shards"][0]!.verify();
  });

  it("grows its table without moving what handles and lookups see", () => {
    const cache = new LRUCache<number>({ capacity: 1 << 20, numShardBits: 2 });
    const handles = [];
    for (let i = 0; i < 5000; i++) {
      const h = cache.insert(i >> 6, (i & 63) * 4096, i, 1, i % 3 === 0 ? "high" : "low");
      if (i % 7 === 0) handles.push(h);
      else cache.release(h);
    }
    for (const h of handles) {
      const again = cache.lookup(h.id, h.offset)!;
      expect([again.id, again.offset, again.value]).toEqual([h.id, h.offset, h.value]);
      cache.release(h);
      cache.release(again);
    }
    for (let i = 0; i < 5000; i++) expect(cache.get(i >> 6, (i & 63) * 4096)).toBe(i);
    expect(cache.pinnedUsage).toBe(0);
    for (const shard of cache["shards"]) shard.verify();
  });
});

describe("onEvict", () => {
  it("may call back into the cache", () => {
    const log: string[] = [];
    const cache: LRUCache<string> = new LRUCache<string>({
      capacity: 2,
      numShardBits: 0,
      onEvict: (value, id, offset) => {
        log.push(`${value}@${id}/${offset}`);
        if (value === "a") cache.insertUnpinned(9, 9, "from-callback", 1); // evicts "b"
      },
    });
    cache.insertUnpinned(1, 0, "a", 1);
    cache.insertUnpinned(1, 1, "b", 1);
    cache.insertUnpinned(1, 2, "c", 1); // evicts "a"
    expect(log).toEqual(["a@1/0", "b@1/1"]);
    expect(cache.lookup(9, 9)?.value).toBe("from-callback");
    for (const shard of cache["shards"]) shard.verify();
  });

  it("propagates an exception and runs the remaining callbacks later", () => {
    const log: string[] = [];
    const cache = new LRUCache<string>({
      capacity: 10,
      numShardBits: 0,
      onEvict: (value) => {
        log.push(value);
        if (value === "a") throw new Error("boom");
      },
    });
    cache.insertUnpinned(1, 0, "a", 5);
    cache.insertUnpinned(1, 1, "b", 5);
    expect(() => cache.setCapacity(0)).toThrow("boom");
    expect(log).toEqual(["a"]);
    expect(cache.usage).toBe(0);
    cache.insertUnpinned(1, 2, "c", 0);
    cache.erase(1, 2);
    expect(log).toEqual(["a", "b", "c"]);
  });

  it("is not called for a failed insert", () => {
    const log: string[] = [];
    const cache = new LRUCache<string>({
      capacity: 1,
      strictCapacityLimit: true,
      onEvict: (v) => log.push(v),
    });
    expect(() => cache.insert(1, 0, "x", 2)).toThrow(incomplete);
    expect(cache.insertUnpinned(1, 0, "y", 2)).toBe(false);
    expect(log).toEqual([]);
  });
});

describe("argument checks", () => {
  it("rejects bad options", () => {
    expect(() => new LRUCache({ capacity: -1 })).toThrow(invalid);
    expect(() => new LRUCache({ capacity: 1.5 })).toThrow(invalid);
    expect(() => new LRUCache({ capacity: "1" as unknown as number })).toThrow(TypeError);
    expect(() => new LRUCache(null as unknown as { capacity: number })).toThrow(TypeError);
    expect(() => new LRUCache({ capacity: 1, numShardBits: 20 })).toThrow(invalid);
    expect(() => new LRUCache({ capacity: 1, numShardBits: -1 })).toThrow(invalid);
    expect(() => new LRUCache({ capacity: 1, highPriPoolRatio: 1.5 })).toThrow(invalid);
    expect(() => new LRUCache({ capacity: 1, highPriPoolRatio: Number.NaN })).toThrow(invalid);
    const notBool = { capacity: 1, strictCapacityLimit: 1 as unknown as boolean };
    expect(() => new LRUCache(notBool)).toThrow(TypeError);
  });

  it("rejects bad keys, charges and priorities", () => {
    const cache = single(10);
    for (const [id, offset] of [
      [-1, 0],
      [0, 0.5],
      [Number.NaN, 0],
      [0, 2 ** 53],
      [Number.POSITIVE_INFINITY, 0],
    ] as [number, number][]) {
      expect(() => cache.lookup(id, offset)).toThrow(invalid);
      expect(() => cache.insertUnpinned(id, offset, "v", 1)).toThrow(invalid);
      expect(() => cache.erase(id, offset)).toThrow(invalid);
    }
    expect(() => cache.lookup("1" as unknown as number, 0)).toThrow(TypeError);
    expect(() => cache.eraseId(-1)).toThrow(invalid);
    expect(() => cache.insert(1, 0, "v", -1)).toThrow(invalid);
    expect(() => cache.insert(1, 0, "v", Number.NaN)).toThrow(invalid);
    expect(() => cache.insert(1, 0, "v", 1, "mid" as "low")).toThrow(invalid);
    expect(() => cache.setCapacity(-5)).toThrow(invalid);
    expect(cache.stats().entries).toBe(0);
  });
});
