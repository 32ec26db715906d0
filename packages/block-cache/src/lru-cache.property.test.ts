/**
 * Property tests: random sequences of cache calls checked against a plain model (arrays and
 * Maps, recomputed sums) after every step — counters, usage, pinned usage, entries, the exact
 * LRU order with its high-pool boundary (a lookup marks its entry referenced and leaves it in
 * the list; eviction takes a pinned entry off the list and gives a referenced one a second
 * chance), onEvict calls — plus the invariants stated in the
 * spec checked directly (strict limit, pinned entries never evicted, double release throws
 * until the handle is reused, a held handle always shows its own entry).
 */
import { ShaleError } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CacheHandle, EntryHandle } from "./entry.js";
import { hashKey } from "./key.js";
import { LRUCache } from "./lru-cache.js";

interface ModelEntry {
  id: number;
  offset: number;
  value: number;
  charge: number;
  high: boolean;
  refs: number;
  inCache: boolean;
  inHigh: boolean;
  /** Hit since it was last linked into the list (second chance). */
  referenced: boolean;
}

const keyOf = (id: number, offset: number): string => `${id}/${offset}`;
const sum = (entries: Iterable<ModelEntry>): number => {
  let total = 0;
  for (const e of entries) total += e.charge;
  return total;
};

/** One shard, written for obviousness: the list is an array, oldest first. */
class ModelShard {
  capacity = 0;
  highCapacity = 0;
  list: ModelEntry[] = [];
  table = new Map<string, ModelEntry>();
  charged = new Set<ModelEntry>();
  hits = 0;
  misses = 0;
  inserts = 0;
  evictions = 0;

  constructor(
    readonly ratio: number,
    readonly strict: boolean,
    readonly freed: number[],
  ) {}

  usage(): number {
    return sum(this.charged);
  }
  private highUsage(): number {
    return sum(this.list.filter((e) => e.inHigh));
  }
  private link(e: ModelEntry): void {
    e.referenced = false;
    if (e.high && this.ratio > 0) {
      e.inHigh = true;
      this.list.push(e);
      this.maintain();
    } else {
      e.inHigh = false;
      const firstHigh = this.list.findIndex((x) => x.inHigh);
      this.list.splice(firstHigh < 0 ? this.list.length : firstHigh, 0, e);
    }
  }
  private maintain(): void {
    while (this.highUsage() > this.highCapacity) this.list.find((x) => x.inHigh)!.inHigh = false;
  }
  private unlink(e: ModelEntry): void {
    this.list.splice(this.list.indexOf(e), 1);
    e.inHigh = false;
  }
  private free(e: ModelEntry): void {
    this.charged.delete(e);
    this.freed.push(e.value);
  }
  private evict(charge: number): void {
    while (this.usage() + charge > this.capacity && this.list.length > 0) {
      const old = this.list.shift()!;
      old.inHigh = false;
      // Pinned: off the list until its last release; referenced: a second chance.
      if (old.refs > 0) continue;
      if (old.referenced) {
        this.link(old);
        continue;
      }
      this.table.delete(keyOf(old.id, old.offset));
      old.inCache = false;
      this.evictions++;
      this.free(old);
    }
  }
  insert(e: ModelEntry, pin: boolean): boolean {
    this.evict(e.charge);
    if (this.usage() + e.charge > this.capacity && (this.strict || !pin)) return false;
    const key = keyOf(e.id, e.offset);
    const old = this.table.get(key);
    this.table.set(key, e);
    e.inCache = true;
    this.charged.add(e);
    this.inserts++;
    if (old !== undefined) this.detach(old);
    if (pin) e.refs = 1;
    else this.link(e);
    return true;
  }
  lookup(id: number, offset: number): ModelEntry | undefined {
    const e = this.table.get(keyOf(id, offset));
    if (e === undefined) {
      this.misses++;
      return undefined;
    }
    e.refs++;
    e.referenced = true;
    this.hits++;
    return e;
  }
  release(e: ModelEntry): void {
    if (--e.refs > 0) return;
    if (e.inCache) {
      if (this.usage() <= this.capacity) {
        if (!this.list.includes(e)) this.link(e);
        return;
      }
      if (this.list.includes(e)) this.unlink(e);
      this.table.delete(keyOf(e.id, e.offset));
      e.inCache = false;
      this.evictions++;
    }
    this.free(e);
  }
  erase(id: number, offset: number): void {
    const e = this.table.get(keyOf(id, offset));
    if (e === undefined) return;
    this.table.delete(keyOf(id, offset));
    this.detach(e);
  }
  eraseId(id: number): void {
    for (const e of [...this.table.values()]) if (e.id === id) this.erase(e.id, e.offset);
  }
  private detach(e: ModelEntry): void {
    e.inCache = false;
    if (this.list.includes(e)) this.unlink(e);
    if (e.refs === 0) this.free(e);
  }
  setCapacity(capacity: number): void {
    this.capacity = capacity;
    this.highCapacity = Math.floor(capacity * this.ratio);
    this.evict(0);
    this.maintain();
  }
}

