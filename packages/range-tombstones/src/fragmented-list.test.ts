import {
  type Comparator,
  compareBytes,
  ErrorCode,
  isShaleError,
  MAX_SEQ,
  type RangeTombstone,
  reverseBytewiseComparator,
  toBytes,
} from "@shale/base";
import { describe, expect, it } from "vitest";
import { FragmentedRangeTombstoneList } from "./index.js";

const t = (start: string, end: string, seq: number): RangeTombstone => ({
  start: toBytes(start),
  end: toBytes(end),
  seq,
});

function expectInvalidArgument(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    expect(isShaleError(e, ErrorCode.InvalidArgument), String(e)).toBe(true);
    return;
  }
  throw new Error("expected an InvalidArgument error");
}

describe("FragmentedRangeTombstoneList", () => {
  it("an empty list answers 0 and iterates nothing", () => {
    for (const list of [
      new FragmentedRangeTombstoneList([]),
      new FragmentedRangeTombstoneList([t("b", "a", 3)]),
    ]) {
      expect(list.isEmpty).toBe(true);
      expect(list.numFragments).toBe(0);
      expect(list.toString()).toBe("");
      expect(list.maxCoveringSeq(toBytes("a"))).toBe(0);
      const it = list.newIterator();
      it.seekToFirst();
      expect(it.valid()).toBe(false);
      it.seekToLast();
      expect(it.valid()).toBe(false);
      it.seek(toBytes("a"));
      expect(it.valid()).toBe(false);
      expect(list.forCompaction([1, 2]).isEmpty).toBe(true);
    }
    expect(new FragmentedRangeTombstoneList([t("b", "a", 3)]).numTombstones).toBe(1);
  });

  it("keeps the input tombstones as given, but its own copy of the boundary keys", () => {
    const input = [t("c", "g", 20), t("a", "e", 10), t("z", "z", 1)];
    const list = new FragmentedRangeTombstoneList(input);
    expect(list.numTombstones).toBe(3);
    const back = list.tombstones();
    expect(back).toEqual(input);
    expect(back).not.toBe(input);
    for (let i = 0; i < back.length; i++) expect(back[i]).toBe(input[i]);
    input.push(t("q", "r", 2)); // later changes to the caller's array do not leak in
    expect(list.numTombstones).toBe(3);
    // The caller may overwrite its key bytes: the fragments do not change.
    for (const tomb of input) {
      tomb.start.fill(0x30);
      tomb.end.fill(0x30);
    }
    expect(list.toString()).toBe("a-c:{10} c-e:{20,10} e-g:{20}");
    expect(list.maxCoveringSeq(toBytes("d"))).toBe(20);
    // Boundary keys are views into one buffer; a shared boundary is one view.
    const frags = list.fragments();
    expect(frags[0]!.end).toBe(frags[1]!.start);
    expect(frags[0]!.start.buffer).toBe(frags[2]!.end.buffer);
    const it = list.newIterator();
    it.seekToLast();
    expect(it.end()).toBe(frags[2]!.end);
  });

  it("the iterator exposes the visible stack as a view, newest first", () => {
    const list = new FragmentedRangeTombstoneList([
      t("a", "e", 10),
      t("c", "g", 20),
      t("c", "d", 5),
    ]);
    expect(list.toString()).toBe("a-c:{10} c-d:{20,10,5} d-e:{20,10} e-g:{20}");
    const it = list.newIterator(12);
    expect(it.snapshotSeq).toBe(12);
    it.seek(toBytes("c"));
    expect(it.seq()).toBe(10);
    expect(Array.from(it.seqs())).toEqual([10, 5]);
    expect(list.newIterator().snapshotSeq).toBe(MAX_SEQ);
  });

  it("throws RangeError when an invalid iterator is used", () => {
    const it = new FragmentedRangeTombstoneList([t("a", "b", 1)]).newIterator();
    expect(() => it.start()).toThrow(RangeError);
    it.seekToFirst();
    it.next();
    for (const f of [
      () => it.next(),
      () => it.prev(),
      () => it.end(),
      () => it.seq(),
      () => it.seqs(),
    ]) {
      expect(f).toThrow(RangeError);
    }
  });

  it("prints keys with formatKey", () => {
    const list = new FragmentedRangeTombstoneList([
      { start: new Uint8Array([0, 0x5c]), end: new Uint8Array([0x61, 0xff]), seq: 3 },
    ]);
    expect(list.toString()).toBe("\\x00\\x5c-a\\xff:{3}");
  });

  it("validates its arguments", () => {
    const bad: unknown[] = [
      null,
      5,
      { start: "a", end: toBytes("b"), seq: 1 },
      { start: toBytes("a"), end: toBytes("b") },
    ];
    for (const b of bad) {
      expect(() => new FragmentedRangeTombstoneList([b as RangeTombstone])).toThrow(TypeError);
    }
    expect(() => new FragmentedRangeTombstoneList("ab" as unknown as RangeTombstone[])).toThrow(
      TypeError,
    );
    expect(() => new FragmentedRangeTombstoneList([], {} as Comparator)).toThrow(TypeError);
    for (const seq of [-1, 1.5, Number.NaN, MAX_SEQ + 2, Number.POSITIVE_INFINITY]) {
      expectInvalidArgument(() => new FragmentedRangeTombstoneList([t("a", "b", seq)]));
    }
    const list = new FragmentedRangeTombstoneList([t("a", "b", 1)]);
    expectInvalidArgument(() => list.forCompaction([5, 3]));
    expectInvalidArgument(() => list.forCompaction([-1]));
    expect(() => list.forCompaction(["1"] as unknown as number[])).toThrow(TypeError);
    expect(() => list.forCompaction(3 as unknown as number[])).toThrow(TypeError);
    expectInvalidArgument(() => list.newIterator(-1));
    expect(() => list.newIterator("1" as unknown as number)).toThrow(TypeError);
  });

  it("works with any comparator, including one whose compare uses `this`", () => {
    class ByLengthThenBytes implements Comparator {
      readonly name = "test.ByLengthThenBytes";
      private readonly tieBreak = compareBytes;
      compare(a: Uint8Array, b: Uint8Array): number {
        return a.length - b.length || this.tieBreak(a, b);
      }
      findShortestSeparator(a: Uint8Array): Uint8Array {
        return a;
      }
      findShortSuccessor(a: Uint8Array): Uint8Array {
        return a;
      }
    }
    // In this order "z" < "aa" < "zz" < "aaa".
    const list = new FragmentedRangeTombstoneList(
      [t("z", "zz", 4), t("aa", "aaa", 9)],
      new ByLengthThenBytes(),
    );
    expect(list.toString()).toBe("z-aa:{4} aa-zz:{9,4} zz-aaa:{9}");
    expect(list.maxCoveringSeq(toBytes("bb"))).toBe(9);
    expect(list.maxCoveringSeq(toBytes("bbbb"))).toBe(0);
  });

  it("under the reverse comparator, ranges run from high keys to low keys", () => {
    const list = new FragmentedRangeTombstoneList(
      [t("g", "c", 20), t("e", "a", 10), t("a", "e", 99)],
      reverseBytewiseComparator,
    );
    expect(list.toString()).toBe("g-e:{20} e-c:{20,10} c-a:{10}");
    expect(list.maxCoveringSeq(toBytes("d"))).toBe(20);
    expect(list.maxCoveringSeq(toBytes("d"), 15)).toBe(10);
    expect(list.maxCoveringSeq(toBytes("a"))).toBe(0);
    expect(list.maxCoveringSeq(toBytes("h"))).toBe(0);
    const it = list.newIterator(15);
    it.seek(toBytes("f")); // first fragment (in reverse order) whose end is after "f"
    expect(`${it.seq()}`).toBe("10");
    expect(new TextDecoder().decode(it.start())).toBe("e");
  });
});
