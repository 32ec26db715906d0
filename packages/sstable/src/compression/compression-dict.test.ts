import { LookupResult, LookupState, toBytes, ValueKind } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MetaBlockName } from "../format/format.js";
import {
  buildTable,
  tableLayout as decodeLayout,
  ikey,
  openTable,
} from "../table/table.test-support.js";
import { sampleDictionary } from "./compression-dict.js";

const block = (n: number, fill: number) => ({ raw: new Uint8Array(n).fill(fill) });

/** Sorted unique user keys with compressible values, as a table's entries. */
const entriesArb = fc
  .uniqueArray(fc.integer({ min: 0, max: 99_999 }), { minLength: 1, maxLength: 600 })
  .chain((ids) =>
    fc.tuple(
      fc.constant([...ids].sort((a, b) => a - b)),
      fc.array(fc.integer({ min: 0, max: 120 }), { minLength: ids.length, maxLength: ids.length }),
    ),
  )
  .map(([ids, sizes]) => ({
    keys: ids.map((id, i) => ikey(`user${String(id).padStart(6, "0")}`, 1000 + i, ValueKind.Value)),
    values: ids.map((id, i) => toBytes(`value-${id}-`.repeat(sizes[i]! + 1).slice(0, sizes[i]!))),
  }));

describe("sampleDictionary (RocksDB's raw-content sampling)", () => {
  it("the worked example: 5 blocks, 10000 bytes: blocks 2, 0 and half of 3", () => {
    const blocks = [0, 1, 2, 3, 4].map((i) => block(4000, i));
    const dict = sampleDictionary(blocks, 10_000);
    expect(dict.length).toBe(10_000);
    expect(dict.subarray(0, 4000).every((b) => b === 2)).toBe(true);
    expect(dict.subarray(4000, 8000).every((b) => b === 0)).toBe(true);
    expect(dict.subarray(8000).every((b) => b === 3)).toBe(true);
  });

  it("takes min(total, maxBytes) bytes, each block at most once, from the middle block on", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 20_000 }),
        (sizes, max) => {
          const blocks = sizes.map((n, i) => block(n, i));
          const dict = sampleDictionary(blocks, max);
          const total = sizes.reduce((a, b) => a + b, 0);
          expect(dict.length).toBe(Math.min(total, max));
          // Runs of one fill byte: the blocks in the order taken, none twice.
          const seen: number[] = [];
          for (let i = 0; i < dict.length; i++)
            if (i === 0 || dict[i] !== dict[i - 1]) seen.push(dict[i]!);
          expect(new Set(seen).size).toBe(seen.length);
          expect(seen[0]).toBe(Math.floor(sizes.length / 2));
        },
      ),
    );
  });

  it("no blocks or no room: an empty dictionary", () => {
    expect(sampleDictionary([], 100).length).toBe(0);
    expect(sampleDictionary([block(10, 1)], 0).length).toBe(0);
  });
});

