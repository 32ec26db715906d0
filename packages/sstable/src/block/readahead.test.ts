/** Iterator readahead (readahead.ts): fewer file reads, same entries, damage still caught. */
import { MAX_SEQ, MemoryFileSystem, ShaleError, toBytes } from "@shale/base";
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
import type { Block } from "./block.js";
import { INITIAL_READAHEAD, MAX_READAHEAD } from "./readahead.js";

const N = 20_000;

function bigTable(compression: "none" | "snappy"): BuiltTable {
  const keys: Uint8Array[] = [];
  const values: Uint8Array[] = [];
  for (let i = 0; i < N; i++) {
    keys.push(ikey(`key${String(i).padStart(8, "0")}`, i + 1, 1));
    values.push(toBytes(`value ${i} `.repeat(6)));
  }
  return buildTable(keys, values, { blockSize: 4096, compression, bitsPerKey: 10 });
}

function scanAll(table: BuiltTable, cache?: LRUCache<Block>, fillCache = true, backward = false) {
  let file: CountingFile | undefined;
  const reader = openTable(
    table,
    cache !== undefined ? { blockCache: cache, cacheId: 7 } : {},
    (f) => {
      file = new CountingFile(f);
      return file;
    },
  );
  const readsAtOpen = file!.reads;
  const it = reader.newIterator({ fillCache });
  const keys: string[] = [];
  if (backward) {
    for (it.seekToLast(); it.valid(); it.prev())
      keys.push(Buffer.from(it.key()).toString("latin1"));
  } else {
    for (it.seekToFirst(); it.valid(); it.next())
      keys.push(Buffer.from(it.key()).toString("latin1"));
  }
  it.close();
  reader.close();
  return { keys, reads: file!.reads - readsAtOpen };
}

/**
 * The most file reads a full scan of `table` may take with readahead: 2 plain reads, then
 * regions of 8, 16, ... 256 KiB, then 256 KiB each (and one for a partial last region).
 */
function readsBound(table: BuiltTable): number {
  const { data } = tableLayout(table);
  expect(data.length).toBeGreaterThan(100);
  const bytes = data.reduce((s, h) => s + h.size + 5, 0);
  const regions = Math.ceil(bytes / MAX_READAHEAD) + Math.log2(MAX_READAHEAD / INITIAL_READAHEAD);
  return Math.min(2 + regions + 1, data.length / 4);
}

/**
 * Puts about every third data block of `table` into `cache` (cache id 7), one seek each
 * through a fresh iterator (one block read per seek, inserted); returns how many are cached.
 */
function warmEveryThirdBlock(table: BuiltTable, cache: LRUCache<Block>): number {
  const reader = openTable(table, { blockCache: cache, cacheId: 7 });
  const { data } = tableLayout(table);
  const perBlock = Math.floor(N / data.length);
  for (let k = 0; k < N; k += 3 * perBlock) {
    const it = reader.newIterator({ fillCache: true });
    it.seek(ikey(`key${String(k).padStart(8, "0")}`, MAX_SEQ, 1));
    it.close();
  }
  reader.close();
  return data.filter((h) => cache.get(7, h.offset) !== undefined).length;
}

