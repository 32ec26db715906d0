import {
  bytewiseComparator,
  compareBytes,
  isCorruption,
  MAX_SEQ,
  makeInternalKey,
  putFixed32,
  toBytes,
  toHex,
  ValueKind,
} from "@shale/base";
import { rocksdbHash32 } from "@shale/bloom";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BLOCK_FOOTER_HASH_INDEX_BIT, Block } from "./block.js";
import { BlockBuilder } from "./block-builder.js";
import { BlockIterator } from "./block-iterator.js";
import {
  DATA_BLOCK_HASH_SEED,
  HASH_COLLISION,
  HASH_NO_ENTRY,
  hashBucketOf,
} from "./data-block-hash-index.js";
import { KeyOrder } from "./key-order.js";

const order = new KeyOrder(bytewiseComparator, true);
const SNAPSHOT_MAX = MAX_SEQ;

function ik(user: string | Uint8Array, seq: number, kind: number = ValueKind.Value): Uint8Array {
  return makeInternalKey(typeof user === "string" ? toBytes(user) : user, seq, kind);
}

/** A finished block's bytes (copied: the builder's buffer is reused). */
function build(keys: readonly Uint8Array[], interval: number, ratio?: number): Uint8Array {
  const b = new BlockBuilder(interval, true, ratio);
  for (const k of keys) b.add(k, new Uint8Array(0));
  return b.finish().slice();
}

function footer(data: Uint8Array): number {
  const n = data.length;
  return (data[n - 4]! | (data[n - 3]! << 8) | (data[n - 2]! << 16) | (data[n - 1]! << 24)) >>> 0;
}

describe("data block hash index: the bytes (RocksDB's data_block_hash_index.cc)", () => {
  it("writes the worked example of the format comment", () => {
    const data = build([ik("a", 1), ik("b", 1)], 1, 0.75);
    expect(toHex(data)).toBe(
      "000900610101000000000000" +
        "000900620101000000000000" +
        "000000000c000000" +
        "00ff01" +
        "0300" +
        "02000080",
    );
    expect(rocksdbHash32(toBytes("a"), DATA_BLOCK_HASH_SEED)).toBe(1552184241);
    expect(rocksdbHash32(toBytes("b"), DATA_BLOCK_HASH_SEED)).toBe(589896611);
  });

  it("counts trunc(sum of 1/ratio) | 1 buckets and marks runs sharing a bucket kCollision", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 8 }),
        fc.constantFrom(0.25, 0.5, 0.75, 1, 1.5),
        (users, interval, ratio) => {
          const sorted = users.map((u) => toBytes(u)).sort(compareBytes);
          const data = build(
            sorted.map((u) => ik(u, 7)),
            interval,
            ratio,
          );
          const f = footer(data);
          expect(f >= BLOCK_FOOTER_HASH_INDEX_BIT).toBe(true);
          const n = data.length;
          const numBuckets = data[n - 6]! | (data[n - 5]! << 8);
          let sum = 0;
          for (let i = 0; i < sorted.length; i++) sum += 1 / ratio;
          expect(numBuckets).toBe(Math.trunc(sum) | 1);
          // The model: each bucket holds the one run hashed to it, or kCollision.
          const expected = new Array<number>(numBuckets).fill(HASH_NO_ENTRY);
          sorted.forEach((u, i) => {
            const b = hashBucketOf(u, numBuckets);
            const run = Math.floor(i / interval);
            if (expected[b] === HASH_NO_ENTRY) expected[b] = run;
            else if (expected[b] !== run) expected[b] = HASH_COLLISION;
          });
          expect([...data.subarray(n - 6 - numBuckets, n - 6)]).toEqual(expected);
          const block = Block.keyValue(data, "b", 0);
          expect(block.hashBuckets).toBe(numBuckets);
          expect(block.numRestarts).toBe(Math.ceil(sorted.length / interval));
        },
      ),
    );
  });

  it("counts the index in the size estimate, as RocksDB's CurrentSizeEstimate", () => {
    const plain = new BlockBuilder(16);
    const hashed = new BlockBuilder(16, true, 0.75);
    for (let i = 0; i < 10; i++) {
      const k = ik(`key${i}`, 1);
      plain.add(k, toBytes("v"));
      hashed.add(k, toBytes("v"));
    }
    // 10 keys: trunc(13.33) | 1 = 13 buckets + 2 bytes of numBuckets.
    expect(hashed.currentSizeEstimate - plain.currentSizeEstimate).toBe(15);
    const estimate = hashed.currentSizeEstimate;
    expect(hashed.finish().length).toBe(estimate);
  });

  it("writes none past 254 restart runs, and none for the builder's later blocks (RocksDB's Reset)", () => {
    const b = new BlockBuilder(1, true, 0.75);
    for (let i = 0; i < 255; i++) b.add(ik(`k${String(i).padStart(3, "0")}`, 1), toBytes("v"));
    const big = b.finish().slice();
    expect(footer(big)).toBe(255);
    expect(Block.keyValue(big, "b", 0).hashBuckets).toBe(0);
    b.reset();
    b.add(ik("a", 1), toBytes("v"));
    expect(footer(b.finish())).toBe(1);
    // 254 runs still get one.
    const ok = new BlockBuilder(1, true, 0.75);
    for (let i = 0; i < 254; i++) ok.add(ik(`k${String(i).padStart(3, "0")}`, 1), toBytes("v"));
    expect(footer(ok.finish())).toBe((254 | BLOCK_FOOTER_HASH_INDEX_BIT) >>> 0);
  });

  it("writes none in a block past 64 KiB", () => {
    const b = new BlockBuilder(16, true, 0.75);
    const value = new Uint8Array(70_000);
    b.add(ik("a", 1), value);
    const data = b.finish();
    expect(data.length).toBeGreaterThan(1 << 16);
    expect(footer(data)).toBe(1);
  });

  it("reads a bucket count of 0 as Corruption (RocksDB's DataBlockHashIndex::Initialize)", () => {
    const data = build([ik("a", 1)], 1, 0.75);
    const n = data.length;
    data[n - 6] = 0;
    data[n - 5] = 0;
    let error: unknown;
    try {
      Block.keyValue(data, "t.sst", 99);
    } catch (e) {
      error = e;
    }
    expect(isCorruption(error)).toBe(true);
    expect(String(error)).toMatch(/hash index/);
  });
});

