/**
 * The fast read path end to end: `get` through the index block's IndexSearch (block offset
 * from the search aid, index entry decoded only on a cache miss), in-place data-block seeks,
 * and block reads through the reused buffer for compressed tables.
 */
import {
  LookupResult,
  LookupState,
  MAX_SEQ,
  reverseBytewiseComparator,
  toBytes,
  ValueKind,
} from "@shale/base";
import { describeIteratorConformance } from "@shale/base/testing";
import { LRUCache } from "@shale/block-cache";
import { describe, expect, it } from "vitest";
import type { Block } from "../block/block.js";
import type { CompressionName } from "../compression/compression.js";
import { buildTable, ikey, openTable, tableLayout } from "./table.test-support.js";
import { TableReader } from "./table-reader.js";

/** db_bench key: 8 big-endian bytes of i, then eight '0'. */
function benchKey(i: number): Uint8Array {
  const k = new Uint8Array(16).fill(0x30);
  for (let b = 7, v = i; b >= 0; b--, v = Math.floor(v / 256)) k[b] = v & 0xff;
  return k;
}

const N = 3000;
function benchValue(i: number): Uint8Array {
  return toBytes(`value-${i}-`.padEnd(40 + (i % 50), String.fromCharCode(97 + (i % 26))));
}

/** Even keys only (odd ones are absent but inside the key range). */
function benchTable(compression: CompressionName = "none") {
  const keys: Uint8Array[] = [];
  const values: Uint8Array[] = [];
  for (let i = 0; i < N; i += 2) {
    keys.push(ikey(benchKey(i), i + 1, ValueKind.Value));
    values.push(benchValue(i));
  }
  return buildTable(keys, values, { blockSize: 512, compression });
}

function checkAll(reader: ReturnType<typeof openTable>): void {
  const r = new LookupResult();
  const decoder = new TextDecoder();
  for (let i = 0; i < N; i++) {
    r.reset();
    reader.get(benchKey(i), MAX_SEQ, r);
    if (i % 2 === 0) {
      expect(r.state).toBe(LookupState.Found);
      expect(r.seq).toBe(i + 1);
      expect(decoder.decode(r.value)).toBe(decoder.decode(benchValue(i)));
    } else {
      expect(r.state).toBe(LookupState.NotFound);
    }
    // Below the key's only version: not visible.
    r.reset();
    reader.get(benchKey(i), i, r);
    expect(r.state).toBe(LookupState.NotFound);
  }
  // Past both ends.
  r.reset();
  reader.get(benchKey(N + 5), MAX_SEQ, r);
  expect(r.state).toBe(LookupState.NotFound);
  r.reset();
  reader.get(new Uint8Array(0), MAX_SEQ, r);
  expect(r.state).toBe(LookupState.NotFound);
}

// With a block cache, seeks that hit it leave the index iterator unpositioned until a move
// crosses into a neighbouring block (TableIterator.pendingEntry).
for (const capacity of [1 << 24, 3000]) {
  describeIteratorConformance(`TableIterator with a block cache of ${capacity} bytes`, {
    keys: "internal",
    sizes: [0, 1, 300, 2000],
    build: (keys, values) =>
      openTable(buildTable(keys, values, { blockSize: 128 }), {
        blockCache: new LRUCache<Block>({ capacity, numShardBits: 0 }),
      }).newIterator(),
  });
}

