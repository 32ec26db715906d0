/** The DB iterator's order invariant: a source out of order is AssertionFailed at the move. */
import {
  ArrayIterator,
  bytewiseComparator,
  InternalKeyComparator,
  invariants,
  MAX_SEQ,
  makeInternalKey,
  ValueKind,
} from "@shale/base";
import { expectShaleError } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import { newDBIterator } from "./index.js";
import { checkStep } from "./order-check.js";

const icmp = new InternalKeyComparator(bytewiseComparator);
const enc = (s: string) => new TextEncoder().encode(s);

/** A DB iterator over one source holding `keys` in the order given (sorted or not). */
function over(keys: string[]) {
  const ikeys = keys.map((k, i) => makeInternalKey(enc(k), i + 1, ValueKind.Value));
  return newDBIterator({
    children: [new ArrayIterator(ikeys, keys.map(enc), (a, b) => icmp.compare(a, b))],
    rangeTombstones: [],
    comparator: bytewiseComparator,
    mergeOperator: undefined,
    snapshotSeq: MAX_SEQ,
  });
}

describe("DB iterator order (invariants)", () => {
  it("runs in invariants mode", () => expect(invariants).toBe(true));

  it("a source whose keys go backwards fails prev() with AssertionFailed", () => {
    const it = over(["a", "c", "b"]);
    it.seekToLast();
    expect(new TextDecoder().decode(it.key())).toBe("b");
    expectShaleError(() => it.prev(), "AssertionFailed", {
      message: "prev() moved from b to c: keys must strictly decrease",
    });
    it.close();
  });

  it("forward, the iterator skips keys at or before the current one, so the check is the last line", () => {
    // next() drops what a bad source yields out of order (findNextUserEntry skips keys <= the
    // current one); the check still holds the contract for a move that would go backwards.
    const it = over(["a", "c", "b"]);
    it.seekToFirst();
    it.next();
    it.next();
    expect(it.valid()).toBe(false);
    it.close();
    expectShaleError(
      () => checkStep(bytewiseComparator, enc("c"), enc("b"), 1),
      "AssertionFailed",
      {
        message: "next() moved from c to b: keys must strictly increase",
      },
    );
    expectShaleError(() => checkStep(bytewiseComparator, enc("c"), enc("c"), 1), "AssertionFailed");
    checkStep(bytewiseComparator, enc("c"), undefined, 1);
    checkStep(bytewiseComparator, enc("b"), enc("c"), 1);
  });

  it("a sorted source passes both ways", () => {
    const it = over(["a", "b", "c"]);
    const seen: string[] = [];
    for (it.seekToFirst(); it.valid(); it.next()) seen.push(new TextDecoder().decode(it.key()));
    for (it.seekToLast(); it.valid(); it.prev()) seen.push(new TextDecoder().decode(it.key()));
    expect(seen).toEqual(["a", "b", "c", "c", "b", "a"]);
    it.close();
  });
});
