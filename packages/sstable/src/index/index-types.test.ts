/**
 * Every index type a table can be written with (`indexType`: one block, two levels, first
 * keys), with and without partitioned filters, partitions from tiny to default
 * (`metadataBlockSize`), format versions 2-5 and the three ways of keeping index blocks
 * (held, pinned in a cache, looked up in it), against a sorted model: every get (at random
 * snapshots, merge operands spanning blocks included), absent keys, full scans both ways,
 * seeks and seekForPrev, `mayContain` (no false negatives through partitions).
 */
import { LookupResult, LookupState, MAX_SEQ, ShaleError, toHex, ValueKind } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { newBlockCache } from "../block/block-cache.js";
import { IndexType } from "../format/format.js";
import type { IndexTypeName } from "../table/builder-options.js";
import { buildTable, flipByte, icmp, ikey, openTable } from "../table/table.test-support.js";
import { tableIndexEntries } from "../table/table-layout.js";

interface Entry {
  user: Uint8Array;
  seq: number;
  kind: number;
  value: Uint8Array;
}

const INDEX_NUMBER: Record<IndexTypeName, number> = {
  binarySearch: IndexType.BinarySearch,
  twoLevelIndex: IndexType.TwoLevelIndexSearch,
  binarySearchWithFirstKey: IndexType.BinarySearchWithFirstKey,
};

function model(entries: readonly Entry[], user: Uint8Array, snapshot: number) {
  const out = {
    state: LookupState.NotFound as number,
    value: "",
    seq: 0,
    operands: [] as string[],
  };
  const versions = entries
    .filter((e) => Buffer.compare(e.user, user) === 0 && e.seq <= snapshot)
    .sort((a, b) => b.seq - a.seq);
  for (const e of versions) {
    if (e.kind === ValueKind.Merge) {
      out.operands.push(toHex(e.value));
      out.state = LookupState.Merging;
      continue;
    }
    out.seq = e.seq;
    if (e.kind === ValueKind.Value) {
      out.state = LookupState.Found;
      out.value = toHex(e.value);
    } else {
      out.state = LookupState.Deleted;
    }
    return out;
  }
  return out;
}

// Few distinct user keys of 0-4 bytes: many versions per key, keys spanning blocks.
const userArb = fc.uint8Array({ minLength: 0, maxLength: 4, max: 5 });

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
        ),
        value: fc.uint8Array({ maxLength: 20 }),
      }),
      { maxLength: 300 },
    ),
    indexType: fc.constantFrom<IndexTypeName>(
      "binarySearch",
      "twoLevelIndex",
      "twoLevelIndex",
      "binarySearchWithFirstKey",
    ),
    partitionFilters: fc.boolean(),
    metadataBlockSize: fc.constantFrom(1, 40, 64, 200, 4096),
    blockSize: fc.constantFrom(32, 100, 4096),
    formatVersion: fc.constantFrom(2, 3, 4, 5),
    bitsPerKey: fc.constantFrom(0, 10),
    cache: fc.constantFrom("none", "pinned", "unpinned"),
    queries: fc.array(fc.record({ user: userArb, snapshot: fc.integer({ min: 0, max: 320 }) }), {
      minLength: 10,
      maxLength: 40,
    }),
    seeks: fc.array(fc.record({ user: userArb, seq: fc.integer({ min: 0, max: 320 }) }), {
      minLength: 5,
      maxLength: 20,
    }),
  })
  .map((s) => ({
    ...s,
    entries: s.points.map((p, i): Entry => ({ ...p, seq: i + 1 })),
    partitionFilters: s.partitionFilters && s.indexType === "twoLevelIndex",
  }));

function open(s: { cache: string }, table: ReturnType<typeof buildTable>) {
  if (s.cache === "none") return openTable(table);
  return openTable(table, {
    blockCache: newBlockCache(1 << 20),
    pinIndexAndFilterBlocks: s.cache === "pinned",
  });
}

