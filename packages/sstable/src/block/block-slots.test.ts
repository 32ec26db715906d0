/**
 * Data-block slots (block-source.ts, `cachedDataBlockAt`): with a cache made by
 * `newBlockCache`, a point lookup keeps the data block it cached in its index entry's slot
 * and reads it from there on the next hit — no hash lookup, but a hit counted and the entry
 * marked recently used all the same — and the cache's eviction hook empties the slot.
 */
import { LookupResult, LookupState, MAX_SEQ, MemoryFileSystem, toBytes } from "@shale/base";
import { LRUCache } from "@shale/block-cache";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type BuiltTable,
  buildTable,
  CountingFile,
  ikey,
  openTable,
  tableLayout,
} from "../table/table.test-support.js";
import type { TableReader } from "../table/table-reader.js";
import { Block } from "./block.js";
import { BlockBuilder } from "./block-builder.js";
import { type BlockCache, newBlockCache } from "./block-cache.js";

/** Entries 0 .. N-1, ~12 to a 1 KiB block: ~80 data blocks, an index with a search aid. */
const N = 1000;
const userKey = (i: number) => toBytes(`user${String(i).padStart(6, "0")}`);
const expectedValue = (i: number) => `v${i}`.padEnd(60, "-");

function table(): BuiltTable {
  const keys: Uint8Array[] = [];
  const values: Uint8Array[] = [];
  for (let i = 0; i < N; i++) {
    keys.push(ikey(userKey(i), i + 1, 1));
    values.push(toBytes(expectedValue(i)));
  }
  return buildTable(keys, values, { bitsPerKey: 10, blockSize: 1024 }, [], new MemoryFileSystem());
}

/** Counts the cache's hash lookups (`get`): what a hit through a slot does without. */
function countLookups(cache: BlockCache): { count: number } {
  const counter = { count: 0 };
  const get = cache.get.bind(cache);
  cache.get = (id: number, offset: number) => {
    counter.count++;
    return get(id, offset);
  };
  return counter;
}

/** Gets entry `i` and checks that it is found with its value. */
function getChecked(reader: TableReader, i: number): void {
  const r = new LookupResult();
  reader.get(userKey(i), MAX_SEQ, r);
  expect(r.state).toBe(LookupState.Found);
  expect(new TextDecoder().decode(r.value)).toBe(expectedValue(i));
}

describe("data-block slots", () => {
  it("a second get of a block reads it from its slot: a cache hit without a hash lookup", () => {
    const t = table();
    expect(tableLayout(t).data.length).toBeGreaterThan(16);
    const cache = newBlockCache(1 << 22, { recycleBlocks: true });
    let file: CountingFile | undefined;
    const reader = openTable(t, { blockCache: cache }, (f) => (file = new CountingFile(f)));
    const lookups = countLookups(cache);
    getChecked(reader, 500);
    expect(lookups.count).toBe(1); // the miss
    const reads = file!.reads;
    const hits = cache.stats().hits;
    for (const i of [500, 501, 499]) getChecked(reader, i); // the same block
    expect(lookups.count).toBe(1);
    expect(file!.reads).toBe(reads);
    expect(cache.stats().hits).toBe(hits + 3);
    reader.close();
  });

  it("a cache not made by newBlockCache reports no evictions: lookups go through it", () => {
    const cache = new LRUCache<Block>({ capacity: 1 << 22 });
    const reader = openTable(table(), { blockCache: cache });
    const lookups = countLookups(cache);
    for (const i of [500, 500, 500]) getChecked(reader, i);
    expect(lookups.count).toBe(3);
    reader.close();
  });

  it("a block hit through its slot is recently used: eviction passes it over once", () => {
    const t = table();
    const [a, b, c, d] = [100, 300, 500, 700];
    // The exact room of the pinned index and filter and three data blocks (a, b, c).
    const probe = newBlockCache(1 << 22);
    const sizing = openTable(t, { blockCache: probe });
    for (const i of [a, b, c]) getChecked(sizing, i);
    const capacity = probe.usage;
    sizing.close();

    const cache = newBlockCache(capacity, { numShardBits: 0, highPriPoolRatio: 0 });
    let file: CountingFile | undefined;
    const reader = openTable(t, { blockCache: cache }, (f) => (file = new CountingFile(f)));
    for (const i of [a, b, c]) getChecked(reader, i);
    expect(cache.stats().evictions).toBe(0);
    getChecked(reader, a); // through a's slot: marks it referenced
    getChecked(reader, d); // evicts b (and c if d is larger), not a
    expect(cache.stats().evictions).toBeGreaterThan(0);
    const reads = file!.reads;
    getChecked(reader, a);
    expect(file!.reads).toBe(reads);
    getChecked(reader, b);
    expect(file!.reads).toBe(reads + 1);
    reader.close();
  });

  it("every value is right through a small recycling cache (evicted blocks' memory reused)", () => {
    const t = table();
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 6 }),
        fc.array(fc.integer({ min: 0, max: N - 1 }), { minLength: 1, maxLength: 300 }),
        fc.boolean(),
        (extraBlocks, keys, recycle) => {
          // The pinned index and filter, and room for 0-6 data blocks of ~1 KiB.
          const probe = newBlockCache(1 << 22);
          openTable(t, { blockCache: probe }).close();
          const capacity = probe.usage + 1200 * extraBlocks;
          const cache = newBlockCache(capacity, { numShardBits: 0, recycleBlocks: recycle });
          const reader = openTable(t, { blockCache: cache });
          for (const i of keys) {
            getChecked(reader, i);
            getChecked(reader, i); // a slot hit, if the block stayed
            // A neighbour: often the same block.
            getChecked(reader, i === N - 1 ? i - 1 : i + 1);
          }
          reader.close();
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("Block.evict", () => {
  it("empties the slot that holds the block, and only that one", () => {
    const b = new BlockBuilder(16);
    b.add(ikey("a", 1, 1), toBytes("x"));
    const data = b.finish().slice();
    const block = Block.keyValue(data, "t", 0);
    const other = Block.keyValue(data.slice(), "t", 0);
    const slots: (Block | undefined)[] = [undefined, block, other];
    block.slots = slots;
    block.slot = 1;
    block.evict();
    expect(slots).toEqual([undefined, undefined, other]);
    expect(block.slots).toBeUndefined();
    // A slot that holds another block by now is left alone.
    block.slots = slots;
    block.slot = 2;
    block.evict();
    expect(slots[2]).toBe(other);
  });
});
