/**
 * BlockIterator against a model (a sorted array and a position) under random mixes of moves:
 * seeks both ways, first/last, and runs of next/prev that turn around inside restart runs.
 * The keys come from a small alphabet with long common prefixes, and some are longer than
 * the iterator's initial 64-byte key buffer, so reverse steps rebuild keys from the run
 * cache's kept suffixes (run-cache.ts) across every shape of shared prefix, key growth
 * included.
 */
import { bytewiseComparator, compareBytes, toHex } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { icmp } from "../table/table.test-support.js";
import { Block } from "./block.js";
import { BlockBuilder } from "./block-builder.js";
import { BlockIterator } from "./block-iterator.js";
import { KeyOrder } from "./key-order.js";

type Move =
  | { op: "seek" | "seekForPrev"; target: Uint8Array }
  | { op: "seekToFirst" | "seekToLast" }
  | { op: "next" | "prev"; times: number };

/** Keys over {a, b} with a shared head of 0, 3 or 70 bytes: long shared prefixes, some keys past 64 bytes. */
const keyArb = fc
  .tuple(
    fc.constantFrom(0, 3, 70),
    fc.uint8Array({ minLength: 0, maxLength: 10, min: 97, max: 98 }),
  )
  .map(([head, tail]) => {
    const k = new Uint8Array(head + tail.length).fill(97);
    k.set(tail, head);
    return k;
  });

const moveArb = (target: fc.Arbitrary<Uint8Array>): fc.Arbitrary<Move> =>
  fc.oneof(
    fc.record({ op: fc.constantFrom("seek" as const, "seekForPrev" as const), target }),
    fc.record({ op: fc.constantFrom("seekToFirst" as const, "seekToLast" as const) }),
    fc.record({
      op: fc.constantFrom("next" as const, "prev" as const),
      times: fc.integer({ min: 1, max: 20 }),
    }),
  );

function run(
  keys: Uint8Array[],
  interval: number,
  order: KeyOrder,
  compare: (a: Uint8Array, b: Uint8Array) => number,
  moves: Move[],
): void {
  keys.sort(compare);
  const unique = keys.filter((k, i) => i === 0 || compare(keys[i - 1]!, k) !== 0);
  const values = unique.map((_, i) => new Uint8Array([i & 0xff, i >> 8, 7]));
  const b = new BlockBuilder(interval);
  for (let i = 0; i < unique.length; i++) b.add(unique[i]!, values[i]!);
  const it = new BlockIterator(order).init(Block.keyValue(b.finish().slice(), "b", 0), "b", 0);
  let pos = -1; // the model: index into `unique`, -1 when not valid
  const check = (): void => {
    expect(it.valid()).toBe(pos >= 0);
    if (pos >= 0) {
      expect(toHex(it.key())).toBe(toHex(unique[pos]!));
      expect(toHex(it.value())).toBe(toHex(values[pos]!));
    }
  };
  for (const m of moves) {
    switch (m.op) {
      case "seek":
        it.seek(m.target);
        pos = unique.findIndex((k) => compare(k, m.target) >= 0);
        break;
      case "seekForPrev": {
        it.seekForPrev(m.target);
        pos = -1;
        for (let i = 0; i < unique.length && compare(unique[i]!, m.target) <= 0; i++) pos = i;
        break;
      }
      case "seekToFirst":
        it.seekToFirst();
        pos = unique.length > 0 ? 0 : -1;
        break;
      case "seekToLast":
        it.seekToLast();
        pos = unique.length - 1;
        break;
      case "next":
      case "prev":
        for (let t = 0; t < m.times && pos >= 0; t++) {
          if (m.op === "next") {
            it.next();
            pos = pos + 1 < unique.length ? pos + 1 : -1;
          } else {
            it.prev();
            pos -= 1;
          }
          check();
        }
        break;
    }
    check();
  }
}

describe("BlockIterator moves against a model (property-based)", () => {
  for (const interval of [1, 3, 16]) {
    it(`byte keys, restart interval ${interval}`, () => {
      fc.assert(
        fc.property(
          fc.array(keyArb, { maxLength: 80 }),
          fc.array(moveArb(keyArb), { maxLength: 30 }),
          (keys, moves) =>
            run(keys, interval, new KeyOrder(bytewiseComparator, false), compareBytes, moves),
        ),
        { numRuns: 200 },
      );
    });

    it(`internal keys, restart interval ${interval}`, () => {
      // Internal keys: the user key and an 8-byte trailer (seq, kind), newest first per user key.
      const internalKey = fc.tuple(keyArb, fc.integer({ min: 0, max: 3 })).map(([user, seq]) => {
        const k = new Uint8Array(user.length + 8);
        k.set(user, 0);
        k[user.length] = 1; // kind Value
        k[user.length + 1] = seq;
        return k;
      });
      fc.assert(
        fc.property(
          fc.array(internalKey, { maxLength: 80 }),
          fc.array(moveArb(internalKey), { maxLength: 30 }),
          (keys, moves) =>
            run(
              keys,
              interval,
              new KeyOrder(bytewiseComparator, true),
              (a, b) => icmp.compare(a, b),
              moves,
            ),
        ),
        { numRuns: 200 },
      );
    });
  }
});
