/**
 * Warming from captured blocks (`TableBuilder.captureDataBlocks`, captured-blocks.ts,
 * `TableReader.prepopulateBlockCacheFrom`): each warmed block equals the block a read of the
 * file gives, the cache is charged as for a read block, nothing is read from the file, the
 * budget captures a prefix of the table, warming never evicts, and bad budgets are refused.
 */
import {
  LookupResult,
  LookupState,
  MemoryFileSystem,
  ShaleError,
  Statistics,
  Ticker,
  toBytes,
  ValueKind,
} from "@shale/base";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { BLOCK_OVERHEAD } from "../block/block.js";
import { newBlockCache } from "../block/block-cache.js";
import type { TableBuilderOptions } from "./builder-options.js";
import {
  CAPTURED_STRIDE,
  type CapturedDataBlocks,
  CHUNK_BYTES,
  capturedBytes,
  capturedTransferList,
} from "./captured-blocks.js";
import { type BuiltTable, CountingFile, ikey, openTable } from "./table.test-support.js";
import { TableBuilder } from "./table-builder.js";
import type { TableReader } from "./table-reader.js";

function keyOf(i: number): string {
  return `key${String(i).padStart(6, "0")}`;
}

/** A table of `n` entries built with a capture of `budget` bytes. */
function captured(
  n: number,
  options: TableBuilderOptions,
  budget = 1 << 30,
): { built: BuiltTable; blocks: CapturedDataBlocks } {
  const fs = new MemoryFileSystem();
  const path = "000001.sst";
  const file = fs.openWritable(path);
  const builder = new TableBuilder(file, options);
  builder.captureDataBlocks(budget);
  for (let i = 0; i < n; i++) {
    builder.add(
      ikey(keyOf(i), i + 1, ValueKind.Value),
      toBytes(`value-${i}-${"x".repeat(i % 50)}`),
    );
  }
  const properties = builder.finish();
  file.sync();
  file.close();
  const blocks = builder.takeCapturedDataBlocks()!;
  expect(builder.takeCapturedDataBlocks()).toBeUndefined();
  return { built: { fs, path, size: fs.fileSize(path), properties }, blocks };
}

const cacheIdOf = (reader: TableReader) => reader.source.cacheId;

const LAYOUTS: [string, TableBuilderOptions][] = [
  ["snappy", { blockSize: 256, compression: "snappy" }],
  ["uncompressed", { blockSize: 256, compression: "none" }],
  ["zstd with a dictionary", { blockSize: 256, compression: "zstd", zstdMaxDictBytes: 1024 }],
  ["data block hash index", { blockSize: 256, dataBlockIndexType: "binaryAndHash" }],
  ["partitioned index", { blockSize: 256, indexType: "twoLevelIndex", metadataBlockSize: 128 }],
];

