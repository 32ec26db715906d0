/**
 * The properties block in RocksDB's layout: decoded from a table RocksDB 7.8.3 wrote,
 * re-encoded to the same bytes, worked bytes, round trips, and damage.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { toBytes, toHex } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Block } from "../block/block.js";
import { BlockBuilder } from "../block/block-builder.js";
import {
  DEFAULT_COMPRESSION_OPTIONS,
  decodeProperties,
  encodeProperties,
  type TableProperties,
  UNKNOWN_COLUMN_FAMILY,
} from "./properties.js";

const tiny = readFileSync(
  join(
    dirname(fileURLToPath(import.meta.url)),
    "..",
    "..",
    "testdata",
    "rocksdb-tables",
    "tiny.sst",
  ),
);
/** tiny.sst's properties block (handle from its metaindex: offset 184, size 870). */
const TINY_PROPERTIES = { offset: 184, size: 870 };

function decode(bytes: Uint8Array, file = "t", offset = 0): TableProperties {
  return decodeProperties(Block.keyValue(bytes, file, offset), 5, file, offset);
}

function sample(): TableProperties {
  return {
    formatVersion: 5,
    numEntries: 10,
    numDeletions: 2,
    numMergeOperands: 3,
    numRangeDeletions: 1,
    rawKeySize: 100,
    rawValueSize: 2 ** 40,
    dataSize: 5000,
    indexSize: 40,
    filterSize: 30,
    numDataBlocks: 2,
    numFilterEntries: 9,
    smallestKey: new Uint8Array([1, 2, 3]),
    largestKey: new Uint8Array([9, 9]),
    smallestSeq: 1,
    largestSeq: 2 ** 53 - 1,
    comparatorName: "leveldb.BytewiseComparator",
    mergeOperatorName: "nullptr",
    filterPolicy: "bloomfilter",
    compression: "Snappy",
    compressionOptions: DEFAULT_COMPRESSION_OPTIONS,
    prefixExtractorName: "nullptr",
    propertyCollectors: "[]",
    columnFamilyId: 0,
    columnFamilyName: "default",
    wholeKeyFiltering: true,
    indexKeyIsUserKey: true,
    indexValueIsDeltaEncoded: true,
    indexType: 0,
    indexPartitions: 0,
    topLevelIndexSize: 0,
    creationTime: 1_700_000_000,
    oldestKeyTime: 0,
    fileCreationTime: 1_700_000_001,
    originalFileNumber: 12,
    dbId: "db",
    dbSessionId: "session",
    dbHostId: "host",
    user: { "user.a": "b" },
  };
}

