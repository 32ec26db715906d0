import {
  bytewiseComparator,
  InternalKeyComparator,
  MAX_SEQ,
  makeInternalKey,
  ValueKind,
} from "@shale/base";
import { describe, expect, it } from "vitest";
import { type FileMetaData, VersionEdit } from "../version-edit.js";
import { Version } from "../version-set.js";
import type { Compaction } from "./compaction.js";
import { CompactionPicker } from "./picker.js";

const icmp = new InternalKeyComparator(bytewiseComparator);
const enc = (s: string) => new TextEncoder().encode(s);
const MB = 1024 * 1024;

interface FileSpec {
  n: number;
  lo: string;
  hi: string;
  size?: number;
  seq?: number;
  loSeq?: number;
  hiSeq?: number;
  /** The largest key is a range-tombstone sentinel `hi#MAX,RANGEDEL`. */
  sentinel?: boolean;
}

function file(s: FileSpec): FileMetaData {
  const seq = s.seq ?? s.n;
  return {
    number: s.n,
    size: s.size ?? MB,
    smallest: makeInternalKey(enc(s.lo), s.loSeq ?? seq, ValueKind.Value),
    largest: s.sentinel
      ? makeInternalKey(enc(s.hi), MAX_SEQ, ValueKind.RangeDeletion)
      : makeInternalKey(enc(s.hi), s.hiSeq ?? seq, ValueKind.Value),
    smallestSeq: seq,
    largestSeq: seq,
  };
}

function version(levels: Record<number, FileSpec[]>): Version {
  const edit = new VersionEdit();
  for (const [level, files] of Object.entries(levels))
    for (const f of files) edit.addFile(Number(level), file(f));
  return Version.empty().apply(edit, icmp);
}

const options = {
  level0FileNumCompactionTrigger: 4,
  maxBytesForLevelBase: 10 * MB,
  maxBytesForLevelMultiplier: 10,
  targetFileSizeBase: 2 * MB,
};

const numbers = (c: Compaction | undefined) =>
  c === undefined
    ? undefined
    : [c.inputs[0].map((f) => f.number), c.inputs[1].map((f) => f.number)];