describe("iterator readahead", () => {
  for (const compression of ["none", "snappy"] as const) {
    it(`a full scan reads many blocks per file read and sees every entry (${compression})`, () => {
      const table = bigTable(compression);
      const blocks = tableLayout(table).data.length;
      expect(blocks).toBeGreaterThan(100);
      const { keys, reads } = scanAll(table);
      expect(keys.length).toBe(N);
      for (let i = 1; i < keys.length; i++) expect(keys[i]! > keys[i - 1]!).toBe(true);
      // 2 plain reads, then regions of 8, 16, ... 256 KiB: far fewer reads than blocks.
      const bytes = tableLayout(table).data.reduce((s, h) => s + h.size + 5, 0);
      const regions =
        Math.ceil(bytes / MAX_READAHEAD) + Math.log2(MAX_READAHEAD / INITIAL_READAHEAD);
      expect(reads).toBeLessThanOrEqual(2 + regions + 1);
      expect(reads).toBeLessThan(blocks / 4);
    });
  }

  // With shards the total usage stays below capacity while single shards are full: the
  // room asked about is the block's shard's (a total-usage check evicted here). Each shard
  // has room for the pinned index and filter (freed, and counted, at close otherwise).
  it.each([
    [0, 64 << 10],
    [2, 256 << 10],
  ])(
    "blocks read ahead never evict: a full cache keeps what it holds (%i shard bits)",
    (numShardBits, capacity) => {
      const table = bigTable("none");
      const { data } = tableLayout(table);
      const blockBytes = data[5]!.size + 5;
      const dataBytes = data.reduce((sum, h) => sum + h.size + 5, 0);
      expect(dataBytes).toBeGreaterThan(2 * capacity);
      // Room for the index, the filter, and some data blocks.
      const cache = new LRUCache<Block>({ capacity, numShardBits });
      const { keys } = scanAll(table, cache, true);
      expect(keys.length).toBe(N);
      const cached = data.filter((h) => cache.get(7, h.offset) !== undefined);
      expect(cached.length).toBeGreaterThan(0);
      expect(cached.length).toBeLessThan(capacity / blockBytes);
      // The blocks cached are the first ones of the scan, not the last: nothing was evicted.
      expect(cached[0]!.offset).toBe(data[0]!.offset);
      expect(cache.stats().evictions).toBe(0);
    },
  );

  for (const fillCache of [true, false]) {
    it(`blocks read ahead go into the block cache unless fillCache is false (${fillCache})`, () => {
      const table = bigTable("none");
      const cache = new LRUCache<Block>({ capacity: 64 << 20 });
      const { reads } = scanAll(table, cache, fillCache);
      const { data } = tableLayout(table);
      const cached = data.filter((h) => cache.get(7, h.offset) !== undefined).length;
      expect(cached).toBe(fillCache ? data.length : 0);
      expect(reads).toBeLessThan(data.length / 4);
      if (fillCache) {
        // A second scan is served by the cache: no file read at all.
        expect(scanAll(table, cache, true).reads).toBe(0);
      }
    });
  }

  // Scans through a cache that already holds some blocks (a reopened database's readseq
  // after earlier reads): a cached block continues the readahead sequence, as RocksDB's
  // FilePrefetchBuffer state survives cache hits; before, every hit started the count again
  // and the next miss was a small read (267 reads for this scan forward, 404 backward).
  for (const backward of [false, true]) {
    for (const compression of ["none", "snappy"] as const) {
      it(`a ${backward ? "backward" : "forward"} scan past cached blocks still reads ahead (${compression})`, () => {
        const table = bigTable(compression);
        const { data } = tableLayout(table);
        const cache = new LRUCache<Block>({ capacity: 64 << 20 });
        const cached = warmEveryThirdBlock(table, cache);
        expect(cached).toBeGreaterThan(data.length / 4);
        const { keys, reads } = scanAll(table, cache, false, backward);
        expect(keys.length).toBe(N);
        for (let i = 1; i < keys.length; i++) {
          expect(keys[i]! > keys[i - 1]!).toBe(!backward);
        }
        expect(reads).toBeLessThanOrEqual(readsBound(table));
      });
    }
  }

  for (const compression of ["none", "snappy"] as const) {
    it(`a full backward scan reads many blocks per file read (${compression})`, () => {
      const table = bigTable(compression);
      const { keys, reads } = scanAll(table, undefined, true, true);
      expect(keys.length).toBe(N);
      for (let i = 1; i < keys.length; i++) expect(keys[i]! < keys[i - 1]!).toBe(true);
      expect(reads).toBeLessThanOrEqual(readsBound(table));
    });
  }

  it("seeks to blocks far apart read the block they land on, not a region", () => {
    const table = bigTable("none");
    let file: CountingFile | undefined;
    const reader = openTable(table, {}, (f) => {
      file = new CountingFile(f);
      return file;
    });
    const before = file!.reads;
    const it = reader.newIterator();
    for (let i = 0; i < 50; i++) {
      it.seek(ikey(`key${String((i * 7919) % N).padStart(8, "0")}`, MAX_SEQ, 1));
      expect(it.valid()).toBe(true);
    }
    expect(file!.reads - before).toBe(50);
    it.close();
    reader.close();
  });

  it("a backward region starts at the table's first block at the latest", () => {
    // A table of a few blocks: the backward window would reach before offset 0.
    const keys: Uint8Array[] = [];
    const values: Uint8Array[] = [];
    for (let i = 0; i < 300; i++) {
      keys.push(ikey(`key${String(i).padStart(8, "0")}`, i + 1, 1));
      values.push(toBytes(`value ${i} `.repeat(6)));
    }
    const table = buildTable(keys, values, { blockSize: 4096, compression: "none" });
    const { keys: seen } = scanAll(table, undefined, true, true);
    expect(seen.length).toBe(300);
    expect(seen[0]).toBe(Buffer.from(keys[299]!).toString("latin1"));
    expect(seen[299]).toBe(Buffer.from(keys[0]!).toString("latin1"));
  });

  // Whatever the cache holds and wherever the iterator goes, readahead in either direction
  // only changes where the bytes come from: the entries are the table's, in order.
  it("random walks over a partly cached table see exactly the table's entries", () => {
    const table = bigTable("snappy");
    const { data } = tableLayout(table);
    const model: Uint8Array[] = [];
    for (let i = 0; i < N; i++) model.push(ikey(`key${String(i).padStart(8, "0")}`, i + 1, 1));
    const op = fc.oneof(
      fc.record({ kind: fc.constantFrom("first", "last") }),
      fc.record({ kind: fc.constantFrom("seek", "seekForPrev"), at: fc.nat(N - 1) }),
      fc.record({
        kind: fc.constantFrom("next", "prev"),
        steps: fc.integer({ min: 1, max: 3000 }),
      }),
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.nat(data.length - 1), { maxLength: 60 }),
        fc.boolean(),
        fc.array(op, { minLength: 1, maxLength: 12 }),
        (warm, fillCache, ops) => {
          const cache = new LRUCache<Block>({ capacity: 64 << 20 });
          const reader = openTable(table, { blockCache: cache, cacheId: 7 });
          const perBlock = N / data.length;
          for (const b of warm) {
            const w = reader.newIterator({ fillCache: true });
            w.seek(model[Math.min(N - 1, Math.floor(b * perBlock))]!);
            w.close();
          }
          const it = reader.newIterator({ fillCache });
          let pos = -1; // the model's position; -1 or N: invalid
          const check = () => {
            if (pos < 0 || pos >= N) {
              expect(it.valid()).toBe(false);
              return false;
            }
            expect(it.valid()).toBe(true);
            expect(Buffer.compare(it.key(), model[pos]!)).toBe(0);
            return true;
          };
          for (const o of ops) {
            if (o.kind === "first") {
              it.seekToFirst();
              pos = 0;
            } else if (o.kind === "last") {
              it.seekToLast();
              pos = N - 1;
            } else if (o.kind === "seek") {
              it.seek(model[o.at]!);
              pos = o.at;
            } else if (o.kind === "seekForPrev") {
              it.seekForPrev(model[o.at]!);
              pos = o.at;
            } else if ("steps" in o) {
              for (let i = 0; i < o.steps && check(); i++) {
                if (o.kind === "next") {
                  it.next();
                  pos++;
                } else {
                  it.prev();
                  pos--;
                }
              }
            }
            check();
          }
          it.close();
          reader.close();
        },
      ),
      { numRuns: 40 },
    );
  });

  it("a damaged block inside a region is reported with its offset", () => {
    const table = bigTable("none");
    const layout = tableLayout(table);
    const victim = layout.data[40]!;
    const bytes = table.fs.readFile(table.path);
    bytes[victim.offset + 10]! ^= 0xff;
    const fs = new MemoryFileSystem();
    const w = fs.openWritable(table.path);
    w.append(bytes, 0, bytes.length);
    w.close();
    const reader = openTable({ ...table, fs });
    const it = reader.newIterator();
    let err: unknown;
    try {
      for (it.seekToFirst(); it.valid(); it.next()) {}
    } catch (e) {
      err = e;
    }
    expect(ShaleError.isInstance(err) && err.code === "Corruption").toBe(true);
    expect((err as ShaleError).message).toContain(String(victim.offset));
    it.close();
    reader.close();
  });

  it.each(["none", "snappy"] as const)(
    "values served from a region stay valid after the iterator moves on (%s)",
    (compression) => {
      const table = bigTable(compression);
      const reader = openTable(table);
      const it = reader.newIterator();
      const kept: Uint8Array[] = [];
      for (it.seekToFirst(); it.valid(); it.next()) kept.push(it.value());
      // Pinned values (isValuePinned) keep their bytes until the iterator closes — not
      // after: in invariants mode close() overwrites them (iterator-checks.ts).
      expect(kept.length).toBe(N);
      for (let i = 0; i < N; i += 997) {
        expect(Buffer.from(kept[i]!).toString()).toBe(`value ${i} `.repeat(6));
      }
      it.close();
      reader.close();
    },
  );
});
