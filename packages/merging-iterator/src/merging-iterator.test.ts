import {
  ArrayIterator,
  bytewiseComparator,
  type CompareFn,
  compareBytes,
  EmptyIterator,
  type InternalIterator,
  InternalKeyComparator,
} from "@shale/base";
import { describeIteratorConformance, Random } from "@shale/base/testing";
import { describe, expect, it, vi } from "vitest";
import { BinaryHeap } from "./binary-heap.js";
import { MergingIterator, newMergingIterator } from "./merging-iterator.js";

const internalCmp = new InternalKeyComparator(bytewiseComparator);
const internalCompare: CompareFn = (a, b) => internalCmp.compare(a, b);

/**
 * Splits sorted unique entries among `k` children at random (deterministically per input),
 * leaving child `k >> 1` empty when k >= 3 so that empty children are always present.
 */
function splitEntries(
  keys: Uint8Array[],
  values: Uint8Array[],
  k: number,
  compare: CompareFn,
): InternalIterator[] {
  const rnd = new Random(keys.length * 131 + k);
  const parts: { keys: Uint8Array[]; values: Uint8Array[] }[] = [];
  for (let c = 0; c < k; c++) parts.push({ keys: [], values: [] });
  const skip = k >= 3 ? k >> 1 : -1;
  for (let i = 0; i < keys.length; i++) {
    let c = rnd.uniform(k);
    if (c === skip) c = (c + 1) % k;
    parts[c]!.keys.push(keys[i]!);
    parts[c]!.values.push(values[i]!);
  }
  return parts.map((p) => new ArrayIterator(p.keys, p.values, compare));
}

for (const k of [1, 2, 3, 7]) {
  describeIteratorConformance(`MergingIterator over ${k} children (internal keys)`, {
    keys: "internal",
    build: (keys, values) =>
      new MergingIterator(splitEntries(keys, values, k, internalCompare), internalCompare),
  });
}
describeIteratorConformance("MergingIterator over MergingIterators (3 x 2 children)", {
  keys: "internal",
  sizes: [0, 1, 17, 300],
  build: (keys, values) => {
    const outer = splitEntries(keys, values, 3, internalCompare);
    // Re-split each outer child's entries between two inner children.
    const nested = outer.map((child) => {
      const ks: Uint8Array[] = [];
      const vs: Uint8Array[] = [];
      for (child.seekToFirst(); child.valid(); child.next()) {
        ks.push(child.key());
        vs.push(child.value());
      }
      return new MergingIterator(splitEntries(ks, vs, 2, internalCompare), internalCompare);
    });
    return new MergingIterator(nested, internalCompare);
  },
});
describeIteratorConformance("MergingIterator over 3 children (byte keys)", {
  keys: "bytes",
  build: (keys, values) =>
    new MergingIterator(splitEntries(keys, values, 3, compareBytes), compareBytes),
});

