import {
  bytewiseComparator,
  type Comparator,
  formatInternalKey,
  LookupResult,
  LookupState,
  MAX_SEQ,
  MemoryFileSystem,
  reverseBytewiseComparator,
  toBytes,
  toHex,
  trailerSeq,
  ValueKind,
} from "@shale/base";
import { describeIteratorConformance } from "@shale/base/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CompressionName } from "../compression/compression.js";
import { CompressionType } from "../format/format.js";
import { buildTable, icmp, ikey, openTable, tableLayout } from "./table.test-support.js";
import { TableBuilder } from "./table-builder.js";

function scan(reader: ReturnType<typeof openTable>): string[] {
  const it = reader.newIterator();
  const out: string[] = [];
  for (it.seekToFirst(); it.valid(); it.next())
    out.push(`${formatInternalKey(it.key())}=${toHex(it.value())}`);
  it.close();
  return out;
}

for (const blockSize of [4096, 256]) {
  for (const compression of ["snappy", "none"] as const) {
    describeIteratorConformance(`TableIterator (blockSize ${blockSize}, ${compression})`, {
      keys: "internal",
      sizes: [0, 1, 2, 17, 300, 2000],
      build: (keys, values) =>
        openTable(buildTable(keys, values, { blockSize, compression })).newIterator(),
    });
  }
}

describeIteratorConformance("TableIterator (blockSize 64, restart interval 1, no filter)", {
  keys: "internal",
  sizes: [0, 1, 17, 300],
  build: (keys, values) =>
    openTable(
      buildTable(keys, values, { blockSize: 64, blockRestartInterval: 1, bitsPerKey: 0 }),
    ).newIterator(),
});

const internalEntries = fc
  .uniqueArray(
    fc.record({
      user: fc.uint8Array({ maxLength: 10, max: 4 }),
      seq: fc.integer({ min: 0, max: 1000 }),
      kind: fc.constantFrom(
        ValueKind.Value,
        ValueKind.Deletion,
        ValueKind.Merge,
        ValueKind.SingleDeletion,
      ),
      value: fc.oneof(
        fc.uint8Array({ maxLength: 30 }),
        fc.uint8Array({ minLength: 100, maxLength: 600, max: 3 }),
      ),
    }),
    { selector: (e) => `${toHex(e.user)}#${e.seq}`, maxLength: 300 },
  )
  .map((entries) => {
    const keyed = entries.map((e) => ({ key: ikey(e.user, e.seq, e.kind), value: e.value }));
    keyed.sort((a, b) => icmp.compare(a.key, b.key));
    return keyed;
  });

describe("table round trips (property-based)", () => {
  for (const compression of ["snappy", "none"] as CompressionName[]) {
    it(`scans back what was added, properties match (${compression})`, () => {
      fc.assert(
        fc.property(
          internalEntries,
          fc.constantFrom(64, 256, 4096),
          fc.constantFrom(1, 2, 16),
          fc.constantFrom(2, 3, 4, 5),
          fc.constantFrom(0, 1, 2, 3, 4),
          (entries, blockSize, blockRestartInterval, formatVersion, checksumType) => {
            const keys = entries.map((e) => e.key);
            const values = entries.map((e) => e.value);
            const table = buildTable(keys, values, {
              blockSize,
              blockRestartInterval,
              compression,
              formatVersion,
              checksumType,
            });
            const reader = openTable(table);
            expect(scan(reader)).toEqual(
              entries.map((e) => `${formatInternalKey(e.key)}=${toHex(e.value)}`),
            );
            const p = reader.properties;
            expect(p).toEqual(table.properties);
            expect(p.numEntries).toBe(entries.length);
            expect(p.rawKeySize).toBe(keys.reduce((n, k) => n + k.length, 0));
            expect(p.rawValueSize).toBe(values.reduce((n, v) => n + v.length, 0));
            const kinds = keys.map((k) => k[k.length - 8]);
            expect(p.numDeletions).toBe(kinds.filter((k) => k === 0 || k === 7).length);
            expect(p.numMergeOperands).toBe(kinds.filter((k) => k === 2).length);
            expect(p.numDataBlocks).toBe(tableLayout(table).data.length);
            expect(reader.footer).toMatchObject({ formatVersion, checksumType });
            // Index keys are user keys exactly when no user key spans two blocks.
            if (formatVersion < 3) expect(p.indexKeyIsUserKey).toBe(false);
            expect(p.indexValueIsDeltaEncoded).toBe(formatVersion >= 4);
            // Every entry is found by a get at its own seq (crossing blocks for a user key
            // whose versions span them).
            const r = new LookupResult();
            for (let i = 0; i < entries.length; i++) {
              const k = keys[i]!;
              const t = k.length - 8;
              r.reset();
              reader.get(k.subarray(0, t), trailerSeq(k, t), r);
              const kind = k[t]!;
              if (kind === ValueKind.Value) {
                expect(r.state).toBe(LookupState.Found);
                expect(toHex(r.value!)).toBe(toHex(values[i]!));
              } else if (kind === ValueKind.Merge) {
                expect(toHex(r.operands[0]!)).toBe(toHex(values[i]!));
              } else {
                expect(r.state).toBe(LookupState.Deleted);
              }
            }
            if (entries.length > 0) {
              expect(toHex(p.smallestKey!)).toBe(toHex(keys[0]!));
              expect(toHex(p.largestKey!)).toBe(toHex(keys[keys.length - 1]!));
            } else {
              expect(p.smallestKey).toBeUndefined();
              expect(p.numDataBlocks).toBe(0);
            }
            reader.close();
          },
        ),
        { numRuns: 40 },
      );
    });
  }
});

