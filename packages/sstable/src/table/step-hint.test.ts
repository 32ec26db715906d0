/**
 * The step hint (InternalIterator.userKeyDiffersAt) of block and table iterators: after
 * `next()` it is -1 or exactly the first byte where the new user key differs from the one
 * left; after any other move it is -1. The DB iterator compares and copies keys by it, so a
 * wrong index would merge two user keys or split one.
 */
import { type InternalIterator, putVarint32, TRAILER_SIZE, ValueKind } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Block } from "../block/block.js";
import { BlockBuilder } from "../block/block-builder.js";
import { BlockIterator } from "../block/block-iterator.js";
import { KeyOrder } from "../block/key-order.js";
import { buildTable, icmp, ikey, openTable } from "./table.test-support.js";

const order = new KeyOrder(icmp.user, true);

/** The first byte where the user keys of internal keys `a` and `b` differ, if both go past it. */
function expectedDiff(a: Uint8Array, b: Uint8Array): number {
  const an = a.length - TRAILER_SIZE;
  const bn = b.length - TRAILER_SIZE;
  const n = Math.min(an, bn);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return -1;
}

/** Sorted, distinct internal keys over a small alphabet: shared prefixes, repeated user keys. */
const internalKeys = fc
  .array(
    fc.record({
      user: fc.array(fc.constantFrom(0x61, 0x62, 0x00, 0xff), { minLength: 0, maxLength: 6 }),
      seq: fc.integer({ min: 1, max: 5 }),
    }),
    { minLength: 1, maxLength: 120 },
  )
  .map((rs) => {
    const keys = rs.map((r) => ikey(Uint8Array.from(r.user), r.seq, ValueKind.Value));
    keys.sort((a, b) => icmp.compare(a, b));
    return keys.filter((k, i) => i === 0 || icmp.compare(keys[i - 1]!, k) !== 0);
  });

/** The iterator's step hint; an iterator without one fails the test. */
function hintOf(it: InternalIterator): number {
  const hint = it.userKeyDiffersAt;
  if (hint === undefined) throw new Error("the iterator gives no step hint");
  return hint.call(it);
}

function blockOf(keys: readonly Uint8Array[], interval: number): Block {
  const b = new BlockBuilder(interval);
  for (const k of keys) b.add(k, new Uint8Array([k.length]));
  return Block.keyValue(b.finish().slice(), "b", 0);
}

