/**
 * `TableReader.get` against a brute-force model of the LookupResult contract, with random
 * snapshots, range tombstones, merge operands, deletions and an incoming maxCoveringSeq.
 */
import { LookupResult, LookupState, type RangeTombstone, toHex, ValueKind } from "@shale/base";
import { LRUCache, SharedBlockCache } from "@shale/block-cache";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Block } from "../block/block.js";
import { buildTable, icmp, ikey, openTable } from "./table.test-support.js";

interface Entry {
  user: Uint8Array;
  seq: number;
  kind: number;
  value: Uint8Array;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

interface Expected {
  state: number;
  value: string | undefined;
  seq: number;
  operands: string[];
  maxCoveringSeq: number;
}

function model(
  entries: readonly Entry[],
  tombstones: readonly RangeTombstone[],
  user: Uint8Array,
  snapshot: number,
  incomingCovering: number,
): Expected {
  let covering = incomingCovering;
  for (const t of tombstones) {
    if (t.seq <= snapshot && compareBytes(t.start, user) <= 0 && compareBytes(user, t.end) < 0) {
      covering = Math.max(covering, t.seq);
    }
  }
  const out: Expected = {
    state: LookupState.NotFound,
    value: undefined,
    seq: 0,
    operands: [],
    maxCoveringSeq: covering,
  };
  const versions = entries
    .filter((e) => compareBytes(e.user, user) === 0 && e.seq <= snapshot)
    .sort((a, b) => b.seq - a.seq);
  for (const e of versions) {
    if (e.seq < covering) {
      out.state = LookupState.Deleted;
      out.seq = covering;
      return out;
    }
    if (e.kind === ValueKind.Value) {
      out.state = LookupState.Found;
      out.value = toHex(e.value);
      out.seq = e.seq;
      return out;
    }
    if (e.kind === ValueKind.Merge) {
      out.operands.push(toHex(e.value));
      out.state = LookupState.Merging;
      continue;
    }
    out.state = LookupState.Deleted;
    out.seq = e.seq;
    return out;
  }
  return out;
}

const userArb = fc.uint8Array({ minLength: 0, maxLength: 3, max: 3 });

const scenario = fc
  .record({
    points: fc.array(
      fc.record({
        user: userArb,
        kind: fc.constantFrom(
          ValueKind.Value,
          ValueKind.Value,
          ValueKind.Merge,
          ValueKind.Deletion,
          ValueKind.SingleDeletion,
        ),
        value: fc.uint8Array({ maxLength: 24 }),
      }),
      { maxLength: 200 },
    ),
    tombstones: fc.array(fc.record({ a: userArb, b: userArb }), { maxLength: 6 }),
    blockSize: fc.constantFrom(48, 128, 4096),
    bitsPerKey: fc.constantFrom(0, 10),
    queries: fc.array(
      fc.record({
        user: userArb,
        snapshot: fc.integer({ min: 0, max: 260 }),
        incoming: fc.integer({ min: 0, max: 260 }),
      }),
      { minLength: 20, maxLength: 60 },
    ),
    seqOrder: fc.array(fc.integer(), { minLength: 220, maxLength: 220 }),
  })
  .map((s) => {
    // Distinct seqs for every point and tombstone, in a random order.
    const seqs = Array.from({ length: 220 }, (_, i) => i + 1).sort(
      (x, y) => s.seqOrder[x - 1]! - s.seqOrder[y - 1]!,
    );
    const entries: Entry[] = s.points.map((p, i) => ({ ...p, seq: seqs[i]! }));
    const tombstones: RangeTombstone[] = s.tombstones
      .map((t, i) => {
        const [start, end] = compareBytes(t.a, t.b) <= 0 ? [t.a, t.b] : [t.b, t.a];
        return { start, end, seq: seqs[200 + i]! };
      })
      .filter((t) => compareBytes(t.start, t.end) < 0);
    return { ...s, entries, tombstones };
  });

/** How a scenario's table is read: its reader's options, and how many times each probe runs. */
interface ReadMode {
  name: string;
  options: () => Parameters<typeof openTable>[1];
  rounds: number;
}

const modes: ReadMode[] = [
  { name: "no cache", options: () => ({}), rounds: 1 },
  {
    // Probed twice: the first reads and inserts the blocks, the second searches them in the
    // slabs (a cache of two 4 KiB slabs also evicts all the time).
    name: "a shared block cache",
    options: () => ({
      fileNumber: 7,
      sharedBlockCache: SharedBlockCache.create(8192, { slabSize: 4096 }),
    }),
    rounds: 2,
  },
];

describe.each(modes)("get matches a brute-force model ($name)", (mode) => {
  it("random tables, snapshots and range tombstones", () => {
    let sharedHits = 0;
    fc.assert(
      fc.property(scenario, fc.boolean(), (s, hashIndex) => {
        const sorted = s.entries
          .map((e) => ({ key: ikey(e.user, e.seq, e.kind), value: e.value }))
          .sort((a, b) => icmp.compare(a.key, b.key));
        const table = buildTable(
          sorted.map((e) => e.key),
          sorted.map((e) => e.value),
          {
            blockSize: s.blockSize,
            bitsPerKey: s.bitsPerKey,
            ...(hashIndex ? { dataBlockIndexType: "binaryAndHash" as const } : {}),
          },
          s.tombstones,
        );
        const options = mode.options();
        const reader = openTable(table, options);
        const result = new LookupResult();
        const probes: { user: Uint8Array; snapshot: number; incoming: number }[] = [...s.queries];
        for (const e of s.entries.slice(0, 20))
          probes.push({ user: e.user, snapshot: e.seq, incoming: 0 });
        for (let round = 0; round < mode.rounds; round++)
          for (const q of probes) {
            result.reset();
            result.maxCoveringSeq = q.incoming;
            reader.get(q.user, q.snapshot, result);
            const expected = model(s.entries, s.tombstones, q.user, q.snapshot, q.incoming);
            const actual: Expected = {
              state: result.state,
              value: result.value === undefined ? undefined : toHex(result.value),
              seq: result.seq,
              operands: result.operands.map(toHex),
              maxCoveringSeq: result.maxCoveringSeq,
            };
            expect(actual, `get ${toHex(q.user)} @${q.snapshot} (incoming ${q.incoming})`).toEqual(
              expected,
            );
          }
        reader.close();
        sharedHits += options?.sharedBlockCache?.stats().hits ?? 0;
      }),
      { numRuns: 150 },
    );
    // The second round found blocks in the slabs.
    if (mode.rounds > 1) expect(sharedHits).toBeGreaterThan(1000);
  });
});

describe("get", () => {
  it("returns zero-copy views into the block that stay valid after eviction", () => {
    const keys = [ikey("a", 2, ValueKind.Value), ikey("b", 1, ValueKind.Value)];
    const values = [new Uint8Array(50).fill(7), new Uint8Array(50).fill(9)];
    const cache = new LRUCache<Block>({ capacity: 1 << 20 });
    const reader = openTable(buildTable(keys, values, { compression: "none" }), {
      blockCache: cache,
    });
    const r = new LookupResult();
    reader.get(new Uint8Array([0x61]), 10, r);
    const v = r.value!;
    const r2 = new LookupResult();
    reader.get(new Uint8Array([0x62]), 10, r2);
    // Both views point into the same cached block's memory (no copy) ...
    expect(r2.value!.buffer).toBe(v.buffer);
    expect(v.byteOffset).not.toBe(r2.value!.byteOffset);
    const handle = cache.lookup(reader.cacheId, 0)!;
    expect(v.buffer).toBe(handle.value.data.buffer);
    cache.release(handle);
    cache.eraseId(reader.cacheId);
    reader.close();
    // ... and stay intact after the reader is gone.
    expect(v.every((b) => b === 7)).toBe(true);
  });

  it("rejects a bad snapshot and calls after close", () => {
    const reader = openTable(buildTable([ikey("a", 1, 1)], [new Uint8Array(1)]));
    expect(() => reader.get(new Uint8Array(1), -1, new LookupResult())).toThrow(
      expect.objectContaining({ code: "InvalidArgument" }),
    );
    reader.close();
    reader.close();
    expect(() => reader.get(new Uint8Array(1), 1, new LookupResult())).toThrow(
      expect.objectContaining({ code: "Closed" }),
    );
  });
});
