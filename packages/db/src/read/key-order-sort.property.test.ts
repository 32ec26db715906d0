/**
 * `KeyOrderSort` against the model, a stable sort of the indexes by the comparator (equal
 * keys by index): random batches of keys over a small alphabet (long shared prefixes, keys
 * that are prefixes of others, zero bytes, duplicates), large enough to take the radix
 * passes and the insertion sort, for the bytewise and the reverse bytewise order (the radix
 * sort) and for a custom comparator (the comparator's sort); the sorter reused across
 * batches of different sizes.
 */
import {
  bytewiseComparator,
  type Comparator,
  compareBytes,
  reverseBytewiseComparator,
} from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KeyOrderSort } from "./key-order-sort.js";

/** Orders by length first, then bytewise: not a built-in, so sorted with `compare`. */
const lengthFirst: Comparator = {
  name: "test.LengthFirst",
  compare: (a, b) => a.length - b.length || compareBytes(a, b),
  findShortestSeparator: (a) => a,
  findShortSuccessor: (a) => a,
};

function model(keys: readonly Uint8Array[], comparator: Comparator): number[] {
  const order = keys.map((_, i) => i);
  return order.sort((a, b) => comparator.compare(keys[a]!, keys[b]!) || a - b);
}

const bytes = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));

/** Keys of a shared stem and a tail over {0x00, 0x01, 0x61, 0xff}: many ties and prefixes. */
const keyArb = fc
  .tuple(
    fc.constantFrom("", "user:", "user:000000000"),
    fc.array(fc.constantFrom(0x00, 0x01, 0x61, 0xff), { maxLength: 14 }),
  )
  .map(([stem, tail]) => Uint8Array.from([...bytes(stem), ...tail]));

const comparators = [bytewiseComparator, reverseBytewiseComparator, lengthFirst];

describe("KeyOrderSort", () => {
  it("sorts as a stable sort by the comparator does", () => {
    const sorter = new KeyOrderSort();
    fc.assert(
      fc.property(
        fc.array(fc.array(keyArb, { maxLength: 300 }), { minLength: 1, maxLength: 4 }),
        fc.constantFrom(...comparators),
        (batches, comparator) => {
          for (const keys of batches) {
            const order = sorter.sort(keys, keys.length, comparator);
            expect(Array.from(order.subarray(0, keys.length))).toEqual(model(keys, comparator));
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("sorts only the first n keys", () => {
    const keys = ["c", "b", "a", "0"].map(bytes);
    const order = new KeyOrderSort().sort(keys, 3, bytewiseComparator);
    expect(Array.from(order.subarray(0, 3))).toEqual([2, 1, 0]);
  });

  it("orders the worked example of the file comment", () => {
    const keys = ["b", "ab", "a", "ab"].map(bytes);
    for (const comparator of comparators) {
      const order = new KeyOrderSort().sort(keys, 4, comparator);
      expect(Array.from(order.subarray(0, 4))).toEqual(model(keys, comparator));
    }
    const order = new KeyOrderSort().sort(keys, 4, bytewiseComparator);
    expect(Array.from(order.subarray(0, 4))).toEqual([2, 1, 3, 0]);
  });

  it("sorts many keys with one long common prefix and equal runs (several passes)", () => {
    const stem = new Uint8Array(40).fill(7);
    const keys: Uint8Array[] = [];
    for (let i = 0; i < 500; i++) {
      const key = new Uint8Array(48);
      key.set(stem);
      // Equal in [40, 44) for runs of 50 keys; the last bytes in reverse within a run.
      key[40] = Math.floor(i / 50);
      key[47] = 255 - (i % 50);
      keys.push(key);
    }
    keys.push(keys[3]!.slice(), stem.slice(), new Uint8Array(0));
    for (const comparator of comparators) {
      const order = new KeyOrderSort().sort(keys, keys.length, comparator);
      expect(Array.from(order.subarray(0, keys.length))).toEqual(model(keys, comparator));
    }
  });
});