describe("tables with a zstd dictionary (zstdMaxDictBytes)", () => {
  it("read back exactly, at any buffer limit and dictionary size; the dictionary is stored", () => {
    fc.assert(
      fc.property(
        entriesArb,
        fc.integer({ min: 1, max: 20_000 }),
        fc.constantFrom(0, 1, 700, 3000),
        fc.constantFrom(256, 1024, 4096),
        fc.constantFrom("binarySearch", "binarySearchWithFirstKey", "twoLevelIndex"),
        ({ keys, values }, maxDict, bufferLimit, blockSize, indexType) => {
          const table = buildTable(keys, values, {
            compression: "zstd",
            zstdMaxDictBytes: maxDict,
            zstdMaxDictBufferBytes: bufferLimit,
            blockSize,
            indexType,
            metadataBlockSize: 128,
          });
          const layout = decodeLayout(table);
          const dict = layout.meta.get(MetaBlockName.COMPRESSION_DICT);
          expect(dict).toBeDefined();
          expect(dict!.size).toBeLessThanOrEqual(maxDict);
          expect(table.properties.compressionOptions).toContain(`max_dict_bytes=${maxDict};`);
          if (indexType === "binarySearchWithFirstKey") {
            // Held-back blocks keep their own first keys.
            const plain = decodeLayout(buildTable(keys, values, { blockSize, indexType }));
            expect(layout.firstKeys).toEqual(plain.firstKeys);
          }
          const reader = openTable(table);
          try {
            const it = reader.newIterator();
            let i = 0;
            for (it.seekToFirst(); it.valid(); it.next(), i++) {
              expect(it.key()).toEqual(keys[i]);
              expect(it.value()).toEqual(values[i]);
            }
            expect(i).toBe(keys.length);
            for (it.seekToLast(), i = keys.length - 1; it.valid(); it.prev(), i--) {
              expect(it.key()).toEqual(keys[i]);
            }
            expect(i).toBe(-1);
            it.close();
            for (let k = 0; k < keys.length; k += 7) {
              const r = reader.get(
                keys[k]!.subarray(0, keys[k]!.length - 8),
                1 << 30,
                new LookupResult(),
              );
              expect(r.state).toBe(LookupState.Found);
              expect(r.value).toEqual(values[k]);
            }
          } finally {
            reader.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("the same index and entries as without a dictionary; the dictionary is the first blocks' raw bytes", () => {
    const keys: Uint8Array[] = [];
    const values: Uint8Array[] = [];
    for (let i = 0; i < 3000; i++) {
      keys.push(ikey(`key${String(i).padStart(6, "0")}`, 5000 + i, ValueKind.Value));
      values.push(toBytes(`order-${i % 97}:customer-${(i * 31) % 1000}:status-${i % 5};`));
    }
    const plain = buildTable(keys, values, { compression: "zstd" });
    const withDict = buildTable(keys, values, { compression: "zstd", zstdMaxDictBytes: 1 << 20 });
    const a = decodeLayout(plain);
    const b = decodeLayout(withDict);
    expect(b.data.length).toBe(a.data.length);
    // The whole table was buffered (limit 0) and fits: the dictionary is all of it, so the
    // blocks compress to far less than without it.
    const dict = b.meta.get(MetaBlockName.COMPRESSION_DICT)!;
    const dataBytes = (l: typeof a) => l.data.reduce((s, h) => s + h.size, 0);
    expect(dataBytes(b)).toBeLessThan(dataBytes(a) / 2);
    expect(dict.size).toBeGreaterThan(dataBytes(a));
    expect(withDict.properties.numDataBlocks).toBe(plain.properties.numDataBlocks);
    expect(withDict.properties.numEntries).toBe(3000);
  });

  it("ignored without zstd compression; bad sizes are InvalidArgument or TypeError", () => {
    const t = buildTable([ikey("a", 1, ValueKind.Value)], [toBytes("x")], {
      compression: "snappy",
      zstdMaxDictBytes: 4096,
    });
    expect(decodeLayout(t).meta.has(MetaBlockName.COMPRESSION_DICT)).toBe(false);
    for (const bad of [-1, 1.5, 2 ** 31]) {
      expect(() => buildTable([], [], { compression: "zstd", zstdMaxDictBytes: bad })).toThrow(
        expect.objectContaining({ code: "InvalidArgument" }),
      );
    }
    expect(() =>
      buildTable([], [], { compression: "zstd", zstdMaxDictBufferBytes: "1" as unknown as number }),
    ).toThrow(TypeError);
  });

  it("partitioned filters with a dictionary are NotSupported", () => {
    expect(() =>
      buildTable([], [], {
        compression: "zstd",
        zstdMaxDictBytes: 4096,
        indexType: "twoLevelIndex",
        partitionFilters: true,
      }),
    ).toThrow(expect.objectContaining({ code: "NotSupported" }));
    // Without a filter nothing is held back from one.
    expect(() =>
      buildTable([], [], {
        compression: "zstd",
        zstdMaxDictBytes: 4096,
        indexType: "twoLevelIndex",
        partitionFilters: true,
        bitsPerKey: 0,
      }),
    ).not.toThrow();
  });
});
