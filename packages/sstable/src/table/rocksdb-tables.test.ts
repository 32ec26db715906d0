/**
 * Tables written by RocksDB 7.8.3 itself (testdata/rocksdb-tables, made by
 * scripts/make-rocksdb-tables.sh from scripts/rocksdb-tables.cc): shale opens every format
 * version 2-5, checksum type and index type (one block, partitioned with and without
 * partitioned filters, first keys), reads every entry both ways, answers every get, and
 * writes the same bytes for the same entries and options.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  LookupResult,
  LookupState,
  MemoryFileSystem,
  makeInternalKey,
  TRAILER_SIZE,
  toBytes,
  toHex,
  trailerSeq,
  ValueKind,
} from "@shale/base";
import { describe, expect, it } from "vitest";
import { type BlockHandle, ChecksumType, IndexType, MetaBlockName } from "../format/format.js";
import type { TableProperties } from "../format/properties.js";
import type { TableBuilderOptions } from "./builder-options.js";
import { type BuiltTable, buildTable, tableLayout } from "./table.test-support.js";
import { tableLayout as tableLayoutOf } from "./table-layout.js";
import { TableReader } from "./table-reader.js";

const dir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "testdata", "rocksdb-tables");
const decoder = new TextDecoder();

function open(name: string): TableReader {
  const bytes = readFileSync(join(dir, name));
  const fs = new MemoryFileSystem();
  fs.writeFile(name, bytes);
  return TableReader.open(fs.openRandomAccess(name), { fileName: name, fileSize: bytes.length });
}

/** The entries rocksdb-tables.cc writes: [user key, kind, value]. */
function expected(num: number): [string, number, string][] {
  const out: [string, number, string][] = [];
  for (let i = 0; i < num; i++) {
    const key = `key${String(i).padStart(6, "0")}`;
    const value = `value-${i}-${"x".repeat(i % 23)}`;
    if (i % 7 === 3) out.push([key, ValueKind.Deletion, ""]);
    else if (i % 11 === 5) out.push([key, ValueKind.Merge, value]);
    else out.push([key, ValueKind.Value, value]);
  }
  return out;
}

const tables: [string, number, number, number][] = [
  // name, format version, checksum type, entries
  ["tiny.sst", 5, ChecksumType.CRC32c, 3],
  ["fv5-crc32c.sst", 5, ChecksumType.CRC32c, 300],
  ["fv5-xxhash.sst", 5, ChecksumType.xxHash, 300],
  ["fv5-xxhash64.sst", 5, ChecksumType.xxHash64, 300],
  ["fv5-xxh3.sst", 5, ChecksumType.XXH3, 300],
  ["fv5-nochecksum.sst", 5, ChecksumType.NoChecksum, 300],
  ["fv5-snappy.sst", 5, ChecksumType.CRC32c, 300],
  ["fv5-hash-index-restart4.sst", 5, ChecksumType.XXH3, 300],
  ["fv4-crc32c.sst", 4, ChecksumType.CRC32c, 300],
  ["fv3-crc32c.sst", 3, ChecksumType.CRC32c, 300],
  ["fv2-crc32c.sst", 2, ChecksumType.CRC32c, 300],
  // whole_key_filtering false, prefix extractor: the filter holds 3-byte prefixes only
  ["fv5-prefix-filter.sst", 5, ChecksumType.CRC32c, 300],
  // Partitioned indexes (with partitioned filters but the index-only one), first keys
  ["fv5-two-level-index.sst", 5, ChecksumType.CRC32c, 300],
  ["fv5-first-key-index.sst", 5, ChecksumType.CRC32c, 300],
  ["fv4-first-key-index-restart4.sst", 4, ChecksumType.CRC32c, 300],
  ["fv5-partitioned.sst", 5, ChecksumType.CRC32c, 300],
  ["fv4-partitioned.sst", 4, ChecksumType.CRC32c, 300],
  ["fv3-partitioned.sst", 3, ChecksumType.CRC32c, 300],
  ["fv2-partitioned.sst", 2, ChecksumType.CRC32c, 300],
  ["fv5-partitioned-index-only.sst", 5, ChecksumType.CRC32c, 300],
  ["fv4-partitioned-index-only.sst", 4, ChecksumType.CRC32c, 300],
  ["fv3-partitioned-index-only.sst", 3, ChecksumType.CRC32c, 300],
  ["fv2-partitioned-index-only.sst", 2, ChecksumType.CRC32c, 300],
];

