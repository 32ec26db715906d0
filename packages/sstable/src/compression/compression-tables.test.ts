/**
 * The table reader on the compressed tables RocksDB 7.8.3 wrote (testdata/rocksdb-compression/, made by
 * tooling/scripts/make-rocksdb-fixtures.sh): every codec's table holds the same 300 entries
 * as none.sst, read forwards, backwards and by point lookups; bzip2's blocks are
 * NotSupported naming the file and offset.
 */
import { fileURLToPath } from "node:url";
import { LookupResult, LookupState, MAX_SEQ, NodeFileSystem, toHex } from "@shale/base";
import { describe, expect, it } from "vitest";
import { TableReader } from "../table/table-reader.js";

const DIR = fileURLToPath(new URL("../../testdata/rocksdb-compression/", import.meta.url));
const fs = new NodeFileSystem();

function open(codec: string): TableReader {
  const path = `${DIR}${codec}.sst`;
  return TableReader.open(fs.openRandomAccess(path), {
    fileSize: fs.fileSize(path),
    fileName: `${codec}.sst`,
  });
}

function entries(reader: TableReader, reverse = false): [string, string][] {
  const it = reader.newIterator();
  const out: [string, string][] = [];
  try {
    if (reverse)
      for (it.seekToLast(); it.valid(); it.prev()) out.push([toHex(it.key()), toHex(it.value())]);
    else
      for (it.seekToFirst(); it.valid(); it.next()) out.push([toHex(it.key()), toHex(it.value())]);
  } finally {
    it.close();
  }
  return out;
}

describe("tables written by RocksDB 7.8.3, one per compression", () => {
  const reference = entries(open("none"));
  it("none.sst holds db_bench's 300 entries", () => {
    expect(reference.length).toBe(300);
  });
  for (const codec of ["snappy", "zlib", "lz4", "lz4hc", "zstd"]) {
    it(`${codec}.sst reads the same entries both ways`, () => {
      const reader = open(codec);
      expect(entries(reader)).toEqual(reference);
      expect(entries(reader, true)).toEqual([...reference].reverse());
      // Point lookups of every user key (internal key minus its 8-byte trailer).
      const result = new LookupResult();
      for (const [key, value] of reference) {
        result.reset();
        reader.get(Buffer.from(key.slice(0, -16), "hex"), MAX_SEQ, result);
        expect(result.state).toBe(LookupState.Found);
        expect(toHex(result.value!)).toBe(value);
        result.releasePins();
      }
      reader.close();
    });
  }
  it("bzip2.sst: NotSupported at a data block, naming the file", () => {
    const reader = open("bzip2");
    expect(() => entries(reader)).toThrow(
      expect.objectContaining({ code: "NotSupported", file: "bzip2.sst" }),
    );
  });
});
