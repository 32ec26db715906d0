/**
 * SharedBlockCache against a model, one thread: every hit's bytes are the block's, a block
 * just inserted is found, an erased one is not, the charged bytes never pass the capacity and
 * equal the chunks of the blocks held, and a slot seen at a generation stays current exactly
 * while it holds that block.
 */
import { ShaleError } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chunkSizes } from "./layout.js";
import { SharedBlockCache } from "./shared-block-cache.js";

/** The contents of block (file, offset): `length` bytes that depend on all three. */
function blockBytes(file: number, offset: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = (file * 2654435761 + offset * 40503 + length) >>> 0;
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** Block lengths are a function of the key, as in a table (a block's bytes never change). */
function lengthOf(file: number, offset: number, maxLength: number): number {
  return 1 + ((file * 7919 + offset * 104729) % maxLength);
}

type Op =
  | { kind: "insert"; file: number; offset: number }
  | { kind: "lookup"; file: number; offset: number }
  | { kind: "erase"; file: number; offset: number };

const key = fc.record({
  file: fc.integer({ min: 0, max: 5 }),
  offset: fc.integer({ min: 0, max: 40 }),
});
const op: fc.Arbitrary<Op> = fc.oneof(
  key.map((k) => ({ kind: "insert" as const, ...k })),
  key.map((k) => ({ kind: "lookup" as const, ...k })),
  key.map((k) => ({ kind: "erase" as const, ...k })),
);

function sameBytes(cache: SharedBlockCache, start: number, expected: Uint8Array): boolean {
  const data = cache.data;
  for (let i = 0; i < expected.length; i++) if (data[start + i] !== expected[i]) return false;
  return true;
}

describe("SharedBlockCache (model)", () => {
  it("hits return the block's bytes; capacity holds; generations retire with the block", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(4096, 8192),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 100, max: 4096 }),
        fc.array(op, { maxLength: 300 }),
        (slabSize, slabs, maxLength, ops) => {
          const cache = SharedBlockCache.create(slabSize * slabs, { slabSize });
          const sizes = chunkSizes(slabSize);
          const chunkOf = (n: number) => sizes.find((s) => s >= n)!;
          /** Blocks the model knows the cache holds: key -> [slot, generation, start]. */
          const held = new Map<string, [number, number, number]>();
          /** Every (slot, generation) seen, with its key. */
          const seen: { k: string; slot: number; gen: number; start: number }[] = [];
          for (const o of ops) {
            const k = `${o.file}/${o.offset}`;
            const length = lengthOf(o.file, o.offset, Math.min(maxLength, slabSize));
            const bytes = blockBytes(o.file, o.offset, length);
            if (o.kind === "insert") {
              const slot = cache.insert(o.file, o.offset, bytes);
              expect(slot).toBeGreaterThanOrEqual(0); // one thread: the lock is free
              expect(cache.lookup(o.file, o.offset)).toBe(slot);
              expect(cache.lookupLength).toBe(length);
              expect(sameBytes(cache, cache.lookupStart, bytes)).toBe(true);
              held.set(k, [slot, cache.lookupGeneration, cache.lookupStart]);
              seen.push({ k, slot, gen: cache.lookupGeneration, start: cache.lookupStart });
            } else if (o.kind === "lookup") {
              const slot = cache.lookup(o.file, o.offset);
              if (slot >= 0) {
                expect(cache.lookupLength).toBe(length);
                expect(sameBytes(cache, cache.lookupStart, bytes)).toBe(true);
                expect(cache.isCurrent(slot, cache.lookupGeneration)).toBe(true);
                seen.push({ k, slot, gen: cache.lookupGeneration, start: cache.lookupStart });
              }
            } else {
              const had = cache.lookup(o.file, o.offset) >= 0;
              expect(cache.erase(o.file, o.offset)).toBe(had);
              expect(cache.lookup(o.file, o.offset)).toBe(-1);
              held.delete(k);
            }
            // Which model blocks are still held: their lookup finds them, or they were evicted.
            let charged = 0;
            for (const [hk, [slot, gen]] of held) {
              const [f, off] = hk.split("/").map(Number) as [number, number];
              const now = cache.lookup(f, off);
              if (now < 0) {
                held.delete(hk);
                expect(cache.isCurrent(slot, gen)).toBe(false);
              } else {
                expect(now).toBe(slot);
                expect(cache.lookupGeneration).toBe(gen);
                charged += chunkOf(lengthOf(f, off, Math.min(maxLength, slabSize)));
              }
            }
            const stats = cache.stats();
            expect(stats.usage).toBe(charged);
            expect(stats.usage).toBeLessThanOrEqual(slabSize * slabs);
            // A slot seen at a generation is current exactly while it still holds that block.
            for (const s of seen) {
              const h = held.get(s.k);
              const current = h !== undefined && h[0] === s.slot && h[1] === s.gen;
              expect(cache.isCurrent(s.slot, s.gen)).toBe(current);
              expect(cache.lookupAt(s.slot, s.gen)).toBe(current);
              if (current) expect(cache.lookupStart).toBe(s.start);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("evicts by the clock: a block hit since the hand passed survives one more round", () => {
    const cache = SharedBlockCache.create(4096, { slabSize: 4096 });
    // Four 1 KiB chunks in the one slab.
    for (let i = 0; i < 4; i++) expect(cache.insert(1, i * 100, blockBytes(1, i, 900))).toBe(i);
    cache.lookup(1, 0); // referenced
    expect(cache.insert(1, 400, blockBytes(1, 4, 900))).toBe(1); // evicts 100, passing 0
    expect(cache.lookup(1, 0)).toBe(0);
    expect(cache.lookup(1, 100)).toBe(-1);
    expect(cache.stats().evictions).toBe(1);
  });

  it("gives a class with no slab one taken from the class with most", () => {
    const cache = SharedBlockCache.create(8192, { slabSize: 4096 });
    for (let i = 0; i < 8; i++)
      expect(cache.insert(2, i, blockBytes(2, i, 1000))).toBeGreaterThanOrEqual(0);
    expect(cache.stats().usage).toBe(8192);
    const slot = cache.insert(2, 99, blockBytes(2, 99, 3000)); // a 3 KiB-class block
    expect(slot).toBeGreaterThanOrEqual(0);
    expect(cache.lookup(2, 99)).toBe(slot);
    let left = 0;
    for (let i = 0; i < 8; i++) if (cache.lookup(2, i) >= 0) left++;
    expect(left).toBe(4);
    expect(cache.stats().usage).toBeLessThanOrEqual(8192);
  });

  it("refuses what it cannot hold and rejects bad arguments", () => {
    const cache = SharedBlockCache.create(8192, { slabSize: 4096 });
    expect(cache.insert(1, 0, new Uint8Array(4097))).toBe(-1);
    expect(cache.insert(1, 0, new Uint8Array(0))).toBe(-1);
    expect(cache.insert(-1, 0, new Uint8Array(10))).toBe(-1);
    expect(cache.stats().usage).toBe(0);
    expect(() => cache.insert(1, -5, new Uint8Array(10))).toThrow(ShaleError);
    expect(() => cache.insert(1, 0, new Uint8Array(10), 5, 10)).toThrow(ShaleError);
    expect(() => SharedBlockCache.create(100)).toThrow(ShaleError);
    expect(() => SharedBlockCache.create(1 << 20, { slabSize: 5000 })).toThrow(ShaleError);
    expect(() => SharedBlockCache.create(1 << 20, { slab: 4096 } as never)).toThrow(ShaleError);
    expect(() => SharedBlockCache.create("1" as never)).toThrow(TypeError);
    expect(() => SharedBlockCache.attach({} as never)).toThrow(TypeError);
  });

  it("attaches to another instance's buffers (structured clone) and shares the blocks", () => {
    const a = SharedBlockCache.create(1 << 20);
    const b = SharedBlockCache.attach(structuredClone(a.buffers()));
    const bytes = blockBytes(3, 4096, 3000);
    expect(a.insert(3, 4096, bytes)).toBeGreaterThanOrEqual(0);
    const slot = b.lookup(3, 4096);
    expect(slot).toBeGreaterThanOrEqual(0);
    expect(sameBytes(b, b.lookupStart, bytes)).toBe(true);
    expect(b.erase(3, 4096)).toBe(true);
    expect(a.lookup(3, 4096)).toBe(-1);
    // Offsets past 4 GiB are keys of their own.
    expect(a.insert(3, 2 ** 33 + 4096, bytes)).toBeGreaterThanOrEqual(0);
    expect(a.lookup(3, 4096)).toBe(-1);
    expect(b.lookup(3, 2 ** 33 + 4096)).toBeGreaterThanOrEqual(0);
  });
});
