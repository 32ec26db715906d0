/**
 * `TableReader.multiGet` against `get` key by key (random tables, snapshots, range
 * tombstones, merge operands, incoming maxCoveringSeq, a tiny recycling block cache), the
 * sink's contract (called once per key that ends in the table, while its value is intact),
 * and the point of batching: a data block is read once for all the keys whose lookups land
 * in it. The planned pass (a one-level index with a search aid: filter probes and index
 * entries first, the index search galloping on from the previous key's entry, cached
 * blocks touched) against `get` on keys in the same block, duplicates, keys the filter rules
 * out, keys past the last block, with the same filter statistics; a reverse-ordered table
 * (no search aid) through the plain pass.
 */
import {
  LookupResult,
  LookupState,
  type RangeTombstone,
  reverseBytewiseComparator,
  Statistics,
  Ticker,
  toHex,
  ValueKind,
} from "@shale/base";
import { SharedBlockCache } from "@shale/block-cache";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { newBlockCache } from "../block/block-cache.js";
import { IndexSearch } from "../index/index-search.js";
import { buildTable, CountingFile, icmp, ikey, openTable } from "./table.test-support.js";
import type { MultiGetSink } from "./table-reader.js";
import { TableReader } from "./table-reader.js";

const enc = (s: string) => new TextEncoder().encode(s);

interface Seen {
  state: number;
  value: string | undefined;
  seq: number;
  operands: string[];
  maxCoveringSeq: number;
}

const seen = (r: LookupResult): Seen => ({
  state: r.state,
  value: r.value === undefined ? undefined : toHex(r.value),
  seq: r.seq,
  operands: r.operands.map(toHex),
  maxCoveringSeq: r.maxCoveringSeq,
});

/** Records each settled key's result at the moment it settles (values copied then). */
class RecordingSink implements MultiGetSink {
  readonly settledAt = new Map<number, Seen>();
  constructor(private readonly results: readonly LookupResult[]) {}
  settled(i: number): void {
    expect(this.settledAt.has(i), `settled(${i}) twice`).toBe(false);
    expect(this.results[i]!.done).toBe(true);
    this.settledAt.set(i, seen(this.results[i]!));
  }
}

const userArb = fc.uint8Array({ minLength: 0, maxLength: 3, max: 5 });

const scenario = fc.record({
  points: fc.array(
    fc.record({
      user: userArb,
      kind: fc.constantFrom(ValueKind.Value, ValueKind.Value, ValueKind.Merge, ValueKind.Deletion),
      value: fc.uint8Array({ maxLength: 24 }),
    }),
    { maxLength: 200 },
  ),
  tombstones: fc.array(fc.record({ a: userArb, b: userArb }), { maxLength: 4 }),
  blockSize: fc.constantFrom(48, 128, 4096),
  bitsPerKey: fc.constantFrom(0, 10),
  tinyCache: fc.boolean(),
  batch: fc.array(fc.record({ user: userArb, incoming: fc.integer({ min: 0, max: 230 }) }), {
    maxLength: 40,
  }),
  snapshot: fc.integer({ min: 0, max: 230 }),
});