describe("table edge cases", () => {
  it("an empty table opens, scans nothing and finds nothing", () => {
    const table = buildTable([], []);
    const reader = openTable(table);
    expect(scan(reader)).toEqual([]);
    const r = new LookupResult();
    reader.get(toBytes("a"), MAX_SEQ, r);
    expect(r.state).toBe(LookupState.NotFound);
    expect(reader.properties.numEntries).toBe(0);
    expect(reader.properties.smallestSeq).toBe(0);
    expect(reader.approximateOffsetOf(ikey("a", 1, 1))).toBe(0);
  });

  it("one key", () => {
    const reader = openTable(buildTable([ikey("k", 5, ValueKind.Value)], [toBytes("v")]));
    expect(scan(reader)).toEqual(["k#5,SET=76"]);
    const r = new LookupResult();
    reader.get(toBytes("k"), 5, r);
    expect(r.state).toBe(LookupState.Found);
    expect(new TextDecoder().decode(r.value)).toBe("v");
    r.reset();
    reader.get(toBytes("k"), 4, r);
    expect(r.state).toBe(LookupState.NotFound);
  });

  it("huge keys (100 KB) and values (1 MB), compressed or not", () => {
    for (const compression of ["snappy", "none"] as const) {
      const big = (n: number, seed: number) =>
        Uint8Array.from({ length: n }, (_, i) => (i * seed + (i >> 7)) & 0xff);
      const k1 = new Uint8Array(100 * 1024).fill(1);
      const k2 = new Uint8Array(100 * 1024).fill(1);
      k2[k2.length - 1] = 2;
      const keys = [
        ikey(k1, 3, ValueKind.Value),
        ikey(k2, 2, ValueKind.Value),
        ikey("z", 1, ValueKind.Value),
      ];
      const values = [big(1 << 20, 7), big(1 << 20, 13), big(10, 1)];
      const table = buildTable(keys, values, { compression });
      const reader = openTable(table);
      const it = reader.newIterator();
      it.seekToFirst();
      for (let i = 0; i < 3; i++) {
        expect(Buffer.compare(it.key(), keys[i]!)).toBe(0);
        expect(Buffer.compare(it.value(), values[i]!)).toBe(0);
        it.next();
      }
      expect(it.valid()).toBe(false);
      it.close();
      const r = new LookupResult();
      reader.get(k2, MAX_SEQ, r);
      expect(r.state).toBe(LookupState.Found);
      expect(Buffer.compare(r.value!, values[1]!)).toBe(0);
    }
  });

  it("many versions of one key spanning blocks: get walks across blocks", () => {
    const keys: Uint8Array[] = [ikey("a", 1000, ValueKind.Value)];
    const values: Uint8Array[] = [toBytes("a")];
    // 300 merge operands of "m", newest first, then a base value at seq 1.
    for (let seq = 600; seq > 300; seq--) {
      keys.push(ikey("m", seq, ValueKind.Merge));
      values.push(toBytes(`op${seq}`));
    }
    keys.push(ikey("m", 1, ValueKind.Value));
    values.push(toBytes("base"));
    keys.push(ikey("z", 2, ValueKind.Value));
    values.push(toBytes("z"));
    const table = buildTable(keys, values, { blockSize: 128 });
    expect(table.properties.numDataBlocks).toBeGreaterThan(10);
    const reader = openTable(table);
    const r = new LookupResult();
    reader.get(toBytes("m"), MAX_SEQ, r);
    expect(r.state).toBe(LookupState.Found);
    expect(new TextDecoder().decode(r.value)).toBe("base");
    expect(r.seq).toBe(1);
    expect(r.operands.length).toBe(300);
    expect(new TextDecoder().decode(r.operands[0])).toBe("op600");
    expect(new TextDecoder().decode(r.operands[299])).toBe("op301");
    r.reset();
    reader.get(toBytes("m"), 450, r);
    expect(r.operands.length).toBe(150);
    expect(new TextDecoder().decode(r.operands[0])).toBe("op450");
    expect(r.state).toBe(LookupState.Found);
  });

  it("range tombstones round trip, sorted, and count in properties and bounds", () => {
    const table = buildTable(
      [ikey("b", 5, ValueKind.Value), ikey("d", 6, ValueKind.Value)],
      [toBytes("1"), toBytes("2")],
      {},
      [
        { start: toBytes("c"), end: toBytes("x"), seq: 9 },
        { start: toBytes("a"), end: toBytes("c"), seq: 3 },
        { start: toBytes("a"), end: toBytes("b"), seq: 7 },
        { start: toBytes("q"), end: toBytes("q"), seq: 8 }, // empty: ignored
      ],
    );
    const reader = openTable(table);
    const p = reader.properties;
    expect(p.numRangeDeletions).toBe(3);
    expect(formatInternalKey(p.smallestKey!)).toBe("a#7,RANGEDEL");
    expect(formatInternalKey(p.largestKey!)).toBe(`x#${MAX_SEQ},RANGEDEL`);
    expect(p.smallestSeq).toBe(3);
    expect(p.largestSeq).toBe(9);
    expect(reader.rangeTombstones().toString()).toBe("a-b:{7,3} b-c:{3} c-x:{9}");
    expect(reader.rangeTombstones()).toBe(reader.rangeTombstones());
    const r = new LookupResult();
    reader.get(toBytes("d"), MAX_SEQ, r);
    expect(r.maxCoveringSeq).toBe(9);
    expect(r.state).toBe(LookupState.Deleted);
    r.reset();
    reader.get(toBytes("d"), 8, r);
    expect(r.maxCoveringSeq).toBe(0);
    expect(r.state).toBe(LookupState.Found);
  });

  it("a table of only range tombstones", () => {
    const table = buildTable([], [], {}, [{ start: toBytes("a"), end: toBytes("m"), seq: 4 }]);
    const reader = openTable(table);
    expect(scan(reader)).toEqual([]);
    const r = new LookupResult();
    reader.get(toBytes("c"), 10, r);
    expect(r.maxCoveringSeq).toBe(4);
    expect(r.state).toBe(LookupState.NotFound);
    expect(formatInternalKey(reader.properties.smallestKey!)).toBe("a#4,RANGEDEL");
  });

  it("compression: compressible blocks are compressed, incompressible ones stored raw", () => {
    const n = 400;
    const keys = Array.from({ length: n }, (_, i) =>
      ikey(`key${String(i).padStart(6, "0")}`, 1, ValueKind.Value),
    );
    const compressible = keys.map(() => new Uint8Array(100).fill(65));
    let x = 12345;
    const random = keys.map(() =>
      Uint8Array.from({ length: 100 }, () => {
        x = (x * 1103515245 + 12345) >>> 0;
        return x >>> 24;
      }),
    );
    const c = buildTable(keys, compressible, { compression: "snappy" });
    const u = buildTable(keys, compressible, { compression: "none" });
    expect(c.properties.dataSize).toBeLessThan(u.properties.dataSize / 3);
    expect(c.properties.compression).toBe("Snappy");
    const types = (t: typeof c) => {
      const bytes = t.fs.readFile(t.path);
      return tableLayout(t).data.map((h) => bytes[h.offset + h.size]);
    };
    expect(new Set(types(c))).toEqual(new Set([CompressionType.Snappy]));
    expect(new Set(types(u))).toEqual(new Set([CompressionType.None]));
    // No option: Snappy (RocksDB's default too).
    const d = buildTable(keys, compressible);
    expect(d.properties.compression).toBe("Snappy");
    expect(new Set(types(d))).toEqual(new Set([CompressionType.Snappy]));
    const r = buildTable(keys, random, { compression: "snappy" });
    // Keys compress a little, 100 random bytes per entry do not: < 12.5 % saved -> raw.
    expect(new Set(types(r))).toEqual(new Set([CompressionType.None]));
    for (const t of [c, u, r]) {
      const reader = openTable(t);
      expect(scan(reader).length).toBe(n);
    }
  });

  it("a custom comparator orders the table and must match on open", () => {
    const keys = ["c", "b", "a"].map((k, i) => ikey(k, i + 1, ValueKind.Value));
    const cmp: Comparator = reverseBytewiseComparator;
    const table = buildTable(keys, [toBytes("3"), toBytes("2"), toBytes("1")], { comparator: cmp });
    const reader = openTable(table, { comparator: cmp });
    expect(scan(reader)).toEqual(["c#1,SET=33", "b#2,SET=32", "a#3,SET=31"]);
    const r = new LookupResult();
    reader.get(toBytes("b"), MAX_SEQ, r);
    expect(new TextDecoder().decode(r.value)).toBe("2");
    expect(() => openTable(table, { comparator: bytewiseComparator })).toThrow(
      expect.objectContaining({ code: "InvalidArgument" }),
    );
  });

  it("user property collectors", () => {
    let count = 0;
    const table = buildTable([ikey("a", 1, 1), ikey("b", 1, 1)], [toBytes("x"), toBytes("y")], {
      collectors: [{ add: () => void count++, finish: () => ({ "my.count": String(count) }) }],
    });
    expect(openTable(table).properties.user).toEqual({ "my.count": "2" });
  });

  it("approximateOffsetOf grows with the key", () => {
    const keys = Array.from({ length: 1000 }, (_, i) =>
      ikey(`k${String(i).padStart(5, "0")}`, 1, 1),
    );
    const values = keys.map(() => new Uint8Array(50));
    const table = buildTable(keys, values, { compression: "none" });
    const reader = openTable(table);
    let previous = -1;
    for (let i = 0; i < 1000; i += 50) {
      const off = reader.approximateOffsetOf(keys[i]!);
      expect(off).toBeGreaterThanOrEqual(previous);
      previous = off;
    }
    expect(reader.approximateOffsetOf(ikey("zzz", 1, 1))).toBe(reader.properties.dataSize);
    expect(reader.approximateOffsetOf(ikey("", MAX_SEQ, 15))).toBe(0);
  });
});