describe("index types against a sorted model", () => {
  it("gets, scans, seeks and filters", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const sorted = s.entries
          .map((e) => ({ key: ikey(e.user, e.seq, e.kind), value: e.value }))
          .sort((a, b) => icmp.compare(a.key, b.key));
        const table = buildTable(
          sorted.map((e) => e.key),
          sorted.map((e) => e.value),
          {
            blockSize: s.blockSize,
            bitsPerKey: s.bitsPerKey,
            formatVersion: s.formatVersion,
            indexType: s.indexType,
            partitionFilters: s.partitionFilters,
            metadataBlockSize: s.metadataBlockSize,
            compression: "none",
          },
        );
        const reader = open(s, table);
        const props = reader.properties;
        expect(props.indexType).toBe(INDEX_NUMBER[s.indexType]);
        if (s.indexType === "twoLevelIndex" && sorted.length > 0) {
          expect(props.indexPartitions).toBeGreaterThan(0);
          expect(reader.partitioned?.count).toBe(props.indexPartitions);
          // A 1-byte partition is full at its first entry; the last block never cuts.
          if (s.metadataBlockSize === 1 && props.numDataBlocks >= 2) {
            expect(props.indexPartitions).toBe(props.numDataBlocks - 1);
          }
          expect(props.topLevelIndexSize).toBeGreaterThan(0);
        } else {
          expect(props.indexPartitions).toBe(0);
        }
        // The index lists every data block once, in file order.
        const entries = tableIndexEntries(reader);
        expect(entries.length).toBe(props.numDataBlocks);
        for (let i = 1; i < entries.length; i++) {
          expect(entries[i]!.handle.offset).toBeGreaterThan(entries[i - 1]!.handle.offset);
        }

        // Gets: every key at its own seq and at the latest, random probes.
        const result = new LookupResult();
        const probes: { user: Uint8Array; snapshot: number }[] = [...s.queries];
        for (const e of s.entries.slice(0, 40)) {
          probes.push({ user: e.user, snapshot: e.seq }, { user: e.user, snapshot: MAX_SEQ });
        }
        for (const q of probes) {
          result.reset();
          reader.get(q.user, q.snapshot, result);
          const expected = model(s.entries, q.user, q.snapshot);
          expect(
            {
              state: result.state,
              value: result.state === LookupState.Found ? toHex(result.value!) : "",
              seq: result.state === LookupState.Merging ? 0 : result.seq,
              operands: result.operands.map(toHex),
            },
            `get ${toHex(q.user)} @${q.snapshot}`,
          ).toEqual(expected);
        }
        // No false negatives: every user key present passes its filter.
        for (const e of s.entries) expect(reader.mayContain(e.user)).toBe(true);

        // Scans both ways.
        const keys = sorted.map((e) => toHex(e.key));
        const it = reader.newIterator();
        const forward: string[] = [];
        for (it.seekToFirst(); it.valid(); it.next()) forward.push(toHex(it.key()));
        expect(forward).toEqual(keys);
        const backward: string[] = [];
        for (it.seekToLast(); it.valid(); it.prev()) backward.push(toHex(it.key()));
        expect(backward).toEqual([...keys].reverse());
        // Seeks and seekForPrev to random internal keys, then a step each way.
        for (const q of s.seeks) {
          const target = ikey(q.user, q.seq, ValueKind.Value);
          const at = sorted.findIndex((e) => icmp.compare(e.key, target) >= 0);
          it.seek(target);
          if (at < 0) expect(it.valid()).toBe(false);
          else {
            expect(toHex(it.key())).toBe(keys[at]);
            expect(toHex(it.value())).toBe(toHex(sorted[at]!.value));
            it.next();
            if (at + 1 < keys.length) expect(toHex(it.key())).toBe(keys[at + 1]);
            else expect(it.valid()).toBe(false);
          }
          const before =
            at < 0 ? keys.length - 1 : icmp.compare(sorted[at]!.key, target) === 0 ? at : at - 1;
          it.seekForPrev(target);
          if (before < 0) expect(it.valid()).toBe(false);
          else {
            expect(toHex(it.key())).toBe(keys[before]);
            it.prev();
            if (before > 0) expect(toHex(it.key())).toBe(keys[before - 1]);
            else expect(it.valid()).toBe(false);
          }
        }
        it.close();
        expect(reader.verifyChecksums().dataBlocks).toBe(props.numDataBlocks);
        reader.close();
      }),
      { numRuns: 200 },
    );
  });
});