/** Index type and partitions of the tables that are not one-block binary-search indexes. */
const indexTypes: Record<string, [number, boolean]> = {
  "fv5-two-level-index.sst": [IndexType.TwoLevelIndexSearch, false],
  "fv5-first-key-index.sst": [IndexType.BinarySearchWithFirstKey, false],
  "fv4-first-key-index-restart4.sst": [IndexType.BinarySearchWithFirstKey, false],
  "fv5-partitioned.sst": [IndexType.TwoLevelIndexSearch, true],
  "fv4-partitioned.sst": [IndexType.TwoLevelIndexSearch, true],
  "fv3-partitioned.sst": [IndexType.TwoLevelIndexSearch, true],
  "fv2-partitioned.sst": [IndexType.TwoLevelIndexSearch, true],
  "fv5-partitioned-index-only.sst": [IndexType.TwoLevelIndexSearch, false],
  "fv4-partitioned-index-only.sst": [IndexType.TwoLevelIndexSearch, false],
  "fv3-partitioned-index-only.sst": [IndexType.TwoLevelIndexSearch, false],
  "fv2-partitioned-index-only.sst": [IndexType.TwoLevelIndexSearch, false],
};

describe("tables written by RocksDB 7.8.3", () => {
  it("the fixtures are all here", () => {
    const names = readdirSync(dir).filter((n) => n.endsWith(".sst"));
    for (const [name] of tables) expect(names).toContain(name);
  });

  for (const [name, formatVersion, checksumType, num] of tables) {
    it(`${name}: footer, properties, every entry both ways, every get`, () => {
      const reader = open(name);
      expect(reader.footer.formatVersion).toBe(formatVersion);
      expect(reader.footer.checksumType).toBe(checksumType);
      const props = reader.properties;
      expect(props.numEntries).toBe(num);
      expect(props.comparatorName).toBe("leveldb.BytewiseComparator");
      expect(props.numRangeDeletions).toBe(num > 120 ? 1 : 0);
      expect(props.indexKeyIsUserKey).toBe(formatVersion >= 3);
      expect(props.indexValueIsDeltaEncoded).toBe(formatVersion >= 4);
      const [indexType, partitionedFilter] = indexTypes[name] ?? [IndexType.BinarySearch, false];
      if (name !== "fv5-hash-index-restart4.sst") expect(props.indexType).toBe(indexType);
      if (indexType === IndexType.TwoLevelIndexSearch) {
        expect(reader.partitioned!.count).toBe(props.indexPartitions);
        if (name !== "fv5-two-level-index.sst") expect(props.indexPartitions).toBeGreaterThan(3);
      }
      const filterName = partitionedFilter
        ? MetaBlockName.PARTITIONED_FILTER_PREFIX
        : MetaBlockName.FULL_FILTER_PREFIX;
      if (props.filterPolicy !== "" && props.wholeKeyFiltering) {
        expect(tableLayoutOf(reader).metaBlocks.map((m) => m.name)).toContain(
          `${filterName}rocksdb.BuiltinBloomFilter`,
        );
        for (const [key] of expected(num)) expect(reader.mayContain(toBytes(key))).toBe(true);
      }
      expect(reader.verifyChecksums().dataBlocks).toBe(props.numDataBlocks);
      const want = expected(num);
      const it = reader.newIterator();
      const got: [string, number, string][] = [];
      for (it.seekToFirst(); it.valid(); it.next()) {
        const k = it.key();
        const t = k.length - TRAILER_SIZE;
        expect(trailerSeq(k, t)).toBe(0);
        got.push([decoder.decode(k.subarray(0, t)), k[t]!, decoder.decode(it.value())]);
      }
      expect(got).toEqual(want);
      let back = 0;
      for (it.seekToLast(); it.valid(); it.prev()) {
        const k = it.key();
        expect(decoder.decode(k.subarray(0, k.length - TRAILER_SIZE))).toBe(
          want[want.length - 1 - back]![0],
        );
        back++;
      }
      expect(back).toBe(num);
      it.close();
      const result = new LookupResult();
      for (const [key, kind, value] of want) {
        result.reset();
        reader.get(toBytes(key), 100, result);
        if (kind === ValueKind.Value) {
          expect(result.state, key).toBe(LookupState.Found);
          expect(decoder.decode(result.value)).toBe(value);
        } else if (kind === ValueKind.Deletion) {
          expect(result.state, key).toBe(LookupState.Deleted);
        } else {
          expect(result.state, key).toBe(LookupState.Merging);
          expect(result.operands.map((o) => decoder.decode(o))).toEqual([value]);
        }
        result.reset();
        reader.get(toBytes(`${key}+`), 100, result);
        expect(result.state).toBe(LookupState.NotFound);
      }
      if (num > 120) {
        const list = reader.rangeTombstones();
        expect(list.numTombstones).toBe(1);
        // [key000100, key000120)@0 covers nothing older than seq 0.
        expect(list.maxCoveringSeq(toBytes("key000110"), 100)).toBe(0);
      }
      reader.close();
    });
  }

  for (const name of ["versions.sst", "versions-partitioned.sst"]) {
    it(`${name}: a user key spanning blocks (index keys with sequence numbers)`, () => {
      const reader = open(name);
      expect(reader.properties.indexKeyIsUserKey).toBe(false);
      expect(reader.properties.numDataBlocks).toBeGreaterThan(3);
      const versions: [number, string][] = [];
      const it = reader.newIterator();
      for (it.seekToFirst(); it.valid(); it.next()) {
        const k = it.key();
        const t = k.length - TRAILER_SIZE;
        if (decoder.decode(k.subarray(0, t)) === "k")
          versions.push([trailerSeq(k, t), decoder.decode(it.value())]);
      }
      it.close();
      expect(versions.length).toBe(40);
      const result = new LookupResult();
      for (const [seq, value] of versions) {
        result.reset();
        reader.get(toBytes("k"), seq, result);
        expect(result.state).toBe(LookupState.Found);
        expect(result.seq).toBe(seq);
        expect(decoder.decode(result.value)).toBe(value);
      }
      result.reset();
      reader.get(toBytes("m"), 1000, result);
      expect(decoder.decode(result.value)).toBe("last");
      expect(reader.mayContain(toBytes("k"))).toBe(true);
      reader.close();
    });
  }

  it("shale writes RocksDB's bytes: data, filter, index and range-del blocks of the same entries", () => {
    const name = "fv5-crc32c.sst";
    const rocksBytes = readFileSync(join(dir, name));
    const fs = new MemoryFileSystem();
    fs.writeFile(name, rocksBytes);
    const rocksReader = open(name);
    const rocks = { fs, path: name, size: rocksBytes.length, properties: rocksReader.properties };
    rocksReader.close();
    const entries = expected(300);
    const shale = buildTable(
      entries.map(([k, kind]) => makeInternalKey(toBytes(k), 0, kind)),
      entries.map(([, , v]) => toBytes(v)),
      { blockSize: 1024, compression: "none", bitsPerKey: 10, checksumType: ChecksumType.CRC32c },
      [{ start: toBytes("key000100"), end: toBytes("key000120"), seq: 0 }],
    );
    const a = tableLayout(rocks);
    const b = tableLayout(shale);
    const bytesOf = (t: BuiltTable, h: BlockHandle) =>
      toHex(t.fs.readFile(t.path).subarray(h.offset, h.offset + h.size + 5));
    expect(b.data).toEqual(a.data);
    for (const h of a.data) expect(bytesOf(shale, h)).toBe(bytesOf(rocks, h));
    expect(bytesOf(shale, b.index)).toBe(bytesOf(rocks, a.index));
    expect([...b.meta.keys()]).toEqual([...a.meta.keys()]);
    for (const meta of [MetaBlockName.FULL_FILTER, MetaBlockName.RANGE_DEL]) {
      expect(bytesOf(shale, b.meta.get(meta)!)).toBe(bytesOf(rocks, a.meta.get(meta)!));
    }
  });
});