describe("TableBuilder contract", () => {
  const fresh = () => new TableBuilder(new MemoryFileSystem().openWritable("t"));

  it("rejects out-of-order and duplicate keys with InvalidArgument", () => {
    const b = fresh();
    b.add(ikey("b", 5, 1), toBytes(""));
    expect(() => b.add(ikey("a", 9, 1), toBytes(""))).toThrow(
      expect.objectContaining({ code: "InvalidArgument" }),
    );
    expect(() => b.add(ikey("b", 5, 1), toBytes(""))).toThrow(
      expect.objectContaining({ code: "InvalidArgument" }),
    );
    expect(() => b.add(ikey("b", 6, 1), toBytes(""))).toThrow(
      expect.objectContaining({ code: "InvalidArgument" }),
    );
    b.add(ikey("b", 4, 1), toBytes(""));
    expect(b.numEntries).toBe(2);
  });

  it("rejects range deletions, short keys and bad arguments", () => {
    const b = fresh();
    expect(() => b.add(ikey("a", 1, ValueKind.RangeDeletion), toBytes(""))).toThrow(
      /addRangeTombstone/,
    );
    expect(() => b.add(new Uint8Array(3), toBytes(""))).toThrow(
      expect.objectContaining({ code: "InvalidArgument" }),
    );
    expect(() => b.add("a" as unknown as Uint8Array, toBytes(""))).toThrow(TypeError);
    expect(() => b.addRangeTombstone(toBytes("b"), toBytes("a"), 1)).toThrow(
      expect.objectContaining({ code: "InvalidArgument" }),
    );
    expect(() => b.addRangeTombstone(toBytes("a"), toBytes("b"), -1)).toThrow(
      expect.objectContaining({ code: "InvalidArgument" }),
    );
    expect(
      () => new TableBuilder(new MemoryFileSystem().openWritable("t"), { blockSize: 0 }),
    ).toThrow(/blockSize/);
    expect(
      () =>
        new TableBuilder(new MemoryFileSystem().openWritable("t"), {
          compression: "brotli" as "none",
        }),
    ).toThrow(/compression/);
    expect(
      () => new TableBuilder(new MemoryFileSystem().openWritable("t"), { formatVersion: 8 }),
    ).toThrow(/formatVersion/);
  });

  it("finish and abandon end the builder", () => {
    const b = fresh();
    b.finish();
    expect(() => b.add(ikey("a", 1, 1), toBytes(""))).toThrow(/finished/);
    expect(() => b.finish()).toThrow(/finished/);
    const c = fresh();
    c.abandon();
    expect(() => c.add(ikey("a", 1, 1), toBytes(""))).toThrow(/abandoned/);
  });

  it("streams: data blocks reach the file before finish, and estimatedFileSize tracks them", () => {
    const fs = new MemoryFileSystem();
    const file = fs.openWritable("t");
    const b = new TableBuilder(file, { blockSize: 1024, compression: "none" });
    for (let i = 0; i < 1000; i++)
      b.add(ikey(`k${String(i).padStart(5, "0")}`, 1, 1), new Uint8Array(100));
    expect(file.size).toBeGreaterThan(100_000);
    expect(b.estimatedFileSize).toBeGreaterThanOrEqual(file.size);
    expect(b.estimatedFileSize).toBeLessThan(file.size + 1200);
    const props = b.finish();
    expect(file.size).toBeGreaterThan(props.dataSize);
  });
});

