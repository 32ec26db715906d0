/**
 * Merge resolution in the DB iterator: operands in one source or spread over several, a base
 * in an older source, a deletion or a range tombstone below, reads at snapshots, in both
 * directions; failing operators and missing operators.
 */
import { bytewiseComparator, isShaleError, MAX_SEQ, Statistics, Ticker } from "@shale/base";
import { describe, expect, it } from "vitest";
import { type MergeOperator, maxOperator, stringAppendOperator } from "../core/merge-operator.js";
import { type DBIterator, newDBIterator } from "./index.js";
import {
  buildSources,
  type SourceKind,
  scanBackward,
  scanForward,
  type Write,
  w,
} from "./sources.test-support.js";

const append = stringAppendOperator();

function open(
  groups: Write[][],
  kinds: SourceKind[],
  operator: MergeOperator | null = append,
  snapshotSeq = MAX_SEQ,
  statistics?: Statistics,
): DBIterator {
  const built = buildSources(groups, kinds, bytewiseComparator);
  return newDBIterator({
    children: built.children,
    rangeTombstones: built.rangeTombstones,
    comparator: bytewiseComparator,
    mergeOperator: operator ?? undefined,
    snapshotSeq,
    childMaxSeqs: built.childMaxSeqs,
    ...(statistics !== undefined ? { statistics } : {}),
  });
}

/** Forward and backward scans agree; returns the forward one. */
function scan(it: DBIterator): string[] {
  const forward = scanForward(it);
  expect(scanBackward(it)).toEqual([...forward].reverse());
  return forward;
}