describe("index type options", () => {
  const key = ikey("a", 1, ValueKind.Value);
  it("validates indexType, partitionFilters and metadataBlockSize", () => {
    const build = (o: object) => () => buildTable([key], [new Uint8Array(1)], o);
    expect(build({ indexType: "hash" })).toThrow(/indexType/);
    expect(build({ indexType: "hash" })).toThrow(
      expect.objectContaining({ code: "InvalidArgument" }),
    );
    expect(build({ indexType: 2 })).toThrow(TypeError);
    expect(build({ partitionFilters: "yes" })).toThrow(TypeError);
    expect(build({ partitionFilters: true })).toThrow(/partitionFilters requires indexType/);
    expect(build({ metadataBlockSize: 0 })).toThrow(/metadataBlockSize/);
    expect(build({ metadataBlockSize: "1" })).toThrow(TypeError);
    expect(ShaleError.isInstance(getError(build({ indexType: "x" })))).toBe(true);
  });
});

function getError(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe("damaged partitions", () => {
  const n = 400;
  const keys = Array.from({ length: n }, (_, i) => ikey(`key${String(i).padStart(5, "0")}`, 1, 1));
  const values = keys.map((_, i) => new TextEncoder().encode(`value-${i}`));
  const table = buildTable(keys, values, {
    blockSize: 128,
    indexType: "twoLevelIndex",
    partitionFilters: true,
    metadataBlockSize: 64,
    compression: "none",
  });
  const intact = openTable(table);
  const index = intact.partitioned!.directory;
  const filters = intact.filterPartitions();
  intact.close();
  const user = (i: number) => keys[i]!.subarray(0, keys[i]!.length - 8);

  it("an index partition: Corruption naming the file and the partition's offset", () => {
    expect(index.count).toBeGreaterThan(10);
    const p = 5;
    const offset = index.offsets[p]!;
    const damaged = flipByte(table, offset + 2);
    // Held and pinned partitions are read at open: the open fails, naming the partition.
    for (const cache of ["none", "pinned"]) {
      expect(getError(() => open({ cache }, damaged))).toMatchObject({
        code: "Corruption",
        file: table.path,
        offset,
      });
    }
    // Partitions looked up in the cache on use: the get that needs the partition fails.
    {
      const reader = open({ cache: "unpinned" }, damaged);
      // A key in partition p: its last separator's user key.
      const key = index.keys[p]!.subarray(0, index.keys[p]!.length - 8);
      const err = getError(() => reader.get(key));
      expect(err).toMatchObject({ code: "Corruption", file: table.path, offset });
      // Keys of other partitions still read.
      expect(reader.get(user(0)).state).toBe(LookupState.Found);
      const it = reader.newIterator();
      expect(
        getError(() => {
          for (it.seekToFirst(); it.valid(); it.next());
        }),
      ).toMatchObject({ code: "Corruption", offset });
      it.close();
      expect(getError(() => reader.verifyChecksums())).toMatchObject({
        code: "Corruption",
        offset,
      });
      reader.close();
    }
  });

  it("a filter partition: Corruption naming its offset", () => {
    expect(filters.length).toBeGreaterThan(2);
    const offset = filters[1]!.offset;
    const damaged = flipByte(table, offset + 3);
    expect(getError(() => openTable(damaged))).toMatchObject({
      code: "Corruption",
      file: table.path,
      offset,
    });
    const reader = open({ cache: "unpinned" }, damaged);
    const errors = keys.map((_, i) => getError(() => reader.get(user(i))));
    expect(errors.some((e) => e !== undefined)).toBe(true);
    for (const e of errors) {
      if (e !== undefined)
        expect(e).toMatchObject({ code: "Corruption", file: table.path, offset });
    }
    reader.close();
  });

  it("the top-level index: Corruption at open", () => {
    const reader = openTable(table);
    const top = reader.footer.indexHandle.offset;
    reader.close();
    expect(getError(() => openTable(flipByte(table, top + 1)))).toMatchObject({
      code: "Corruption",
      offset: top,
    });
  });
});