describe("the documented worked example", () => {
  it("has the bytes drawn in table-builder.ts and docs/formats/sstable.md", () => {
    const table = buildTable(
      [ikey("a", 2, ValueKind.Value), ikey("b", 1, ValueKind.Deletion)],
      [toBytes("x"), new Uint8Array(0)],
      { compression: "none", bitsPerKey: 0, creationTime: 1764547200, checksumType: 1 },
      [{ start: toBytes("c"), end: toBytes("e"), seq: 3 }],
    );
    const bytes = table.fs.readFile(table.path);
    const hex = (a: number, b: number) => toHex(bytes.subarray(a, b));
    expect(bytes.length).toBe(989);
    // Data block: a#2,SET -> "x", b#1,DEL -> "", restarts [0], then the trailer (type 0,
    // masked CRC32C).
    expect(hex(0, 13)).toBe("00090161010200000000000078");
    expect(hex(13, 25)).toBe("000900620001000000000000");
    expect(hex(25, 33)).toBe("0000000001000000");
    expect(hex(33, 38)).toBe("00f1637f28");
    // Index block (format version 5): "b" (a user key: no user key spans blocks) -> (0, 33),
    // no value length.
    expect(hex(38, 56)).toBe("0001620021000000000100000000b5294015");
    // Range-deletion block: c#3,RANGEDEL -> "e".
    expect(hex(56, 82)).toBe("000901630f0300000000000065000000000100000000b67fa5c2");
    // Properties: one restart point, names prefix-compressed.
    expect(hex(82, 82 + 3 + 36 + 4)).toBe(
      `002404${toHex(toBytes("rocksdb.block.based.table.index.type"))}00000000`,
    );
    const layout = tableLayout(table);
    expect(Object.fromEntries(layout.meta)).toEqual({
      "rocksdb.properties": { offset: 82, size: 786 },
      "rocksdb.range_del": { offset: 56, size: 21 },
    });
    expect(layout.metaindex).toEqual({ offset: 873, size: 58 });
    expect(layout.index).toEqual({ offset: 38, size: 13 });
    expect(layout.data).toEqual([{ offset: 0, size: 33 }]);
    expect(hex(873, 873 + 24)).toBe(`001203${toHex(toBytes("rocksdb.properties"))}529206`);
    // Footer: CRC32C, metaindex (873, 58), index (38, 13), padding, version 5, magic.
    expect(hex(936, 989)).toBe(`01e9063a260d${"00".repeat(35)}05000000f7cff485b741e288`);
    const props = openTable(table).properties;
    expect(props).toMatchObject({
      numEntries: 2,
      numDeletions: 1,
      numRangeDeletions: 1,
      indexKeyIsUserKey: true,
      indexValueIsDeltaEncoded: true,
      creationTime: 1764547200,
      compression: "NoCompression",
      filterPolicy: "",
    });
  });
});
