/**
 * Recycled block memory (`newBlockCache(capacity, { recycleBlocks: true })`): evicted data
 * blocks' buffers go back to `blockMemory` and the next misses decode into them — but never
 * while a block iterator is in the block, and never under a value a caller may still read
 * (merge operands are copied). Tests run with invariants on, so a recycled buffer reads 0xcc.
 */
import { LookupResult, LookupState, MAX_SEQ, toBytes, ValueKind } from "@shale/base";
import { LRUCache } from "@shale/block-cache";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { newBlockCache } from "../index.js";
import { type BuiltTable, buildTable, icmp, ikey, openTable } from "../table/table.test-support.js";
import { blockMemory } from "./alloc.js";
import type { Block } from "./block.js";
import { recyclesBlocks } from "./block-cache.js";
import { BlockIterator } from "./block-iterator.js";
import { KeyOrder } from "./key-order.js";

const N = 600;
const userKey = (i: number) => `key${String(i).padStart(5, "0")}`;
const valueAt = (i: number, salt = 0) => toBytes(`value-${i}-${salt}-`.padEnd(90, "x"));

/** N keys, ~90-byte values, 1 KiB blocks: about 60 data blocks. */
function table(compression: "snappy" | "none" = "snappy"): BuiltTable {
  const keys: Uint8Array[] = [];
  const values: Uint8Array[] = [];
  for (let i = 0; i < N; i++) {
    keys.push(ikey(userKey(i), i + 1, ValueKind.Value));
    values.push(valueAt(i));
  }
  return buildTable(keys, values, { blockSize: 1024, compression });
}

/** A recycling cache holding only a few 1 KiB blocks, so nearly every get evicts one. */
const smallCache = () => newBlockCache(6 * 1024, { recycleBlocks: true, numShardBits: 0 });