describe("shale writes RocksDB's partitioned and first-key indexes byte for byte", () => {
  const cases: [string, TableBuilderOptions][] = [
    ["fv5-two-level-index.sst", { blockSize: 1024, bitsPerKey: 0, indexType: "twoLevelIndex" }],
    [
      "fv5-first-key-index.sst",
      { blockSize: 1024, bitsPerKey: 0, indexType: "binarySearchWithFirstKey" },
    ],
    [
      "fv5-partitioned-index-only.sst",
      { blockSize: 256, indexType: "twoLevelIndex", metadataBlockSize: 64 },
    ],
    [
      "fv5-partitioned.sst",
      {
        blockSize: 256,
        indexType: "twoLevelIndex",
        partitionFilters: true,
        metadataBlockSize: 128,
      },
    ],
    // (Format versions < 5: RocksDB writes legacy Bloom filters, shale FastLocalBloom ones.)
    ...([4, 3, 2] as const).map((fv): [string, TableBuilderOptions] => [
      `fv${fv}-partitioned-index-only.sst`,
      {
        blockSize: 256,
        formatVersion: fv,
        bitsPerKey: 0,
        indexType: "twoLevelIndex",
        metadataBlockSize: 100,
      },
    ]),
  ];
  for (const [name, options] of cases) {
    it(`${name}: every block before the properties, and the index and filter properties`, () => {
      const rocksBytes = readFileSync(join(dir, name));
      const rocks = open(name);
      const entries = expected(300);
      const shale = buildTable(
        entries.map(([k, kind]) => makeInternalKey(toBytes(k), 0, kind)),
        entries.map(([, , v]) => toBytes(v)),
        { compression: "none", checksumType: ChecksumType.CRC32c, ...options },
        [{ start: toBytes("key000100"), end: toBytes("key000120"), seq: 0 }],
      );
      const propertiesAt = (meta: readonly { name: string; handle: BlockHandle }[]) =>
        meta.find((m) => m.name === MetaBlockName.PROPERTIES)!.handle.offset;
      const rocksEnd = propertiesAt(tableLayoutOf(rocks).metaBlocks);
      const shaleBytes = shale.fs.readFile(shale.path);
      const shaleReader = TableReader.open(shale.fs.openRandomAccess(shale.path));
      const shaleEnd = propertiesAt(tableLayoutOf(shaleReader).metaBlocks);
      expect(shaleEnd).toBe(rocksEnd);
      expect(toHex(shaleBytes.subarray(0, shaleEnd))).toBe(toHex(rocksBytes.subarray(0, rocksEnd)));
      const pick = (p: TableProperties) => ({
        indexType: p.indexType,
        indexPartitions: p.indexPartitions,
        topLevelIndexSize: p.topLevelIndexSize,
        indexSize: p.indexSize,
        filterSize: p.filterSize,
        numFilterEntries: p.numFilterEntries,
        indexKeyIsUserKey: p.indexKeyIsUserKey,
        indexValueIsDeltaEncoded: p.indexValueIsDeltaEncoded,
      });
      expect(pick(shaleReader.properties)).toEqual(pick(rocks.properties));
      expect(shaleReader.footer.indexHandle).toEqual(rocks.footer.indexHandle);
      shaleReader.close();
      rocks.close();
    });
  }
});