describe("DBIterator merges", () => {
  it("merges operands held in one source", () => {
    const it = open(
      [
        [
          w("merge", "a", "x", 1),
          w("merge", "a", "y", 2),
          w("merge", "a", "z", 3),
          w("put", "b", "B", 4),
        ],
      ],
      ["mem"],
    );
    expect(scan(it)).toEqual(["a=x,y,z", "b=B"]);
    it.close();
  });

  it("merges operands spread over sources, newest source first", () => {
    for (const kinds of [
      ["mem", "mem", "table"],
      ["table", "table", "table"],
      ["mem", "table", "mem"],
    ] as SourceKind[][]) {
      const it = open(
        [
          [w("merge", "k", "c", 7), w("put", "z", "Z", 8)],
          [w("merge", "k", "b", 5), w("put", "a", "A", 6)],
          [w("merge", "k", "a", 2)],
        ],
        kinds,
      );
      expect(scan(it)).toEqual(["a=A", "k=a,b,c", "z=Z"]);
      it.close();
    }
  });

  it("uses a base value from an older source and stops at it", () => {
    const it = open(
      [
        [w("merge", "k", "m2", 9), w("merge", "k", "m1", 8)],
        [w("put", "k", "base", 5), w("merge", "k", "ignored", 3)],
        [w("put", "k", "older", 1)],
      ],
      ["mem", "table", "table"],
    );
    expect(scan(it)).toEqual(["k=base,m1,m2"]);
    it.close();
  });

  it("merges onto no base above a deletion", () => {
    for (const kind of ["del", "sdel"] as const) {
      const it = open(
        [
          [w("merge", "k", "m1", 8), w("merge", "k", "m2", 9)],
          [w(kind, "k", "", 5)],
          [w("put", "k", "old", 1)],
        ],
        ["mem", "mem", "table"],
      );
      expect(scan(it)).toEqual(["k=m1,m2"]);
      it.close();
    }
  });

  it("drops operands and bases under a newer range tombstone", () => {
    const it = open(
      [
        [w("merge", "k", "new", 9), w("put", "j", "J", 10)],
        [w("rangedel", "a", "z", 6)],
        [w("merge", "k", "old", 4), w("put", "k", "base", 2), w("put", "m", "gone", 3)],
      ],
      ["mem", "mem", "table"],
    );
    expect(scan(it)).toEqual(["j=J", "k=new"]);
    it.close();
  });

  it("resolves each snapshot's view of the history", () => {
    const groups = [
      [w("merge", "k", "d", 9), w("merge", "k", "c", 7)],
      [w("del", "k", "", 6), w("merge", "k", "b", 4)],
      [w("put", "k", "a", 2)],
    ];
    const expected: Record<number, string[]> = {
      1: [],
      2: ["k=a"],
      3: ["k=a"],
      4: ["k=a,b"],
      6: [],
      7: ["k=c"],
      8: ["k=c"],
      9: ["k=c,d"],
    };
    for (const [snapshot, want] of Object.entries(expected)) {
      const it = open(groups, ["mem", "table", "table"], append, Number(snapshot));
      expect(scan(it), `snapshot ${snapshot}`).toEqual(want);
      it.close();
    }
  });

  it("works with the built-in max operator, whatever the order of operands", () => {
    const it = open(
      [
        [w("merge", "k", "3", 9), w("merge", "n", "1", 10)],
        [w("merge", "k", "7", 5), w("put", "n", "5", 3)],
        [w("put", "k", "4", 1)],
      ],
      ["mem", "table", "table"],
      maxOperator,
    );
    expect(scan(it)).toEqual(["k=7", "n=5"]);
    it.close();
  });

  it("resolves a key with many operands (more than the reseek threshold) both ways", () => {
    const writes = [w("put", "a", "A", 1), w("put", "c", "C", 2)];
    for (let i = 0; i < 30; i++)
      writes.push(w("merge", "b", String.fromCharCode(97 + (i % 26)), 10 + i));
    writes.push(w("put", "b", "base", 5));
    const want = `b=base,${Array.from({ length: 30 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(",")}`;
    const it = open([writes], ["table"]);
    expect(scan(it)).toEqual(["a=A", want, "c=C"]);
    it.seek("b");
    it.prev();
    it.next();
    expect(`b=${new TextDecoder().decode(it.value())}`).toBe(want);
    it.close();
  });

  it("throws Corruption when the operator fails, in both directions", () => {
    const failing: MergeOperator = { name: "failing", fullMerge: () => undefined };
    const stats = new Statistics();
    const it = open(
      [[w("merge", "k", "x", 2), w("put", "a", "A", 1)]],
      ["mem"],
      failing,
      MAX_SEQ,
      stats,
    );
    it.seek("a");
    expect(it.valid()).toBe(true);
    expect(() => it.next()).toThrow(expect.objectContaining({ code: "Corruption" }));
    expect(it.valid()).toBe(false);
    expect(() => it.seekToLast()).toThrow(expect.objectContaining({ code: "Corruption" }));
    expect(it.valid()).toBe(false);
    expect(stats.getTicker(Ticker.MergeFailures)).toBe(2);
    it.close();
  });

  it("needs a merge operator only for keys that need merging", () => {
    const it = open(
      [[w("put", "a", "A", 5), w("merge", "b", "x", 6)], [w("merge", "a", "old", 1)]],
      ["mem", "table"],
      null,
    );
    it.seek("a");
    expect(it.valid()).toBe(true); // the operand is hidden by the newer put
    let error: unknown;
    try {
      it.next();
    } catch (e) {
      error = e;
    }
    expect(isShaleError(error, "InvalidArgument")).toBe(true);
    expect(() => it.seekForPrev("b")).toThrow(expect.objectContaining({ code: "InvalidArgument" }));
    it.seekForPrev("a\u0000");
    expect(it.valid()).toBe(true);
    it.close();
  });

  it("counts merges in statistics and returns a fresh merged value", () => {
    const stats = new Statistics();
    const it = open(
      [[w("merge", "k", "x", 2), w("merge", "k", "y", 3)]],
      ["mem"],
      append,
      MAX_SEQ,
      stats,
    );
    it.seekToFirst();
    const first = it.value();
    it.seekToLast();
    expect(new TextDecoder().decode(first)).toBe("x,y");
    expect(stats.getTicker(Ticker.MergeOperations)).toBe(2);
    it.close();
  });
});
