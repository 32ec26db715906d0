/**
 * Range-tombstone sentinels (key-range.ts): RocksDB writes a table's tombstone end as
 * `end#kMaxSequenceNumber,RANGEDEL` with kMaxSequenceNumber = 2^56 - 1, shale as
 * `end#MAX_SEQ,RANGEDEL` (2^53 - 1); both end the file before `end`. Seen failing: RocksDB's
 * sentinel was taken for an entry at `end`, so a get of `end` stopped at the file ending in it
 * and never looked at the next file of the level, which holds `end` (the interop test
 * "db_bench fillrandom into several levels" failed whenever RocksDB cut a file there).
 */
import { bytewiseComparator, MAX_SEQ, makeInternalKey, ValueKind } from "@shale/base";
import { describe, expect, it } from "vitest";
import { fileRange, findFile, isSentinelKey } from "./key-range.js";
import type { FileMetaData } from "./version-edit.js";

const enc = (s: string) => new TextEncoder().encode(s);

/** `user#(2^56 - 1),RANGEDEL` as RocksDB 7.8.3 writes it: kind byte then seven 0xff bytes. */
function rocksdbSentinel(user: string): Uint8Array {
  const u = enc(user);
  const out = new Uint8Array(u.length + 8);
  out.set(u, 0);
  out[u.length] = ValueKind.RangeDeletion;
  out.fill(0xff, u.length + 1);
  return out;
}

const file = (number: number, smallest: Uint8Array, largest: Uint8Array): FileMetaData => ({
  number,
  size: 1,
  smallest,
  largest,
  smallestSeq: 1,
  largestSeq: 9,
});

describe("range-tombstone sentinels", () => {
  it("recognises shale's and RocksDB's, and nothing else", () => {
    expect(isSentinelKey(makeInternalKey(enc("m"), MAX_SEQ, ValueKind.RangeDeletion))).toBe(true);
    expect(isSentinelKey(rocksdbSentinel("m"))).toBe(true);
    expect(isSentinelKey(makeInternalKey(enc("m"), MAX_SEQ - 1, ValueKind.RangeDeletion))).toBe(
      false,
    );
    expect(isSentinelKey(makeInternalKey(enc("m"), MAX_SEQ, ValueKind.Value))).toBe(false);
    expect(
      fileRange(file(1, makeInternalKey(enc("a"), 5, 1), rocksdbSentinel("m"))).hiExclusive,
    ).toBe(true);
  });

  it("a key at a RocksDB file's sentinel end is found in the next file of the level", () => {
    const files = [
      file(136, makeInternalKey(enc("a"), 5, ValueKind.Value), rocksdbSentinel("m")),
      file(139, makeInternalKey(enc("m"), 7, ValueKind.Value), makeInternalKey(enc("q"), 2, 1)),
    ];
    expect(findFile(bytewiseComparator, files, enc("m"))).toBe(1);
    expect(findFile(bytewiseComparator, files, enc("l"))).toBe(0);
  });
});