describe("get through the index search aid", () => {
  it("finds every key, with and without cache misses, raw or compressed", () => {
    for (const compression of ["none", "snappy"] as const) {
      const table = benchTable(compression);
      expect(table.properties.numDataBlocks).toBeGreaterThan(50);
      for (const capacity of [1 << 24, 8192, 0]) {
        const cache = capacity > 0 ? new LRUCache<Block>({ capacity }) : undefined;
        const reader = openTable(table, cache !== undefined ? { blockCache: cache } : {});
        expect(reader.indexBlock().search).toBeDefined();
        checkAll(reader);
        checkAll(reader); // again, now (partly) from the cache
        reader.close();
      }
    }
  });

  it("a key hash computed once gives the same answers as hashing in get", () => {
    const reader = openTable(benchTable());
    const hash = new Uint32Array(2);
    const a = new LookupResult();
    const b = new LookupResult();
    let filtered = 0;
    for (let i = 0; i < N + 40; i++) {
      const key = i < N ? benchKey(i) : toBytes(`absent${i}`);
      TableReader.hashKey(key, hash);
      a.reset();
      b.reset();
      reader.get(key, MAX_SEQ, a);
      reader.get(key, MAX_SEQ, b, undefined, hash);
      expect(b.state).toBe(a.state);
      expect(b.seq).toBe(a.seq);
      if (a.value !== undefined) expect(Buffer.compare(b.value!, a.value)).toBe(0);
      if (!reader.mayContain(key)) filtered++;
    }
    expect(filtered).toBeGreaterThan(N / 4); // the filter answered for absent keys
  });

  it("is not used with a custom comparator, which still finds every key", () => {
    const keys: Uint8Array[] = [];
    const values: Uint8Array[] = [];
    for (let i = N - 2; i >= 0; i -= 2) {
      keys.push(ikey(benchKey(i), i + 1, ValueKind.Value));
      values.push(benchValue(i));
    }
    const table = buildTable(keys, values, {
      blockSize: 512,
      comparator: reverseBytewiseComparator,
    });
    const reader = openTable(table, { comparator: reverseBytewiseComparator });
    expect(reader.indexBlock().search).toBeUndefined();
    checkAll(reader);
  });

  it("versions and merge operands spanning blocks, at every snapshot", () => {
    const keys: Uint8Array[] = [ikey("a", 900, ValueKind.Value)];
    const values: Uint8Array[] = [toBytes("a")];
    // "k": seq 600..401 values and deletions, 400..201 merges, then a base value at 1.
    for (let seq = 600; seq > 200; seq--) {
      const kind =
        seq > 400 ? (seq % 7 === 0 ? ValueKind.Deletion : ValueKind.Value) : ValueKind.Merge;
      keys.push(ikey("k", seq, kind));
      values.push(kind === ValueKind.Deletion ? new Uint8Array(0) : toBytes(`v${seq}`));
    }
    keys.push(ikey("k", 1, ValueKind.Value));
    values.push(toBytes("base"));
    keys.push(ikey("z", 2, ValueKind.Value));
    values.push(toBytes("z"));
    const table = buildTable(keys, values, { blockSize: 128 });
    for (const cache of [undefined, new LRUCache<Block>({ capacity: 1 << 20 })]) {
      const reader = openTable(table, cache !== undefined ? { blockCache: cache } : {});
      expect(reader.indexBlock().search).toBeDefined();
      const r = new LookupResult();
      const decoder = new TextDecoder();
      for (let snapshot = 0; snapshot <= 620; snapshot += 3) {
        r.reset();
        reader.get(toBytes("k"), snapshot, r);
        if (snapshot > 400) {
          const seq = Math.min(snapshot, 600);
          if (seq % 7 === 0) {
            expect(r.state).toBe(LookupState.Deleted);
          } else {
            expect(r.state).toBe(LookupState.Found);
            expect(decoder.decode(r.value)).toBe(`v${seq}`);
          }
          expect(r.seq).toBe(seq);
          expect(r.operands.length).toBe(0);
        } else if (snapshot >= 1) {
          expect(r.state).toBe(LookupState.Found);
          expect(decoder.decode(r.value)).toBe("base");
          const top = Math.min(snapshot, 400);
          expect(r.operands.length).toBe(Math.max(0, top - 200));
          if (top > 200) expect(decoder.decode(r.operands[0])).toBe(`v${top}`);
        } else {
          expect(r.state).toBe(LookupState.NotFound);
        }
      }
    }
  });
});

describe("block reads of compressed tables", () => {
  it("raw blocks read through the reused buffer keep their own memory", () => {
    // Incompressible values: the blocks of this snappy table are stored raw.
    let x = 7;
    const random = (n: number) =>
      Uint8Array.from({ length: n }, () => {
        x = (x * 1103515245 + 12345) >>> 0;
        return x >>> 24;
      });
    const keys: Uint8Array[] = [];
    const values: Uint8Array[] = [];
    for (let i = 0; i < 400; i++) {
      keys.push(ikey(benchKey(i), 1, ValueKind.Value));
      values.push(i % 100 < 50 ? random(120) : new Uint8Array(120).fill(i & 0xff));
    }
    const table = buildTable(keys, values, { blockSize: 256, compression: "snappy" });
    const bytes = table.fs.readFile(table.path);
    const types = new Set(tableLayout(table).data.map((h) => bytes[h.offset + h.size]));
    expect(types).toEqual(new Set([0, 1])); // both raw and snappy blocks
    const reader = openTable(table); // no cache: every get reads its block
    const r = new LookupResult();
    const held: Uint8Array[] = [];
    for (let i = 0; i < 400; i++) {
      r.reset();
      reader.get(benchKey(i), MAX_SEQ, r);
      held.push(r.value!);
    }
    // Every view still holds its value after all the later reads.
    for (let i = 0; i < 400; i++) expect(Buffer.compare(held[i]!, values[i]!)).toBe(0);
  });
});