function bytes(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

function str(b: Uint8Array): string {
  return new TextDecoder().decode(b);
}

/** Children from string lists; each value is "<key>@<child index>". */
function childrenOf(lists: string[][]): InternalIterator[] {
  return lists.map(
    (list, c) =>
      new ArrayIterator(
        list.map(bytes),
        list.map((s) => bytes(`${s}@${c}`)),
        compareBytes,
      ),
  );
}

function here(it: InternalIterator): string {
  return it.valid() ? str(it.value()) : "<invalid>";
}

describe("MergingIterator: duplicate keys across children", () => {
  const lists = [["a", "b", "c"], ["b", "c", "d"], ["c"], []];
  const forward = ["a@0", "b@0", "b@1", "c@0", "c@1", "c@2", "d@1"];

  it("yields every copy, lower child index first, and the exact reverse backwards", () => {
    const it = new MergingIterator(childrenOf(lists), compareBytes);
    const seen: string[] = [];
    for (it.seekToFirst(); it.valid(); it.next()) seen.push(here(it));
    expect(seen).toEqual(forward);
    const back: string[] = [];
    for (it.seekToLast(); it.valid(); it.prev()) back.push(here(it));
    expect(back).toEqual([...forward].reverse());
  });

  it("seek lands on the lowest child of equal keys, seekForPrev on the highest", () => {
    const it = new MergingIterator(childrenOf(lists), compareBytes);
    it.seek(bytes("c"));
    expect(here(it)).toBe("c@0");
    it.seekForPrev(bytes("c"));
    expect(here(it)).toBe("c@2");
    it.seek(bytes("bb"));
    expect(here(it)).toBe("c@0");
    it.seekForPrev(bytes("bb"));
    expect(here(it)).toBe("b@1");
    it.seek(bytes("e"));
    expect(it.valid()).toBe(false);
    it.seekForPrev(bytes("0"));
    expect(it.valid()).toBe(false);
  });

  it("switches direction in the middle of a run of equal keys", () => {
    const it = new MergingIterator(childrenOf(lists), compareBytes);
    for (let start = 0; start < forward.length; start++) {
      it.seekToFirst();
      for (let i = 0; i < start; i++) it.next();
      expect(here(it)).toBe(forward[start]);
      if (start > 0) {
        it.prev();
        expect(here(it)).toBe(forward[start - 1]);
        it.next();
        expect(here(it)).toBe(forward[start]);
      }
      it.next();
      expect(here(it)).toBe(forward[start + 1] ?? "<invalid>");
      if (it.valid()) {
        it.prev();
        expect(here(it)).toBe(forward[start]);
        it.prev();
        expect(here(it)).toBe(forward[start - 1] ?? "<invalid>");
      }
    }
  });
});

describe("MergingIterator: API", () => {
  it("newMergingIterator returns an EmptyIterator for none, the child for one, else a merge", () => {
    const none = newMergingIterator([], compareBytes);
    expect(none).toBeInstanceOf(EmptyIterator);
    none.seekToFirst();
    expect(none.valid()).toBe(false);
    const [only] = childrenOf([["a"]]);
    expect(newMergingIterator([only!], compareBytes)).toBe(only);
    expect(newMergingIterator(childrenOf([["a"], ["b"]]), compareBytes)).toBeInstanceOf(
      MergingIterator,
    );
    const forced = newMergingIterator(childrenOf([["a"]]), compareBytes, { alwaysMerge: true });
    expect(forced).toBeInstanceOf(MergingIterator);
    forced.seekToFirst();
    expect(here(forced)).toBe("a@0");
    const forcedEmpty = newMergingIterator([], compareBytes, { alwaysMerge: true });
    expect(forcedEmpty).toBeInstanceOf(MergingIterator);
    forcedEmpty.seekToLast();
    expect(forcedEmpty.valid()).toBe(false);
  });

  it("rejects bad arguments with TypeError", () => {
    expect(() => new MergingIterator("x" as unknown as InternalIterator[], compareBytes)).toThrow(
      TypeError,
    );
    expect(() => new MergingIterator([], 1 as unknown as CompareFn)).toThrow(TypeError);
    expect(() => new MergingIterator([null as unknown as InternalIterator], compareBytes)).toThrow(
      TypeError,
    );
    expect(() => newMergingIterator({} as unknown as InternalIterator[], compareBytes)).toThrow(
      TypeError,
    );
  });

  it("throws RangeError from next/prev/key/value when not valid", () => {
    const it = new MergingIterator(childrenOf([["a"], []]), compareBytes);
    expect(it.valid()).toBe(false);
    expect(() => it.next()).toThrow(RangeError);
    expect(() => it.prev()).toThrow(RangeError);
    expect(() => it.key()).toThrow(RangeError);
    expect(() => it.value()).toThrow(RangeError);
  });

  it("returns the current child's key and value views, not copies", () => {
    const children = childrenOf([["a", "c"], ["b"]]);
    const it = new MergingIterator(children, compareBytes);
    it.seek(bytes("b"));
    expect(it.key()).toBe(children[1]!.key());
    expect(it.value()).toBe(children[1]!.value());
  });

  it("isValuePinned() answers for the current child (absent: not pinned)", () => {
    class Pinned extends ArrayIterator {
      isValuePinned(): boolean {
        return true;
      }
    }
    const e = (k: string) => bytes(k);
    const children = [
      new Pinned([e("a"), e("c")], [e("1"), e("3")], compareBytes),
      new ArrayIterator([e("b")], [e("2")], compareBytes), // no isValuePinned
    ];
    const it = new MergingIterator(children, compareBytes);
    const seen: string[] = [];
    for (it.seekToFirst(); it.valid(); it.next())
      seen.push(`${it.key()[0]! - 96}:${it.isValuePinned()}`);
    expect(seen).toEqual(["1:true", "2:false", "3:true"]);
    expect(() => it.isValuePinned()).toThrow(RangeError);
  });

  it("close() closes every child once, even when one throws", () => {
    const closed: number[] = [];
    const children = childrenOf([["a"], ["b"], ["c"]]).map((child, i) => {
      const close = child.close.bind(child);
      child.close = () => {
        closed.push(i);
        close();
        if (i === 0) throw new Error("boom");
      };
      return child;
    });
    const it = new MergingIterator(children, compareBytes);
    it.seekToFirst();
    expect(() => it.close()).toThrow("boom");
    expect(closed).toEqual([0, 1, 2]);
    expect(it.valid()).toBe(false);
    it.close();
    expect(closed).toEqual([0, 1, 2]);
  });

  it("works with any comparator (reverse bytewise)", () => {
    const reverse: CompareFn = (a, b) => compareBytes(b, a);
    const lists = [
      ["z", "m", "a"],
      ["y", "m", "b"],
    ];
    const children = lists.map(
      (l, c) =>
        new ArrayIterator(
          l.map(bytes),
          l.map((s) => bytes(`${s}@${c}`)),
          reverse,
        ),
    );
    const it = new MergingIterator(children, reverse);
    const seen: string[] = [];
    for (it.seekToFirst(); it.valid(); it.next()) seen.push(here(it));
    expect(seen).toEqual(["z@0", "y@1", "m@0", "m@1", "b@1", "a@0"]);
    it.seek(bytes("n"));
    expect(here(it)).toBe("m@0");
    it.seekForPrev(bytes("n"));
    expect(here(it)).toBe("y@1");
  });
});

describe("MergingIterator: lone-child step", () => {
  const bytes = (s: string) => new TextEncoder().encode(s);
  const child = (keys: string[]) =>
    new ArrayIterator(keys.map(bytes), keys.map(bytes), compareBytes);

  // Once every other child is exhausted, next()/prev() step the remaining child and leave
  // the heap alone: no replaceTop, no comparison, until the last child ends too (one pop).
  it.each([false, true])("steps the last child without heap work (reverse: %s)", (reverse) => {
    const compares = { n: 0 };
    const compare: CompareFn = (a, b) => {
      compares.n++;
      return compareBytes(a, b);
    };
    const tail = ["m", "n", "o", "p", "q", "r", "s", "t"];
    const it = new MergingIterator(
      [child(reverse ? ["x", "y"] : ["a", "b"]), child(reverse ? ["a", ...tail] : [...tail, "z"])],
      compare,
    );
    const replaceTop = vi.spyOn(BinaryHeap.prototype, "replaceTop");
    const pop = vi.spyOn(BinaryHeap.prototype, "pop");
    try {
      const seen: string[] = [];
      if (reverse) it.seekToLast();
      else it.seekToFirst();
      // The first child's two entries, then the second child alone.
      for (let i = 0; i < 3; i++) {
        seen.push(new TextDecoder().decode(it.key()));
        if (reverse) it.prev();
        else it.next();
      }
      expect(pop).toHaveBeenCalledTimes(1); // the first child ran out
      const calls = replaceTop.mock.calls.length;
      const n = compares.n;
      while (it.valid()) {
        seen.push(new TextDecoder().decode(it.key()));
        if (reverse) it.prev();
        else it.next();
      }
      expect(seen.length).toBe(tail.length + 3);
      expect(seen[seen.length - 1]).toBe(reverse ? "a" : "z");
      expect(replaceTop.mock.calls.length).toBe(calls);
      expect(compares.n).toBe(n);
      expect(pop).toHaveBeenCalledTimes(2); // and then the second
      // A seek and a direction switch bring the heap back.
      it.seek(bytes("b"));
      expect(new TextDecoder().decode(it.key())).toBe(reverse ? "m" : "b");
      it.next();
      it.prev();
      expect(new TextDecoder().decode(it.key())).toBe(reverse ? "m" : "b");
    } finally {
      replaceTop.mockRestore();
      pop.mockRestore();
      it.close();
    }
  });
});