describe("TableReader.multiGet", () => {
  it("gives each key what get gives it, and settles each key that ends in the table once", () => {
    fc.assert(
      fc.property(scenario, fc.boolean(), (s, shared) => {
        const entries = s.points.map((p, i) => ({ ...p, seq: i + 1 }));
        const sorted = entries
          .map((e) => ({ key: ikey(e.user, e.seq, e.kind), value: e.value }))
          .sort((a, b) => icmp.compare(a.key, b.key));
        const tombstones: RangeTombstone[] = s.tombstones
          .map((t, i) => {
            const [start, end] = Buffer.compare(t.a, t.b) <= 0 ? [t.a, t.b] : [t.b, t.a];
            return { start, end, seq: 201 + i };
          })
          .filter((t) => Buffer.compare(t.start, t.end) < 0);
        const table = buildTable(
          sorted.map((e) => e.key),
          sorted.map((e) => e.value),
          { blockSize: s.blockSize, bitsPerKey: s.bitsPerKey },
          tombstones,
        );
        const cache = s.tinyCache ? newBlockCache(256, { recycleBlocks: true }) : undefined;
        // With a shared block cache of two 4 KiB slabs (evicting all the time), the batch is
        // read twice: the second finds blocks in the slabs. The expected answers come from a
        // reader without it.
        const reader = openTable(table, {
          ...(cache === undefined ? {} : { blockCache: cache }),
          ...(shared
            ? { fileNumber: 3, sharedBlockCache: SharedBlockCache.create(8192, { slabSize: 4096 }) }
            : {}),
        });
        const plain = openTable(table);
        for (let round = 0; round < (shared ? 2 : 1); round++) {
          const batch = [...s.batch].sort((a, b) => Buffer.compare(a.user, b.user));
          const keys = batch.map((q) => q.user);
          const results = batch.map((q) => {
            const r = new LookupResult();
            r.maxCoveringSeq = q.incoming;
            return r;
          });
          const hashes = new Uint32Array(2 * keys.length);
          const h = new Uint32Array(2);
          keys.forEach((k, i) => {
            TableReader.hashKey(k, h);
            hashes[2 * i] = h[0]!;
            hashes[2 * i + 1] = h[1]!;
          });
          const sink = new RecordingSink(results);
          reader.multiGet(
            keys,
            results,
            s.bitsPerKey > 0 ? hashes : undefined,
            0,
            keys.length,
            s.snapshot,
            undefined,
            sink,
          );
          for (let i = 0; i < keys.length; i++) {
            const expected = new LookupResult();
            expected.maxCoveringSeq = batch[i]!.incoming;
            plain.get(keys[i]!, s.snapshot, expected);
            const want = seen(expected);
            if (expected.done)
              expect(sink.settledAt.get(i), `key ${toHex(keys[i]!)}`).toEqual(want);
            else {
              expect(sink.settledAt.has(i)).toBe(false);
              expect(seen(results[i]!), `key ${toHex(keys[i]!)}`).toEqual(want);
            }
          }
        }
        plain.close();
        reader.close();
      }),
      { numRuns: 200 },
    );
  });

  it("reads each data block once for the keys in it (a loop of get reads it per key)", () => {
    const n = 400;
    const keys: Uint8Array[] = [];
    const values: Uint8Array[] = [];
    for (let i = 0; i < n; i++) {
      keys.push(ikey(`key${String(i).padStart(4, "0")}`, i + 1, ValueKind.Value));
      values.push(enc(`value-${i}`.padEnd(40, ".")));
    }
    const table = buildTable(keys, values, { blockSize: 1024, compression: "none" });
    const blocks = table.properties.numDataBlocks;
    expect(blocks).toBeGreaterThan(10);
    const lookups = Array.from({ length: n }, (_, i) => enc(`key${String(i).padStart(4, "0")}`));

    let file: CountingFile | undefined;
    const batched = openTable(table, {}, (f) => (file = new CountingFile(f)));
    const before = file!.reads;
    const results = lookups.map(() => new LookupResult());
    const sink: MultiGetSink = { settled: () => {} };
    batched.multiGet(lookups, results, undefined, 0, n, 1 << 20, undefined, sink);
    const batchedReads = file!.reads - before;
    expect(results.every((r) => r.state === LookupState.Found)).toBe(true);
    batched.close();

    const looped = openTable(table, {}, (f) => (file = new CountingFile(f)));
    const before2 = file!.reads;
    for (const k of lookups) looped.get(k, 1 << 20, new LookupResult());
    const loopReads = file!.reads - before2;
    looped.close();

    expect(batchedReads).toBeLessThanOrEqual(blocks + 2);
    expect(loopReads).toBeGreaterThanOrEqual(n);
  });

  it("rejects a bad snapshot or range, and calls after close", () => {
    const reader = openTable(buildTable([ikey("a", 1, 1)], [new Uint8Array(1)]));
    const keys = [enc("a")];
    const results = [new LookupResult()];
    const sink: MultiGetSink = { settled: () => {} };
    expect(() => reader.multiGet(keys, results, undefined, 0, 1, -1, undefined, sink)).toThrow(
      expect.objectContaining({ code: "InvalidArgument" }),
    );
    expect(() => reader.multiGet(keys, results, undefined, 0, 2, 1, undefined, sink)).toThrow(
      expect.objectContaining({ code: "InvalidArgument" }),
    );
    reader.close();
    expect(() => reader.multiGet(keys, results, undefined, 0, 1, 1, undefined, sink)).toThrow(
      expect.objectContaining({ code: "Closed" }),
    );
  });

  describe("the planned pass", () => {
    const N = 600;
    const userKey = (i: number) => enc(`key${String(i).padStart(5, "0")}`);

    /** Keys 0, 2, 4, ... (odd ones absent), one version each, in blocks of ~12 entries. */
    function table(comparator?: typeof reverseBytewiseComparator) {
      const ids = Array.from({ length: N }, (_, i) => 2 * i);
      if (comparator !== undefined) ids.reverse();
      const keys = ids.map((i) => ikey(userKey(i), i + 1, ValueKind.Value));
      const values = ids.map((i) => enc(`value-${i}`.padEnd(30, ".")));
      return buildTable(keys, values, {
        blockSize: 512,
        bitsPerKey: 10,
        ...(comparator === undefined ? {} : { comparator }),
      });
    }

    /** Runs `ids` (ascending in the table's order) through multiGet and through get. */
    function compare(reader: TableReader, stats: Statistics, ids: number[]) {
      const keys = ids.map(userKey);
      const results = keys.map(() => new LookupResult());
      const hashes = new Uint32Array(2 * keys.length);
      const h = new Uint32Array(2);
      keys.forEach((k, i) => {
        TableReader.hashKey(k, h);
        hashes[2 * i] = h[0]!;
        hashes[2 * i + 1] = h[1]!;
      });
      const checked = stats.getTicker(Ticker.BloomChecked);
      const useful = stats.getTicker(Ticker.BloomUseful);
      const sink = new RecordingSink(results);
      reader.multiGet(keys, results, hashes, 0, keys.length, 1 << 20, undefined, sink);
      const batched = [
        stats.getTicker(Ticker.BloomChecked) - checked,
        stats.getTicker(Ticker.BloomUseful) - useful,
      ];
      for (let i = 0; i < keys.length; i++) {
        const expected = reader.get(keys[i]!, 1 << 20, new LookupResult());
        const got = expected.done ? sink.settledAt.get(i) : seen(results[i]!);
        expect(got, `key ${ids[i]}`).toEqual(seen(expected));
        expect(expected.state).toBe(ids[i]! % 2 === 0 && ids[i]! < 2 * N ? 1 : 0);
      }
      const looped = [
        stats.getTicker(Ticker.BloomChecked) - checked - batched[0]!,
        stats.getTicker(Ticker.BloomUseful) - useful - batched[1]!,
      ];
      expect(batched).toEqual(looped);
    }

    it("gives what get gives: same block, duplicates, filtered keys, past the end", () => {
      const stats = new Statistics();
      const cache = newBlockCache(1 << 20);
      const reader = openTable(table(), { blockCache: cache, statistics: stats });
      expect(reader.indexBlock().search).toBeDefined();
      const spy = vi.spyOn(IndexSearch.prototype, "lowerBound");
      try {
        // Cold, then cached (the blocks touched): the same answers.
        for (let round = 0; round < 2; round++) {
          compare(reader, stats, [0, 2, 2, 2, 4, 6, 7, 9, 10, 11]); // one block, duplicates
          compare(reader, stats, [1, 3, 40, 41, 400, 401, 800, 1198, 1199, 1500, 1501]);
          compare(
            reader,
            stats,
            Array.from({ length: 200 }, (_, i) => 6 * i),
          );
        }
        // The search galloped on from a previous key's entry.
        expect(spy.mock.calls.some((c) => (c[1] ?? 0) > 0)).toBe(true);
      } finally {
        spy.mockRestore();
      }
      expect(stats.getTicker(Ticker.BloomUseful)).toBeGreaterThan(0);
      reader.close();
    });

    it("a reverse-ordered table (no search aid) takes the plain pass with the same answers", () => {
      const stats = new Statistics();
      const reader = openTable(table(reverseBytewiseComparator), {
        comparator: reverseBytewiseComparator,
        blockCache: newBlockCache(1 << 20),
        statistics: stats,
      });
      expect(reader.indexBlock().search).toBeUndefined();
      compare(reader, stats, [1501, 1199, 1198, 800, 41, 40, 40, 11, 10, 2, 0]);
      reader.close();
    });
  });
});