class ModelCache {
  shards: ModelShard[] = [];
  freed: number[] = [];
  constructor(
    public capacity: number,
    readonly bits: number,
    ratio: number,
    strict: boolean,
  ) {
    for (let i = 0; i < 1 << bits; i++) this.shards.push(new ModelShard(ratio, strict, this.freed));
    this.setCapacity(capacity);
  }
  shardOf(id: number, offset: number): ModelShard {
    const h = hashKey(id, offset);
    return this.shards[this.bits === 0 ? 0 : h >>> (32 - this.bits)]!;
  }
  setCapacity(capacity: number): void {
    this.capacity = capacity;
    const n = this.shards.length;
    const base = Math.floor(capacity / n);
    for (let i = 0; i < n; i++)
      this.shards[i]!.setCapacity(base + (i < capacity - base * n ? 1 : 0));
  }
  stats() {
    const s = { hits: 0, misses: 0, inserts: 0, evictions: 0, usage: 0, pinnedUsage: 0 };
    for (const shard of this.shards) {
      s.hits += shard.hits;
      s.misses += shard.misses;
      s.inserts += shard.inserts;
      s.evictions += shard.evictions;
      s.usage += shard.usage();
      s.pinnedUsage += sum([...shard.charged].filter((e) => e.refs > 0));
    }
    return { ...s, capacity: this.capacity, entries: this.entries() };
  }
  entries(): number {
    return this.shards.reduce((n, s) => n + s.table.size, 0);
  }
}

/** The real cache's LRU lists, oldest first, as "id/offset" plus "*" for the high pool. */
function realLists(cache: LRUCache<number>): string[][] {
  return cache["shards"].map((shard) => shard.lruKeys());
}
const modelLists = (model: ModelCache): string[][] =>
  model.shards.map((s) => s.list.map((e) => keyOf(e.id, e.offset) + (e.inHigh ? "*" : "")));

const ids = [0, 1, 2, 2 ** 32, 2 ** 53 - 1];
const offsets = [0, 1, 4096, 8192, 2 ** 32, 2 ** 32 + 4096, 2 ** 53 - 2, 2 ** 53 - 1];
const idArb = fc.constantFrom(...ids);
const offsetArb = fc.constantFrom(...offsets);

type Op =
  | { t: "insert"; id: number; offset: number; charge: number; high: boolean; pin: boolean }
  | { t: "lookup"; id: number; offset: number }
  | { t: "release"; i: number }
  | { t: "releaseAgain"; i: number }
  | { t: "erase"; id: number; offset: number }
  | { t: "eraseId"; id: number }
  | { t: "setCapacity"; capacity: number };

const opArb = (withSetCapacity: boolean): fc.Arbitrary<Op> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        t: fc.constant("insert" as const),
        id: idArb,
        offset: offsetArb,
        charge: fc.nat(40),
        high: fc.boolean(),
        pin: fc.boolean(),
      }),
    },
    {
      weight: 5,
      arbitrary: fc.record({ t: fc.constant("lookup" as const), id: idArb, offset: offsetArb }),
    },
    { weight: 6, arbitrary: fc.record({ t: fc.constant("release" as const), i: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("releaseAgain" as const), i: fc.nat() }) },
    {
      weight: 1,
      arbitrary: fc.record({ t: fc.constant("erase" as const), id: idArb, offset: offsetArb }),
    },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("eraseId" as const), id: idArb }) },
    {
      weight: withSetCapacity ? 1 : 0,
      arbitrary: fc.record({ t: fc.constant("setCapacity" as const), capacity: fc.nat(200) }),
    },
  );

interface Config {
  capacity: number;
  bits: number;
  ratio: number;
  strict: boolean;
}

const configArb = fc.record({
  capacity: fc.nat(200),
  bits: fc.constantFrom(0, 0, 1, 2),
  ratio: fc.constantFrom(0, 0.25, 0.5, 1),
  strict: fc.boolean(),
});

interface Held {
  handle: CacheHandle<number>;
  model: ModelEntry;
  /** The test erased or replaced this key while holding the pin. */
  removedByUser: boolean;
}

