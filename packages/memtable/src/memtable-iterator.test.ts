import {
  bytewiseComparator,
  formatInternalKey,
  InternalKeyComparator,
  makeInternalKey,
  parseInternalKey,
  ShaleError,
  ValueKind,
} from "@shale/base";
import { describeIteratorConformance } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import { MemTable, type MemTableOptions } from "./index.js";

function build(keys: Uint8Array[], values: Uint8Array[], options?: MemTableOptions): MemTable {
  const mem = new MemTable(options);
  for (let i = 0; i < keys.length; i++) {
    const { userKey, seq, kind } = parseInternalKey(keys[i]!);
    mem.add(seq, kind, userKey, values[i]!);
  }
  return mem;
}

describeIteratorConformance("memtable iterator", {
  keys: "internal",
  build: (keys, values) => build(keys, values).newIterator(),
});

// Tiny chunks: entries spread over many chunks, values of 500 bytes get chunks of their own.
describeIteratorConformance("memtable iterator (256-byte chunks)", {
  keys: "internal",
  sizes: [0, 1, 17, 300],
  build: (keys, values) => build(keys, values, { arenaChunkSize: 256 }).newIterator(),
});

// Chunks growing from 4 KiB to 16 KiB: entries over chunks of several sizes.
describeIteratorConformance("memtable iterator (growing chunks)", {
  keys: "internal",
  sizes: [0, 1, 300, 3000],
  build: (keys, values) => build(keys, values, { arenaChunkSize: 1 << 14 }).newIterator(),
});

describe("memtable iterator", () => {
  const text = (s: string) => new TextEncoder().encode(s);

  it("orders versions of a user key newest first, then by kind descending", () => {
    const mem = new MemTable();
    mem.add(3, ValueKind.Value, text("b"), text("b3"));
    mem.add(5, ValueKind.Merge, text("b"), text("b5"));
    mem.add(5, ValueKind.Deletion, text("b"), text(""));
    mem.add(5, ValueKind.SingleDeletion, text("b"), text(""));
    mem.add(9, ValueKind.Value, text("a"), text("a9"));
    mem.add(1, ValueKind.Value, text("c"), text("c1"));
    mem.add(2, ValueKind.RangeDeletion, text("a"), text("z")); // not a point entry
    const it = mem.newIterator();
    const seen: string[] = [];
    for (it.seekToFirst(); it.valid(); it.next()) seen.push(formatInternalKey(it.key()));
    expect(seen).toEqual([
      "a#9,SET",
      "b#5,SINGLEDEL",
      "b#5,MERGE",
      "b#5,DEL",
      "b#3,SET",
      "c#1,SET",
    ]);
    it.close();
  });

  it("orders user keys by the configured comparator", () => {
    const reverse = new InternalKeyComparator({
      ...bytewiseComparator,
      name: "test.reverse",
      compare: (a, b) => bytewiseComparator.compare(b, a),
    });
    const mem = new MemTable({ comparator: reverse.user });
    for (const [i, k] of ["m", "a", "zz", "b", "z"].entries())
      mem.add(i + 1, ValueKind.Value, text(k), text(k));
    const it = mem.newIterator();
    const seen: string[] = [];
    for (it.seekToLast(); it.valid(); it.prev()) seen.push(formatInternalKey(it.key()));
    expect(seen).toEqual(["a#2,SET", "b#4,SET", "m#1,SET", "z#5,SET", "zz#3,SET"]);
    it.seek(makeInternalKey(text("n"), 100, ValueKind.Value));
    expect(formatInternalKey(it.key())).toBe("m#1,SET");
    it.seekForPrev(makeInternalKey(text("n"), 100, ValueKind.Value));
    expect(formatInternalKey(it.key())).toBe("z#5,SET");
  });

  it("sees entries added after it was created", () => {
    const mem = new MemTable();
    const it = mem.newIterator();
    it.seekToFirst();
    expect(it.valid()).toBe(false);
    mem.add(1, ValueKind.Value, text("k"), text("v"));
    it.seekToFirst();
    expect(formatInternalKey(it.key())).toBe("k#1,SET");
  });

  it("rejects seek targets that are not internal keys", () => {
    const it = new MemTable().newIterator();
    expect(() => it.seek(text("short"))).toThrow(ShaleError);
    expect(() => it.seekForPrev(text("short"))).toThrow(ShaleError);
    expect(() => it.next()).toThrow(RangeError);
    expect(() => it.prev()).toThrow(RangeError);
    expect(() => it.key()).toThrow(RangeError);
  });
});