describe("recycling block cache", () => {
  it("reuses evicted blocks' memory for the next misses, and every get stays right", () => {
    for (const compression of ["snappy", "none"] as const) {
      const reader = openTable(table(compression), { blockCache: smallCache() });
      const reused = blockMemory.reused;
      const allocated = blockMemory.allocated;
      const r = new LookupResult();
      for (let round = 0; round < 3; round++) {
        for (let j = 0; j < N; j++) {
          const i = (j * 7919) % N; // every key, blocks in a scattered order
          reader.get(toBytes(userKey(i)), MAX_SEQ, r);
          expect(r.state).toBe(LookupState.Found);
          expect(r.value).toEqual(valueAt(i));
        }
      }
      // Nearly every miss reused an evicted block's buffer: fresh ones only while filling.
      expect(blockMemory.reused - reused).toBeGreaterThan(10 * (blockMemory.allocated - allocated));
      reader.close();
    }
  });

  it("does not pool without recycleBlocks, and its values stay pinned", () => {
    const cache = newBlockCache(6 * 1024, { numShardBits: 0 });
    expect(recyclesBlocks(cache)).toBe(false);
    expect(recyclesBlocks(new LRUCache<Block>({ capacity: 1 << 20 }))).toBe(false);
    expect(recyclesBlocks(smallCache())).toBe(true);
    const reader = openTable(table(), { blockCache: cache });
    const before = blockMemory.reused + blockMemory.allocated;
    const kept: Uint8Array[] = [];
    for (let i = 0; i < N; i += 13) kept.push(reader.get(toBytes(userKey(i))).value!);
    expect(blockMemory.reused + blockMemory.allocated).toBe(before);
    // Evicted long ago, still intact: views of a non-recycling cache's blocks stay valid.
    for (let j = 0; j < kept.length; j++) expect(kept[j]).toEqual(valueAt(j * 13));
    const it = reader.newIterator();
    it.seekToFirst();
    expect(it.isValuePinned?.()).toBe(true);
    it.close();
    reader.close();
  });

  it("keeps a block while an iterator is in it, recycling it when the iterator leaves", () => {
    const reader = openTable(table(), { blockCache: smallCache() });
    // Bring a block into the cache, then position a bare block iterator in it.
    reader.get(toBytes(userKey(0)));
    const cache = reader.source.cache!;
    const first = cache.get(reader.source.cacheId, 0)!;
    expect(first.recyclable).toBe(true);
    const it = new BlockIterator(new KeyOrder(icmp.user, true)).init(first, "t", 0);
    it.seekToFirst();
    const value = it.value();
    expect(it.isValuePinned()).toBe(false);
    const returned = blockMemory.returned;
    // Churn: the block is evicted, but the iterator is in it — not recycled.
    for (let i = 100; i < N; i += 10) reader.get(toBytes(userKey(i)));
    expect(cache.get(reader.source.cacheId, 0)).toBeUndefined();
    expect(first.recyclable).toBe(true);
    expect(value).toEqual(valueAt(0));
    expect(blockMemory.returned - returned).toBeGreaterThan(0); // others were
    const returnedBefore = blockMemory.returned;
    it.close(); // leaves the evicted block: now it goes back
    expect(first.recyclable).toBe(false);
    expect(blockMemory.returned).toBe(returnedBefore + 1);
    // Invariants mode poisons a buffer handed back (unless reused since).
    expect(value[0]).toBe(0xcc);
    reader.close();
  });

  it("a block re-initialized on the same iterator is not released early", () => {
    const reader = openTable(table(), { blockCache: smallCache() });
    reader.get(toBytes(userKey(0)));
    const block = reader.source.cache!.get(reader.source.cacheId, 0)!;
    const it = new BlockIterator(new KeyOrder(icmp.user, true));
    it.init(block, "t", 0);
    block.evict(); // evicted while the iterator is in it
    it.init(block, "t", 0); // and positioned in it again: it must survive
    expect(block.recyclable).toBe(true);
    it.close();
    expect(block.recyclable).toBe(false);
    it.close(); // idempotent: no second release
    reader.close();
  });

  it("copies merge operands, so later block reads of the same lookup cannot recycle them", () => {
    // One user key with enough merge operands to span several blocks.
    const keys: Uint8Array[] = [];
    const values: Uint8Array[] = [];
    const operands = 60;
    for (let s = operands; s >= 1; s--) {
      keys.push(ikey("k", s, ValueKind.Merge));
      values.push(toBytes(`operand-${s}-`.padEnd(100, "o")));
    }
    const built = buildTable(keys, values, { blockSize: 1024 });
    // A cache of two blocks: each next block read evicts the previous ones.
    const reader = openTable(built, {
      blockCache: newBlockCache(2 * 1024, { recycleBlocks: true, numShardBits: 0 }),
    });
    const r = reader.get(toBytes("k"));
    expect(r.state).toBe(LookupState.Merging);
    expect(r.operands.length).toBe(operands);
    for (let j = 0; j < operands; j++) expect(r.operands[j]).toEqual(values[j]);
    reader.close();
  });

  it("the user's onEvict sees the block before its memory is recycled", () => {
    const seen: string[] = [];
    const cache = newBlockCache(6 * 1024, {
      recycleBlocks: true,
      numShardBits: 0,
      onEvict: (block: Block) => {
        const it = new BlockIterator(new KeyOrder(icmp.user, true)).init(block, "t", 0);
        it.seekToFirst();
        seen.push(new TextDecoder().decode(it.value()).slice(0, 10));
        it.close();
      },
    });
    const reader = openTable(table(), { blockCache: cache });
    for (let i = 0; i < N; i += 20) reader.get(toBytes(userKey(i)));
    expect(seen.length).toBeGreaterThan(0);
    for (const s of seen) expect(s.startsWith("value-")).toBe(true);
    reader.close();
  });

  it("rejects a recycleBlocks that is not a boolean", () => {
    expect(() => newBlockCache(1024, { recycleBlocks: "yes" as unknown as boolean })).toThrow(
      /recycleBlocks must be a boolean/,
    );
    expect(() =>
      newBlockCache(1024, { recycleBlocks: true, onEvict: 3 as unknown as () => void }),
    ).toThrow(TypeError);
  });

  it("property: gets and iterators interleaved over a churning cache read what was written", () => {
    const built = table();
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant("get" as const), i: fc.nat(N - 1) }),
            fc.record({ op: fc.constant("seek" as const), i: fc.nat(N - 1), steps: fc.nat(40) }),
            fc.record({ op: fc.constant("back" as const), i: fc.nat(N - 1), steps: fc.nat(40) }),
          ),
          { maxLength: 60 },
        ),
        (ops) => {
          const reader = openTable(built, { blockCache: smallCache() });
          // An iterator kept open across everything: its current entry must stay right.
          const held = reader.newIterator();
          held.seek(ikey(userKey(N >> 1), MAX_SEQ, ValueKind.Value));
          for (const o of ops) {
            if (o.op === "get") {
              expect(reader.get(toBytes(userKey(o.i))).value).toEqual(valueAt(o.i));
            } else {
              const it = reader.newIterator();
              it.seek(ikey(userKey(o.i), MAX_SEQ, ValueKind.Value));
              let i = o.i;
              for (let s = 0; s < o.steps && it.valid(); s++) {
                expect(it.value()).toEqual(valueAt(i));
                if (o.op === "seek") {
                  it.next();
                  i++;
                } else {
                  it.prev();
                  i--;
                }
              }
              it.close();
            }
            expect(held.value()).toEqual(valueAt(N >> 1));
          }
          held.close();
          reader.close();
        },
      ),
      { numRuns: 60 },
    );
  });
});