/** Runs `ops` on a real cache and the model, checking both agree after every step. */
function run(config: Config, ops: Op[], checkStrictBound: boolean): void {
  const realFreed: number[] = [];
  const cache = new LRUCache<number>({
    capacity: config.capacity,
    numShardBits: config.bits,
    highPriPoolRatio: config.ratio,
    strictCapacityLimit: config.strict,
    onEvict: (value) => realFreed.push(value),
  });
  const model = new ModelCache(config.capacity, config.bits, config.ratio, config.strict);
  const held: Held[] = [];
  const released: Held[] = [];
  const markRemoved = (match: (h: Held) => boolean): void => {
    for (const h of held) if (match(h)) h.removedByUser = true;
  };
  let nextValue = 0;
  for (const op of ops) {
    switch (op.t) {
      case "insert": {
        const value = nextValue++;
        const m: ModelEntry = {
          ...op,
          value,
          refs: 0,
          inCache: false,
          inHigh: false,
          referenced: false,
        };
        const ok = model.shardOf(op.id, op.offset).insert(m, op.pin);
        const priority = op.high ? "high" : "low";
        if (ok) markRemoved((h) => h.handle.id === op.id && h.handle.offset === op.offset);
        if (op.pin) {
          if (ok) {
            const handle = cache.insert(op.id, op.offset, value, op.charge, priority);
            expect(handle.value).toBe(value);
            held.push({ handle, model: m, removedByUser: false });
          } else {
            expect(() => cache.insert(op.id, op.offset, value, op.charge, priority)).toThrow(
              expect.objectContaining({ code: "Incomplete" }),
            );
          }
        } else {
          expect(cache.insertUnpinned(op.id, op.offset, value, op.charge, priority)).toBe(ok);
        }
        break;
      }
      case "lookup": {
        const m = model.shardOf(op.id, op.offset).lookup(op.id, op.offset);
        const handle = cache.lookup(op.id, op.offset);
        expect(handle?.value).toBe(m?.value);
        if (handle !== undefined) held.push({ handle, model: m!, removedByUser: false });
        break;
      }
      case "release": {
        if (held.length === 0) break;
        const [h] = held.splice(op.i % held.length, 1);
        model.shardOf(h!.handle.id, h!.handle.offset).release(h!.model);
        cache.release(h!.handle);
        released.push(h!);
        break;
      }
      case "releaseAgain": {
        // A released handle is detectable while it is in the pool (no value), not once a
        // later pin took it (lru-cache.ts, entry.ts).
        const candidates = released.filter((h) => h.handle.value === undefined);
        if (candidates.length === 0) break;
        const h = candidates[op.i % candidates.length]!;
        expect(() => cache.release(h.handle)).toThrow(ShaleError);
        break;
      }
      case "erase":
        model.shardOf(op.id, op.offset).erase(op.id, op.offset);
        markRemoved((h) => h.handle.id === op.id && h.handle.offset === op.offset);
        cache.erase(op.id, op.offset);
        break;
      case "eraseId":
        for (const s of model.shards) s.eraseId(op.id);
        markRemoved((h) => h.handle.id === op.id);
        cache.eraseId(op.id);
        break;
      case "setCapacity":
        model.setCapacity(op.capacity);
        cache.setCapacity(op.capacity);
        break;
    }
    // The model agrees on every counter and gauge, the LRU order and what was freed.
    expect(cache.stats()).toEqual(model.stats());
    expect(realLists(cache)).toEqual(modelLists(model));
    expect([...realFreed].sort()).toEqual([...model.freed].sort());
    for (const shard of cache["shards"]) shard.verify();
    // Direct invariants, independent of the model.
    let liveCharges = 0;
    for (const shard of cache["shards"]) {
      for (const e of shard.tableSlots()) liveCharges += shard.table.chargeOf(e);
    }
    const erasedPinned = new Set<CacheHandle<number>>();
    for (const h of held) {
      const e = h.handle as EntryHandle<number>;
      expect(e.slot).toBeGreaterThan(0); // pinned: never freed
      // Handles are pooled and reused (entry.ts), never while pinned: each shows its own entry.
      expect([e.value, e.id, e.offset, e.charge]).toEqual([
        h.model.value,
        h.model.id,
        h.model.offset,
        h.model.charge,
      ]);
      if (!h.removedByUser)
        expect(e.shard.inCache(e.slot)).toBe(true); // nor evicted
      else if (!e.shard.inCache(e.slot)) erasedPinned.add(e);
    }
    for (const e of erasedPinned) liveCharges += e.charge;
    // Every pin has its own handle: no held handle is another held one (or in the pool).
    expect(new Set(held.map((h) => h.handle)).size).toBe(held.length);
    for (const h of held)
      expect(cache["pool"].includes(h.handle as EntryHandle<number>)).toBe(false);
    expect(cache.usage).toBe(liveCharges);
    if (checkStrictBound) expect(cache.usage).toBeLessThanOrEqual(cache.capacity);
  }
  // Releasing everything leaves only unpinned entries, all within capacity.
  for (const h of held) cache.release(h.handle);
  expect(cache.pinnedUsage).toBe(0);
  expect(cache.usage).toBeLessThanOrEqual(cache.capacity);
  for (const shard of cache["shards"]) shard.verify();
}

describe("LRUCache against a model", () => {
  it("agrees with the model on random call sequences", () => {
    fc.assert(
      fc.property(configArb, fc.array(opArb(true), { maxLength: 120 }), (config, ops) => {
        run(config, ops, false);
      }),
      { numRuns: 400 },
    );
  });

  it("never exceeds capacity with strictCapacityLimit", () => {
    fc.assert(
      fc.property(
        configArb.map((c) => ({ ...c, strict: true })),
        fc.array(opArb(false), { maxLength: 120 }),
        (config, ops) => {
          run(config, ops, true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