describe("TableReader.prepopulateBlockCacheFrom", () => {
  for (const [name, options] of LAYOUTS) {
    it(`caches every data block, each equal to the block read from the file (${name})`, () => {
      const { built, blocks } = captured(2000, options);
      const dataBlocks = built.properties.numDataBlocks;
      expect(dataBlocks).toBeGreaterThan(20);
      expect(blocks.blocks.length).toBe(dataBlocks * CAPTURED_STRIDE);
      const statistics = new Statistics();
      const cache = newBlockCache(64 << 20);
      let counting: CountingFile | undefined;
      const warmed = openTable(built, { blockCache: cache, statistics }, (f) => {
        counting = new CountingFile(f);
        return counting;
      });
      const readsAtOpen = counting!.reads;
      const usageAtOpen = cache.usage;
      expect(warmed.prepopulateBlockCacheFrom(blocks)).toEqual({
        inserted: dataBlocks,
        alreadyCached: 0,
        full: false,
      });
      expect(counting!.reads).toBe(readsAtOpen);
      expect(statistics.getTicker(Ticker.BlockCacheAdd)).toBeGreaterThanOrEqual(dataBlocks);
      // The same table warmed by reading it back: block for block the same bytes.
      const readCache = newBlockCache(64 << 20);
      const read = openTable(built, { blockCache: readCache });
      expect(read.prepopulateBlockCache().inserted).toBe(dataBlocks);
      let contents = 0;
      for (let at = 0; at < blocks.blocks.length; at += CAPTURED_STRIDE) {
        const offset = blocks.blocks[at]!;
        const a = cache.get(cacheIdOf(warmed), offset);
        const b = readCache.get(cacheIdOf(read), offset);
        expect(a).toBeDefined();
        expect(b).toBeDefined();
        expect(a!.data).toEqual(b!.data);
        contents += a!.data.length;
      }
      // Charged as a block read: its bytes plus the per-block overhead.
      expect(contents).toBe(capturedBytes(blocks));
      expect(cache.usage - usageAtOpen).toBe(contents + dataBlocks * BLOCK_OVERHEAD);
      // Gets find every key without a block-cache miss.
      const misses = statistics.getTicker(Ticker.BlockCacheMiss);
      const r = new LookupResult();
      for (let i = 0; i < 2000; i += 13) {
        r.reset();
        expect(warmed.get(toBytes(keyOf(i)), undefined, r).state).toBe(LookupState.Found);
      }
      expect(statistics.getTicker(Ticker.BlockCacheMiss)).toBe(misses);
      // Again: everything is cached already.
      expect(warmed.prepopulateBlockCacheFrom(blocks)).toEqual({
        inserted: 0,
        alreadyCached: dataBlocks,
        full: false,
      });
      warmed.close();
      read.close();
    });
  }

  it("fills only free room and never evicts", () => {
    const { built, blocks } = captured(2000, { blockSize: 256 });
    const cache = newBlockCache(64 * 1024, { numShardBits: 0 });
    const reader = openTable(built, { blockCache: cache });
    expect(cache.usage).toBeLessThan(cache.capacity / 2);
    const result = reader.prepopulateBlockCacheFrom(blocks);
    expect(result.full).toBe(true);
    expect(result.inserted).toBeGreaterThan(0);
    expect(result.inserted).toBeLessThan(built.properties.numDataBlocks);
    expect(cache.evictions).toBe(0);
    expect(cache.usage).toBeLessThanOrEqual(cache.capacity);
    reader.close();
  });

  it("does nothing without a block cache", () => {
    const { built, blocks } = captured(500, { blockSize: 256 });
    const reader = openTable(built);
    expect(reader.prepopulateBlockCacheFrom(blocks)).toEqual({
      inserted: 0,
      alreadyCached: 0,
      full: false,
    });
    reader.close();
  });

  it("captures a prefix of the table within the budget", () => {
    const { blocks: all } = captured(3000, { blockSize: 256 });
    const sizes: number[] = [];
    for (let at = 0; at < all.blocks.length; at += CAPTURED_STRIDE) sizes.push(all.blocks[at + 3]!);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: capturedBytes(all) + 100 }), (budget) => {
        const { blocks } = captured(3000, { blockSize: 256 }, budget);
        const n = blocks.blocks.length / CAPTURED_STRIDE;
        let total = 0;
        for (let i = 0; i < n; i++) total += sizes[i]!;
        expect(capturedBytes(blocks)).toBe(total);
        expect(total).toBeLessThanOrEqual(budget);
        if (n < sizes.length) expect(total + sizes[n]!).toBeGreaterThan(budget);
        // The same blocks as the full capture, in the same order.
        expect(blocks.blocks).toEqual(all.blocks.subarray(0, n * CAPTURED_STRIDE));
      }),
      { numRuns: 25 },
    );
  });

  it("packs blocks into chunks and lists every buffer to transfer", () => {
    const spy = vi.spyOn(Buffer, "allocUnsafeSlow");
    const { blocks } = captured(40_000, { blockSize: 4096, compression: "none" });
    // One allocation per chunk; every chunk but the last handed over whole (no copy), with
    // less than an eighth of it unused; the last, mostly unused, cut to its used length.
    const chunkSized = spy.mock.calls.filter(([n]) => n === CHUNK_BYTES).length;
    spy.mockRestore();
    expect(chunkSized).toBe(blocks.chunks.length);
    expect(blocks.chunks.length).toBeGreaterThan(1);
    const end = new Array<number>(blocks.chunks.length).fill(0);
    for (let at = 0; at < blocks.blocks.length; at += CAPTURED_STRIDE) {
      const c = blocks.blocks[at + 1]!;
      end[c] = Math.max(end[c]!, blocks.blocks[at + 2]! + blocks.blocks[at + 3]!);
    }
    const last = blocks.chunks.length - 1;
    for (let c = 0; c < last; c++) {
      expect(blocks.chunks[c]!.byteLength).toBe(CHUNK_BYTES);
      expect(CHUNK_BYTES - end[c]!).toBeLessThan(CHUNK_BYTES / 8);
    }
    const lastBytes = blocks.chunks[last]!.byteLength;
    if (lastBytes === CHUNK_BYTES) expect(CHUNK_BYTES - end[last]!).toBeLessThan(CHUNK_BYTES / 8);
    else expect(lastBytes).toBe(end[last]);
    const list = capturedTransferList(blocks);
    expect(list.length).toBe(blocks.chunks.length + 1);
    expect(list).toContain(blocks.blocks.buffer);
    // Blocks lie inside their chunks, back to back.
    for (let at = 0; at < blocks.blocks.length; at += CAPTURED_STRIDE) {
      const chunk = blocks.chunks[blocks.blocks[at + 1]!]!;
      expect(blocks.blocks[at + 2]! + blocks.blocks[at + 3]!).toBeLessThanOrEqual(chunk.byteLength);
    }
  });

  it("cuts a small table's only chunk to its used length (a cached block pins no more)", () => {
    const { blocks } = captured(200, { blockSize: 4096, compression: "none" });
    expect(blocks.chunks.length).toBe(1);
    const n = blocks.blocks.length;
    expect(blocks.chunks[0]!.byteLength).toBe(blocks.blocks[n - 2]! + blocks.blocks[n - 1]!);
    expect(blocks.chunks[0]!.byteLength).toBe(capturedBytes(blocks));
  });

  it("refuses a bad budget, and a capture asked for after the first add", () => {
    const fs = new MemoryFileSystem();
    const builder = new TableBuilder(fs.openWritable("x.sst"));
    for (const bad of [-1, 1.5, Number.NaN, "1" as unknown as number, 2 ** 60]) {
      expect(() => builder.captureDataBlocks(bad)).toThrow(TypeError);
    }
    builder.add(ikey("a", 1, ValueKind.Value), toBytes("v"));
    try {
      builder.captureDataBlocks(100);
      expect.unreachable();
    } catch (e) {
      expect(ShaleError.isInstance(e) && e.code).toBe("InvalidArgument");
    }
    builder.finish();
    expect(builder.takeCapturedDataBlocks()).toBeUndefined();
  });
});
