/**
 * The merging iterator's step hint (InternalIterator.userKeyDiffersAt): it passes on the
 * hint of the child a `next()` moved while that child stays the current one, so the hint
 * compares the new entry with the merged sequence's previous entry; otherwise -1.
 */
import {
  ArrayIterator,
  bytewiseComparator,
  type InternalIterator,
  InternalKeyComparator,
  makeInternalKey,
  TRAILER_SIZE,
} from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MergingIterator, newMergingIterator } from "./merging-iterator.js";

const icmp = new InternalKeyComparator(bytewiseComparator);
const compare = (a: Uint8Array, b: Uint8Array) => icmp.compare(a, b);

/** Where the user keys of internal keys `a` and `b` first differ, if both go past it. */
function firstDiff(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length) - TRAILER_SIZE;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return -1;
}

/** An ArrayIterator that knows the exact hint after `next()` (-1 after other moves). */
class HintingIterator extends ArrayIterator {
  private hint = -1;
  private last: Uint8Array | undefined;

  override next(): void {
    this.last = this.key();
    super.next();
    this.hint = this.valid() ? firstDiff(this.last, this.key()) : -1;
  }
  override prev(): void {
    super.prev();
    this.hint = -1;
  }
  override seek(t: Uint8Array): void {
    super.seek(t);
    this.hint = -1;
  }
  override seekForPrev(t: Uint8Array): void {
    super.seekForPrev(t);
    this.hint = -1;
  }
  override seekToFirst(): void {
    super.seekToFirst();
    this.hint = -1;
  }
  override seekToLast(): void {
    super.seekToLast();
    this.hint = -1;
  }
  userKeyDiffersAt(): number {
    return this.hint;
  }
}

// Mostly 3-byte user keys (hints need both keys to go past the first difference).
const userKey = fc
  .array(fc.constantFrom(0, 1, 2, 3), { minLength: 2, maxLength: 3 })
  .map((a) => Uint8Array.from(a));

/** 1-4 children of distinct internal keys (one seq space), some without hints. */
const childrenArb = fc.array(userKey, { minLength: 1, maxLength: 60 }).chain((entries) =>
  fc.tuple(
    fc.constant(entries),
    // Owners in runs of keys (after sorting), so a child often stays on top for a while.
    fc.integer({ min: 1, max: 12 }),
    fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
  ),
);

type Move = "next" | "prev" | "seek" | "first" | "last";
const moveArb = fc.array(
  fc.tuple(
    fc.oneof(
      { weight: 12, arbitrary: fc.constant<Move>("next") },
      { weight: 1, arbitrary: fc.constantFrom<Move>("prev", "seek", "first", "last") },
    ),
    fc.nat(),
  ),
  { maxLength: 80 },
);

describe("MergingIterator.userKeyDiffersAt", () => {
  it("is -1 or the first difference with the merged previous entry, and -1 after other moves", () => {
    let hinted = 0;
    fc.assert(
      fc.property(childrenArb, moveArb, ([entries, run, hinting], moves) => {
        const lists: Uint8Array[][] = [[], [], [], []];
        const all = entries.map((user, i) => makeInternalKey(user, i + 1, 1)).sort(compare);
        for (let i = 0; i < all.length; i++) lists[Math.floor(i / run) % 4]!.push(all[i]!);
        const children: InternalIterator[] = lists.map((keys, c) => {
          keys.sort(compare);
          const values = keys.map(() => new Uint8Array(0));
          return hinting[c]!
            ? new HintingIterator(keys, values, compare)
            : new ArrayIterator(keys, values, compare);
        });
        const it = new MergingIterator(children, compare);
        it.seekToFirst();
        for (const [move, n] of moves) {
          if (!it.valid()) it.seekToFirst();
          if (!it.valid()) return;
          if (move === "next") {
            const before = it.key().slice();
            it.next();
            if (!it.valid()) continue;
            const got = it.userKeyDiffersAt();
            if (got !== -1) {
              hinted++;
              expect(got).toBe(firstDiff(before, it.key()));
            }
            continue;
          }
          if (move === "prev") it.prev();
          else if (move === "seek") it.seek(all[n % all.length]!);
          else if (move === "first") it.seekToFirst();
          else it.seekToLast();
          if (it.valid()) expect(it.userKeyDiffersAt()).toBe(-1);
        }
      }),
      { numRuns: 200 },
    );
    expect(hinted).toBeGreaterThan(20); // the hint is passed on, not only ever -1 (~80-200)
  });

  it("passes a lone child's hint on, and none of a child that gives none", () => {
    const keys = ["aa", "ab", "b"].map((u) => makeInternalKey(new TextEncoder().encode(u), 1, 1));
    const values = keys.map(() => new Uint8Array(0));
    const one = new MergingIterator([new HintingIterator(keys, values, compare)], compare);
    one.seekToFirst();
    one.next();
    expect(one.userKeyDiffersAt()).toBe(1);
    one.next();
    expect(one.userKeyDiffersAt()).toBe(0);
    const plain = newMergingIterator(
      [new ArrayIterator(keys, values, compare), new ArrayIterator([], [], compare)],
      compare,
    );
    plain.seekToFirst();
    plain.next();
    expect(plain.userKeyDiffersAt?.()).toBe(-1);
  });
});