describe("CompactionPicker", () => {
  it("scores L0 by file count and deeper levels by bytes over their target", () => {
    const p = new CompactionPicker(icmp, options);
    expect(p.maxBytesForLevel(1)).toBe(10 * MB);
    expect(p.maxBytesForLevel(3)).toBe(1000 * MB);
    const v = version({
      0: [1, 2].map((n) => ({ n, lo: "a", hi: "z" })),
      1: [{ n: 3, lo: "a", hi: "c", size: 15 * MB }],
      2: [{ n: 4, lo: "a", hi: "c", size: 50 * MB }],
    });
    const scores = p.scores(v, new Set());
    expect(scores).toHaveLength(6);
    expect(scores[0]).toBe(0.5);
    expect(scores[1]).toBe(1.5);
    expect(scores[2]).toBe(0.5);
    // Files being compacted do not count.
    expect(p.scores(v, new Set([1, 3]))[0]).toBe(0.25);
    expect(p.scores(v, new Set([1, 3]))[1]).toBe(0);
  });

  it("picks nothing below every trigger, and L0 once it reaches its trigger", () => {
    const p = new CompactionPicker(icmp, options);
    const three = version({ 0: [1, 2, 3].map((n) => ({ n, lo: "a", hi: "m" })) });
    expect(p.pick(three, new Set(), [])).toBeUndefined();
    const four = version({
      0: [1, 2, 3, 4].map((n) => ({ n, lo: "a", hi: "m" })),
      1: [
        { n: 10, lo: "a", hi: "c" },
        { n: 11, lo: "k", hi: "p" },
        { n: 12, lo: "q", hi: "z" },
      ],
    });
    const c = p.pick(four, new Set(), [])!;
    expect(c.level).toBe(0);
    expect(c.outputLevel).toBe(1);
    expect(numbers(c)).toEqual([
      [4, 3, 2, 1],
      [10, 11],
    ]);
    expect(c.trivialMove).toBe(false);
  });

  it("takes the oldest L0 file and every L0 file overlapping, transitively", () => {
    const p = new CompactionPicker(icmp, { ...options, level0FileNumCompactionTrigger: 2 });
    const v = version({
      0: [
        { n: 1, lo: "a", hi: "c", seq: 1 }, // oldest
        { n: 2, lo: "c", hi: "e", seq: 2 }, // overlaps 1
        { n: 3, lo: "e", hi: "g", seq: 3 }, // overlaps 2 only
        { n: 4, lo: "x", hi: "z", seq: 4 }, // overlaps nothing
      ],
    });
    expect(numbers(p.pick(v, new Set(), []))).toEqual([[3, 2, 1], []]);
    // One L0 compaction at a time.
    expect(p.pick(v, new Set([4]), [])).toBeUndefined();
  });

  it("moves a single file that overlaps nothing below without rewriting it", () => {
    const p = new CompactionPicker(icmp, { ...options, level0FileNumCompactionTrigger: 1 });
    const v = version({ 0: [{ n: 1, lo: "a", hi: "c" }], 1: [{ n: 2, lo: "d", hi: "f" }] });
    const c = p.pick(v, new Set(), [])!;
    expect(c.trivialMove).toBe(true);
    expect(c.edit(c.inputs[0]).newFiles.map((x) => [x.level, x.file.number])).toEqual([[1, 1]]);
    // Overlap in the output level: a real compaction.
    const w = version({ 0: [{ n: 1, lo: "a", hi: "e" }], 1: [{ n: 2, lo: "d", hi: "f" }] });
    expect(p.pick(w, new Set(), [])!.trivialMove).toBe(false);
    // Too much overlap with the grandparent level (> 10 x 2 MiB): rewritten.
    const g = version({
      0: [{ n: 1, lo: "a", hi: "c" }],
      2: [{ n: 3, lo: "a", hi: "c", size: 21 * MB }],
    });
    const gc = p.pick(g, new Set(), [])!;
    expect(gc.trivialMove).toBe(false);
    expect(gc.grandparents.map((f) => f.number)).toEqual([3]);
  });

  it("widens the inputs so that no user key is split between picked and left files", () => {
    const p = new CompactionPicker(icmp, { ...options, maxBytesForLevelBase: MB });
    // L1: 1 and 2 share user key "c" (c#9 in 1, c#5 in 2); 3 starts after.
    const v = version({
      1: [
        { n: 1, lo: "a", hi: "c", hiSeq: 9, size: 2 * MB },
        { n: 2, lo: "c", hi: "e", loSeq: 5 },
        { n: 3, lo: "f", hi: "h" },
      ],
      2: [
        { n: 4, lo: "b", hi: "d", hiSeq: 3 },
        { n: 5, lo: "d", hi: "g", loSeq: 2 }, // shares "d" with 4
        { n: 6, lo: "i", hi: "k" },
      ],
    });
    expect(numbers(p.pick(v, new Set(), []))).toEqual([
      [1, 2],
      [4, 5],
    ]);
    // A file ending in a tombstone sentinel at "c" does not hold "c": no widening.
    const s = version({
      1: [
        { n: 1, lo: "a", hi: "c", sentinel: true, size: 2 * MB },
        { n: 2, lo: "c", hi: "e" },
      ],
    });
    expect(numbers(p.pick(s, new Set(), []))).toEqual([[1], []]);
  });

  it("walks a level round-robin with its compact cursor", () => {
    const p = new CompactionPicker(icmp, { ...options, maxBytesForLevelBase: MB });
    const v = version({
      1: [
        { n: 1, lo: "a", hi: "b" },
        { n: 2, lo: "c", hi: "d" },
        { n: 3, lo: "e", hi: "f" },
      ],
    });
    const picked: number[] = [];
    for (let i = 0; i < 4; i++) picked.push(p.pick(v, new Set(), [])!.inputs[0][0]!.number);
    expect(picked).toEqual([1, 2, 3, 1]);
    expect(p.compactCursor(1)).toEqual(file({ n: 1, lo: "a", hi: "b" }).largest);
    // Busy files are skipped.
    expect(p.pick(v, new Set([2]), [])!.inputs[0][0]!.number).toBe(3);
  });

  it("prefers the highest score and falls back when its candidates are busy", () => {
    const p = new CompactionPicker(icmp, options);
    const v = version({
      0: [1, 2, 3, 4, 5].map((n) => ({ n, lo: "a", hi: "m" })), // 1.25
      1: [{ n: 10, lo: "a", hi: "z", size: 20 * MB }], // 2.0, overlaps every L0 file
      2: [{ n: 20, lo: "a", hi: "z", size: 150 * MB }], // 1.5
    });
    expect(p.pick(v, new Set(), [])!.level).toBe(1);
    // L1's file is busy: L2 goes next (L0 needs it as an output file).
    expect(p.pick(v, new Set([10]), [])!.level).toBe(2);
    // A running compaction writing an overlapping range to the same output level blocks it.
    const running = [
      { level: 2, outputLevel: 3, range: { lo: enc("a"), hi: enc("z"), hiExclusive: false } },
    ];
    expect(p.pick(v, new Set([10]), running)).toBeUndefined();
  });

  it("picks manual compactions over a range, never as a trivial move", () => {
    const p = new CompactionPicker(icmp, options);
    const v = version({
      0: [
        { n: 1, lo: "a", hi: "c", seq: 1 },
        { n: 2, lo: "x", hi: "z", seq: 2 },
      ],
      1: [{ n: 3, lo: "b", hi: "d" }],
    });
    const all = p.pickManual(v, 0, undefined, new Set(), []);
    expect(all).not.toBe("empty");
    expect(numbers(all as Compaction)).toEqual([[2, 1], [3]]);
    const range = { lo: enc("y"), hi: enc("y"), hiExclusive: false };
    const some = p.pickManual(v, 0, range, new Set(), []) as Compaction;
    expect(numbers(some)).toEqual([[2], []]);
    expect(some.trivialMove).toBe(false);
    expect(p.pickManual(v, 2, undefined, new Set(), [])).toBe("empty");
    expect(p.pickManual(v, 0, undefined, new Set([3]), [])).toBe("busy");
  });
});
