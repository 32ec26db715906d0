/**
 * `TableReader.prepopulateBlockCache` (table-warm.ts): every data block goes into the block
 * cache while it has free room, none is evicted for it, and the gets that follow read no
 * block from the file.
 */
import { LookupResult, LookupState, Statistics, Ticker, toBytes, ValueKind } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { newBlockCache } from "../block/block-cache.js";
import type { TableBuilderOptions } from "./builder-options.js";
import {
  buildTable,
  CountingFile,
  flipByte,
  ikey,
  openTable,
  tableLayout,
} from "./table.test-support.js";

function keyOf(i: number): string {
  return `key${String(i).padStart(6, "0")}`;
}

function table(n: number, options: TableBuilderOptions) {
  const keys: Uint8Array[] = [];
  const values: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    keys.push(ikey(keyOf(i), i + 1, ValueKind.Value));
    values.push(toBytes(`value-${i}-${"x".repeat(i % 50)}`));
  }
  return buildTable(keys, values, options);
}

const LAYOUTS: [string, TableBuilderOptions][] = [
  ["binary search index, snappy", { blockSize: 256, compression: "snappy" }],
  ["binary search index, uncompressed", { blockSize: 256, compression: "none" }],
  ["partitioned index", { blockSize: 256, indexType: "twoLevelIndex", metadataBlockSize: 128 }],
];

describe("TableReader.prepopulateBlockCache", () => {
  for (const [name, options] of LAYOUTS) {
    it(`caches every data block, then gets read nothing from the file (${name})`, () => {
      const built = table(2000, options);
      const dataBlocks = built.properties.numDataBlocks;
      expect(dataBlocks).toBeGreaterThan(20);
      const statistics = new Statistics();
      const cache = newBlockCache(64 << 20);
      let counting: CountingFile | undefined;
      const reader = openTable(built, { blockCache: cache, statistics }, (f) => {
        counting = new CountingFile(f);
        return counting;
      });
      const result = reader.prepopulateBlockCache();
      expect(result).toEqual({ inserted: dataBlocks, alreadyCached: 0, full: false });
      // Read in regions, not a block at a time.
      const readsAfterWarm = counting!.reads;
      const missesBefore = statistics.getTicker(Ticker.BlockCacheMiss);
      const r = new LookupResult();
      for (let i = 0; i < 2000; i += 7) {
        r.reset();
        expect(reader.get(toBytes(keyOf(i)), undefined, r).state).toBe(LookupState.Found);
      }
      expect(counting!.reads).toBe(readsAfterWarm);
      expect(statistics.getTicker(Ticker.BlockCacheMiss)).toBe(missesBefore);
      // A second warm finds everything cached.
      expect(reader.prepopulateBlockCache()).toEqual({
        inserted: 0,
        alreadyCached: dataBlocks,
        full: false,
      });
      reader.close();
    });
  }

  it("reads the data region in far fewer reads than blocks", () => {
    const built = table(2000, { blockSize: 256, compression: "snappy" });
    const dataBlocks = built.properties.numDataBlocks;
    let counting: CountingFile | undefined;
    const reader = openTable(built, { blockCache: newBlockCache(64 << 20) }, (f) => {
      counting = new CountingFile(f);
      return counting;
    });
    const before = counting!.reads;
    reader.prepopulateBlockCache();
    expect(counting!.reads - before).toBeLessThan(dataBlocks / 4);
    reader.close();
  });

  it("fills only free room: stops at the first block that does not fit, evicting at most one", () => {
    fc.assert(
      fc.property(fc.integer({ min: 4 << 10, max: 96 << 10 }), (capacity) => {
        const built = table(1500, { blockSize: 256, compression: "snappy" });
        const cache = newBlockCache(capacity, { numShardBits: 0 });
        const reader = openTable(built, { blockCache: cache, cacheIndexAndFilterBlocks: false });
        const result = reader.prepopulateBlockCache();
        expect(cache.evictions).toBeLessThanOrEqual(1);
        if (cache.evictions === 1) expect(result.full).toBe(true);
        expect(cache.usage).toBeLessThanOrEqual(capacity);
        const dataBlocks = built.properties.numDataBlocks;
        expect(result.inserted + result.alreadyCached).toBeLessThanOrEqual(dataBlocks);
        if (result.full) expect(result.inserted).toBeLessThan(dataBlocks);
        else expect(result.inserted).toBe(dataBlocks);
        // Whatever was inserted is what a get then finds cached.
        expect(reader.get(toBytes(keyOf(0))).state).toBe(LookupState.Found);
        reader.close();
      }),
      { numRuns: 25 },
    );
  });

  it("does nothing without a block cache", () => {
    const built = table(500, { blockSize: 256 });
    const reader = openTable(built);
    expect(reader.prepopulateBlockCache()).toEqual({ inserted: 0, alreadyCached: 0, full: false });
    reader.close();
  });

  it("reports a damaged data block as Corruption with file and offset", () => {
    const built = table(500, { blockSize: 256, compression: "none" });
    const victim = tableLayout(built).data[3]!;
    const damaged = flipByte(built, victim.offset + 2);
    const reader = openTable(damaged, { blockCache: newBlockCache(1 << 20) });
    expect(() => reader.prepopulateBlockCache()).toThrow(
      expect.objectContaining({ code: "Corruption", file: damaged.path }),
    );
    reader.close();
  });

  it("throws Closed after close", () => {
    const reader = openTable(table(100, {}), { blockCache: newBlockCache(1 << 20) });
    reader.close();
    expect(() => reader.prepopulateBlockCache()).toThrow(
      expect.objectContaining({ code: "Closed" }),
    );
  });
});