describe("BlockIterator.userKeyDiffersAt", () => {
  it("after next() is -1 or the exact first difference, and exact past restarts", () => {
    fc.assert(
      fc.property(internalKeys, fc.integer({ min: 1, max: 16 }), (keys, interval) => {
        const it = new BlockIterator(order).init(blockOf(keys, interval), "b", 0);
        it.seekToFirst();
        expect(it.userKeyDiffersAt()).toBe(-1);
        for (let i = 1; i < keys.length; i++) {
          it.next();
          const want = expectedDiff(keys[i - 1]!, keys[i]!);
          const got = it.userKeyDiffersAt();
          // The builder's shared prefix is the longest common one: inside a restart run the
          // hint is exact; a restart entry (shared 0) knows only whether byte 0 differs.
          if (i % interval !== 0) expect(got).toBe(want);
          else expect(got).toBe(want === 0 ? 0 : -1);
        }
        it.next();
        expect(it.valid()).toBe(false);
        expect(it.userKeyDiffersAt()).toBe(-1);
      }),
    );
  });

  it("is -1 after every move but next()", () => {
    fc.assert(
      fc.property(
        internalKeys,
        fc.integer({ min: 1, max: 4 }),
        fc.array(
          fc.tuple(
            fc.constantFrom("next", "prev", "seek", "seekForPrev", "first", "last"),
            fc.nat(),
          ),
          {
            maxLength: 40,
          },
        ),
        (keys, interval, moves) => {
          const it = new BlockIterator(order).init(blockOf(keys, interval), "b", 0);
          it.seekToFirst();
          let pos = 0;
          for (const [move, n] of moves) {
            const target = keys[n % keys.length]!;
            if (move === "next" && it.valid()) {
              it.next();
              pos++;
              if (it.valid()) {
                const got = it.userKeyDiffersAt();
                expect(got === -1 || got === expectedDiff(keys[pos - 1]!, keys[pos]!)).toBe(true);
              }
              continue;
            }
            if (move === "prev" && it.valid()) {
              it.prev();
              pos--;
            } else if (move === "seek" || move === "seekForPrev") {
              it[move](target);
              pos = keys.indexOf(target);
            } else if (move === "first") {
              it.seekToFirst();
              pos = 0;
            } else if (move === "last") {
              it.seekToLast();
              pos = keys.length - 1;
            } else continue;
            if (it.valid()) {
              expect(it.userKeyDiffersAt()).toBe(-1);
            } else {
              it.seekToFirst();
              pos = 0;
            }
          }
        },
      ),
    );
  });

  it("checks the byte at the shared length: an encoder's shorter prefix is no difference", () => {
    // A block written by hand, one restart run, with shared lengths shorter than the common
    // prefix (an encoder may do that): "abc"#1 after "abc"#2 with shared 1, "abd" with 0.
    const bytes: number[] = [];
    const entry = (shared: number, key: Uint8Array) => {
      const head = new Uint8Array(15);
      let n = putVarint32(head, 0, shared);
      n = putVarint32(head, n, key.length - shared);
      n = putVarint32(head, n, 1);
      bytes.push(...head.subarray(0, n), ...key.subarray(shared), 0x76);
    };
    entry(0, ikey("abc", 2, ValueKind.Value));
    entry(1, ikey("abc", 1, ValueKind.Value)); // same user key: byte 1 is equal
    entry(0, ikey("abd", 1, ValueKind.Value)); // differs at 2, but byte 0 is equal: unknown
    entry(0, ikey("b", 1, ValueKind.Value)); // byte 0 differs
    bytes.push(0, 0, 0, 0, 1, 0, 0, 0); // restart offsets [0], count 1
    const block = Block.keyValue(Uint8Array.from(bytes), "b", 0);
    const it = new BlockIterator(order).init(block, "b", 0);
    const seen: [string, number][] = [];
    for (it.seekToFirst(); it.valid(); it.next()) {
      seen.push([new TextDecoder().decode(it.key().subarray(0, -8)), it.userKeyDiffersAt()]);
    }
    expect(seen).toEqual([
      ["abc", -1],
      ["abc", -1],
      ["abd", -1],
      ["b", 0],
    ]);
  });
});

describe("TableIterator.userKeyDiffersAt", () => {
  it("follows the data block's hint, -1 on every block's first entry and after seeks", () => {
    const keys: Uint8Array[] = [];
    for (let i = 0; i < 3000; i++)
      keys.push(ikey(`key${String(i).padStart(6, "0")}`, 1, ValueKind.Value));
    const values = keys.map(() => new Uint8Array(40));
    const reader = openTable(buildTable(keys, values, { blockSize: 512, blockRestartInterval: 4 }));
    const it = reader.newIterator();
    let blockStarts = 0;
    let hinted = 0;
    it.seekToFirst();
    expect(hintOf(it)).toBe(-1);
    for (let i = 1; i < keys.length; i++) {
      it.next();
      const got = hintOf(it);
      expect(got === -1 || got === expectedDiff(keys[i - 1]!, keys[i]!)).toBe(true);
      if (got >= 0) hinted++;
      else blockStarts++;
    }
    // 40-byte values in 512-byte blocks: ~9 entries per block, restarts every 4.
    expect(hinted).toBeGreaterThan(keys.length / 2);
    expect(blockStarts).toBeGreaterThan(keys.length / 20);
    it.seek(keys[1234]!);
    expect(hintOf(it)).toBe(-1);
    it.prev();
    expect(hintOf(it)).toBe(-1);
    it.close();
    reader.close();
  });
});