describe("properties block", () => {
  it("decodes the block RocksDB 7.8.3 wrote (tiny.sst)", () => {
    const { offset, size } = TINY_PROPERTIES;
    const props = decode(tiny.subarray(offset, offset + size), "tiny.sst", offset);
    expect(props).toMatchObject({
      numEntries: 3,
      numDeletions: 0,
      numMergeOperands: 0,
      numRangeDeletions: 0,
      rawKeySize: 51,
      rawValueSize: 27,
      dataSize: 84,
      indexSize: 26,
      filterSize: 69,
      numDataBlocks: 1,
      numFilterEntries: 3,
      comparatorName: "leveldb.BytewiseComparator",
      mergeOperatorName: "nullptr",
      filterPolicy: "bloomfilter",
      compression: "NoCompression",
      compressionOptions: DEFAULT_COMPRESSION_OPTIONS,
      prefixExtractorName: "nullptr",
      propertyCollectors: "[]",
      columnFamilyId: UNKNOWN_COLUMN_FAMILY,
      columnFamilyName: "",
      indexKeyIsUserKey: true,
      indexValueIsDeltaEncoded: true,
      indexType: 0,
      creationTime: 0,
      oldestKeyTime: 0,
      fileCreationTime: 0,
      originalFileNumber: 1,
      dbId: "SST Writer",
    });
    // SstFileWriter's own collector; RocksDB's block-based collector's two are known.
    expect(Object.keys(props.user).sort()).toEqual([
      "rocksdb.external_sst_file.global_seqno",
      "rocksdb.external_sst_file.version",
    ]);
    expect(props.smallestKey).toBeUndefined();
  });

  it("encodes RocksDB's bytes: re-encoding tiny.sst's properties gives its block back", () => {
    const { offset, size } = TINY_PROPERTIES;
    const rocks = tiny.subarray(offset, offset + size);
    expect(toHex(encodeProperties(decode(rocks)))).toBe(toHex(rocks));
  });

  it("worked bytes: the first entries, prefix-compressed under one restart point", () => {
    const bytes = encodeProperties(sample());
    const name = (s: string) => toHex(toBytes(s));
    expect(toHex(bytes.subarray(0, 3 + 36 + 4))).toBe(
      `002404${name("rocksdb.block.based.table.index.type")}00000000`,
    );
    // shares "rocksdb.block.based.table." (26 bytes), 16 new, 1-byte value "0"
    expect(toHex(bytes.subarray(43, 43 + 3 + 16 + 1))).toBe(`1a1001${name("prefix.filtering")}30`);
    // One restart point (RocksDB's restart interval 2^31 - 1): restarts [0], count 1.
    expect(toHex(bytes.subarray(bytes.length - 8))).toBe("0000000001000000");
    // Counts are varint64, on disk the range tombstone is an entry and a deletion too.
    const decoded = decode(bytes);
    expect(decoded.numEntries).toBe(10);
    expect(toHex(decoded.smallestKey!)).toBe("010203");
  });

  it("round-trips (property-based)", () => {
    const text = fc.string({ maxLength: 12 });
    const count = fc.maxSafeNat();
    fc.assert(
      fc.property(
        fc.record({
          counts: fc.array(count, { minLength: 14, maxLength: 14 }),
          deletions: fc.nat({ max: 1000 }),
          entries: fc.nat({ max: 1000 }),
          ranges: fc.nat({ max: 1000 }),
          strings: fc.array(text, { minLength: 9, maxLength: 9 }),
          keys: fc.option(fc.tuple(fc.uint8Array(), fc.uint8Array()), { nil: undefined }),
          flags: fc.tuple(fc.boolean(), fc.boolean(), fc.boolean()),
          cf: fc.integer({ min: 0, max: 0x7fffffff }),
          user: fc.dictionary(
            fc.string({ minLength: 1, maxLength: 8 }).map((s) => `user.${s}`),
            text,
            { maxKeys: 4 },
          ),
        }),
        (r) => {
          const c = r.counts;
          const s = r.strings;
          const props: TableProperties = {
            ...sample(),
            numEntries: r.entries,
            numDeletions: r.deletions,
            numRangeDeletions: r.ranges,
            numMergeOperands: c[0]!,
            rawKeySize: c[1]!,
            rawValueSize: c[2]!,
            dataSize: c[3]!,
            indexSize: c[4]!,
            filterSize: c[5]!,
            numDataBlocks: c[6]!,
            numFilterEntries: c[7]!,
            smallestSeq: c[8]!,
            largestSeq: c[9]!,
            creationTime: c[10]!,
            oldestKeyTime: c[11]!,
            fileCreationTime: c[12]!,
            originalFileNumber: c[13]!,
            comparatorName: s[0]!,
            mergeOperatorName: s[1]!,
            filterPolicy: s[2]!,
            compression: s[3]!,
            compressionOptions: s[4]!,
            prefixExtractorName: s[5]!,
            propertyCollectors: s[6]!,
            dbId: s[7]!,
            dbSessionId: s[8]!,
            columnFamilyId: r.cf,
            indexKeyIsUserKey: r.flags[0],
            indexValueIsDeltaEncoded: r.flags[1],
            wholeKeyFiltering: r.flags[2],
            user: r.user,
          };
          if (r.keys === undefined) {
            delete props.smallestKey;
            delete props.largestKey;
            props.smallestSeq = 0;
            props.largestSeq = 0;
          } else {
            props.smallestKey = r.keys[0];
            props.largestKey = r.keys[1];
          }
          expect(decode(encodeProperties(props))).toEqual(props);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("a collector may not use a reserved name", () => {
    expect(() => encodeProperties({ ...sample(), user: { "rocksdb.num.entries": "1" } })).toThrow(
      expect.objectContaining({ code: "InvalidArgument" }),
    );
  });

  it("a malformed value of a known property, or names out of order, are Corruption", () => {
    const block = new BlockBuilder(0x7fffffff);
    block.add(toBytes("rocksdb.num.entries"), new Uint8Array([0x80]));
    expect(() => decode(block.finish().slice(), "f", 7)).toThrow(
      expect.objectContaining({ code: "Corruption", file: "f", offset: 7 }),
    );
    const fixed = new BlockBuilder(0x7fffffff);
    fixed.add(toBytes("rocksdb.block.based.table.index.type"), new Uint8Array([0, 0]));
    expect(() => decode(fixed.finish().slice(), "f", 7)).toThrow(/not a fixed32/);
    const unordered = new BlockBuilder(0x7fffffff);
    unordered.add(toBytes("rocksdb.b"), new Uint8Array([1]));
    unordered.add(toBytes("rocksdb.a"), new Uint8Array([1]));
    expect(() => decode(unordered.finish().slice(), "f", 7)).toThrow(/out of order/);
  });

  it("reads an external file's version and global seqno from their bytes", () => {
    const block = new BlockBuilder(0x7fffffff);
    // a global seqno RocksDB's ingestion may write: bytes that are not UTF-8
    block.add(
      toBytes("rocksdb.external_sst_file.global_seqno"),
      new Uint8Array([0x80, 0xff, 1, 0, 0, 0, 0, 0]),
    );
    block.add(toBytes("rocksdb.external_sst_file.version"), new Uint8Array([2, 0, 0, 0]));
    const props = decode(block.finish().slice());
    expect(props.externalFile).toEqual({ version: 2, globalSeqno: 0x1ff80 });
    expect(decode(new BlockBuilder(0x7fffffff).finish().slice()).externalFile).toBeUndefined();
    const bad = new BlockBuilder(0x7fffffff);
    bad.add(toBytes("rocksdb.external_sst_file.global_seqno"), new Uint8Array([0, 0, 0, 0]));
    bad.add(toBytes("rocksdb.external_sst_file.version"), new Uint8Array([2, 0, 0, 0]));
    expect(() => decode(bad.finish().slice(), "f", 7)).toThrow(
      expect.objectContaining({ code: "Corruption", file: "f", offset: 7 }),
    );
  });
});