/** A block whose keys are `users` (sorted), each with the given seqs (descending). */
function versionsBlock(
  entries: readonly { user: Uint8Array; seq: number; kind: number }[],
  interval: number,
  hashed: boolean,
): Block {
  const b = new BlockBuilder(interval, true, hashed ? 0.75 : undefined);
  for (const e of entries) b.add(ik(e.user, e.seq, e.kind), toBytes(`${e.seq}`));
  return Block.keyValue(b.finish().slice(), "b", 0);
}

describe("BlockIterator.seekForGet (RocksDB's SeekForGetImpl)", () => {
  const users = ["apple", "banana", "cherry", "date", "elder", "fig", "grape", "kiwi"].map((u) =>
    toBytes(u),
  );
  const entries = users.map((user) => ({ user, seq: 5, kind: ValueKind.Value as number }));

  it("finds every key of the block through its run", () => {
    for (const interval of [1, 2, 3, 16]) {
      const block = versionsBlock(entries, interval, true);
      expect(block.hashBuckets).toBeGreaterThan(0);
      const it = new BlockIterator(order).init(block, "b", 0);
      for (const u of users) {
        expect(it.seekForGet(ik(u, SNAPSHOT_MAX, ValueKind.Value), u)).toBe(true);
        expect(it.valid()).toBe(true);
        expect(toHex(it.key())).toBe(toHex(ik(u, 5)));
      }
    }
  });

  it("leaves the block for the next one when the key sorts past its last key", () => {
    const block = versionsBlock(entries, 2, true);
    const it = new BlockIterator(order).init(block, "b", 0);
    const past = toBytes("zzz");
    expect(it.seekForGet(ik(past, SNAPSHOT_MAX), past)).toBe(true);
    expect(it.valid()).toBe(false);
    // The last key at a snapshot older than each of its versions: may be in the next block.
    const last = users[users.length - 1]!;
    expect(it.seekForGet(ik(last, 4), last)).toBe(true);
    expect(it.valid()).toBe(false);
  });

  it("proves an absent key absent, or stops on a key of another user key", () => {
    const block = versionsBlock(entries, 2, true);
    const it = new BlockIterator(order).init(block, "b", 0);
    for (const s of ["aaa", "blueberry", "coconut", "dragonfruit", "eggplant", "guava", "jam"]) {
      const u = toBytes(s);
      const mayExist = it.seekForGet(ik(u, SNAPSHOT_MAX), u);
      if (mayExist && it.valid()) expect(compareBytes(it.key().subarray(0, -8), u)).not.toBe(0);
      if (!mayExist) expect(it.valid()).toBe(false);
    }
  });

  it("binary-searches a block without a hash index, and after a collision", () => {
    const plain = versionsBlock(entries, 2, false);
    expect(plain.hashBuckets).toBe(0);
    const it = new BlockIterator(order).init(plain, "b", 0);
    expect(it.seekForGet(ik("cherry", SNAPSHOT_MAX), toBytes("cherry"))).toBe(true);
    expect(toHex(it.key())).toBe(toHex(ik("cherry", 5)));
    // A user key spanning two runs marks its bucket kCollision.
    const spanning = versionsBlock(
      [
        { user: toBytes("a"), seq: 9, kind: ValueKind.Value },
        { user: toBytes("a"), seq: 8, kind: ValueKind.Merge },
        { user: toBytes("a"), seq: 7, kind: ValueKind.Value },
        { user: toBytes("b"), seq: 1, kind: ValueKind.Value },
      ],
      2,
      true,
    );
    const data = spanning.data;
    const bucket = hashBucketOf(toBytes("a"), spanning.hashBuckets);
    expect(data[spanning.hashOffset + bucket]).toBe(HASH_COLLISION);
    const at = new BlockIterator(order).init(spanning, "b", 0);
    expect(at.seekForGet(ik("a", 7), toBytes("a"))).toBe(true);
    expect(toHex(at.key())).toBe(toHex(ik("a", 7)));
  });

  it("reports a bucket naming a restart run the block lacks as Corruption", () => {
    const bytes = build([ik("a", 1), ik("b", 1)], 1, 0.75);
    const block = Block.keyValue(bytes, "b", 0);
    bytes[block.hashOffset + hashBucketOf(toBytes("a"), block.hashBuckets)] = 9;
    const it = new BlockIterator(order).init(block, "t.sst", 0);
    expect(() => it.seekForGet(ik("a", 1), toBytes("a"))).toThrow(/hash index names restart 9/);
  });

  it("puts the footer bit in the high bit whatever the restart count (fixed32 LE)", () => {
    const data = build([ik("a", 1)], 1, 0.75);
    const copy = data.slice();
    putFixed32(copy, copy.length - 4, 1);
    expect(footer(data)).toBe((1 | BLOCK_FOOTER_HASH_INDEX_BIT) >>> 0);
    expect(footer(copy)).toBe(1);
  });
});
