/**
 * Version.apply under invariants (on in tests): LevelDB's "overlapping ranges in same level"
 * and sorted levels, checked on every edit — what a damaged or wrongly built edit would
 * otherwise install silently.
 */
import {
  bytewiseComparator,
  InternalKeyComparator,
  invariants,
  makeInternalKey,
  ShaleError,
  ValueKind,
} from "@shale/base";
import { describe, expect, it } from "vitest";
import { type FileMetaData, VersionEdit } from "./version-edit.js";
import { checkLevelOrdering, Version } from "./version-set.js";

const icmp = new InternalKeyComparator(bytewiseComparator);
const text = (s: string) => new TextEncoder().encode(s);

/** `12:a#5-k#9` -> a file. */
function f(spec: string): FileMetaData {
  const m = /^(\d+):(\w+)#(\d+)-(\w+)#(\d+)$/.exec(spec)!;
  const s1 = Number(m[3]);
  const s2 = Number(m[5]);
  return {
    number: Number(m[1]),
    size: 100,
    smallest: makeInternalKey(text(m[2]!), s1, ValueKind.Value),
    largest: makeInternalKey(text(m[4]!), s2, ValueKind.Value),
    smallestSeq: Math.min(s1, s2),
    largestSeq: Math.max(s1, s2),
  };
}

function apply(v: Version, add: [number, string][], del: [number, number][] = []): Version {
  const e = new VersionEdit();
  for (const [level, n] of del) e.deleteFile(level, n);
  for (const [level, spec] of add) e.addFile(level, f(spec));
  return v.apply(e, icmp, "MANIFEST-000007", 321);
}

describe("Version.apply ordering checks (invariants)", () => {
  it("runs with invariants on in tests", () => {
    expect(invariants).toBe(true);
  });

  it("sorts L1+ by smallest key and L0 newest first", () => {
    const v = apply(Version.empty(), [
      [1, "3:m#1-p#1"],
      [1, "4:a#1-c#1"],
      [0, "5:a#2-z#3"],
      [0, "6:b#4-c#8"],
    ]);
    expect(v.toString()).toBe(
      [
        "L0: 6[b#4,SET .. c#8,SET] 5[a#2,SET .. z#3,SET]",
        "L1: 4[a#1,SET .. c#1,SET] 3[m#1,SET .. p#1,SET]",
      ].join("\n"),
    );
  });

  it("L0 files may overlap", () => {
    expect(() =>
      apply(Version.empty(), [
        [0, "5:a#2-z#3"],
        [0, "6:b#4-c#8"],
      ]),
    ).not.toThrow();
  });

  it("refuses overlapping ranges in the same level above L0, naming the edit", () => {
    const v = apply(Version.empty(), [[2, "3:a#1-f#1"]]);
    try {
      apply(v, [[2, "4:e#2-k#2"]]);
      expect.unreachable();
    } catch (e) {
      expect(ShaleError.isInstance(e) && e.code).toBe("Corruption");
      expect(String(e)).toMatch(
        /overlapping ranges in same level L2: 3\[a#1,SET .. f#1,SET\] vs 4\[e#2,SET .. k#2,SET\]/,
      );
      expect((e as ShaleError).file).toBe("MANIFEST-000007");
      expect((e as ShaleError).offset).toBe(321);
    }
  });

  it("refuses two files sharing a boundary key above L0", () => {
    const v = apply(Version.empty(), [[1, "3:a#5-f#5"]]);
    expect(() => apply(v, [[1, "4:f#5-k#2"]])).toThrow(/overlapping ranges/);
    // The same user key at different sequence numbers does not overlap (f#5 > f#4).
    expect(() => apply(v, [[1, "4:f#4-k#2"]])).not.toThrow();
  });

  it("accepts a compaction that replaces the overlapping file", () => {
    const v = apply(Version.empty(), [[1, "3:a#1-f#1"]]);
    const w = apply(
      v,
      [
        [1, "4:e#2-k#2"],
        [1, "5:a#1-d#1"],
      ],
      [[1, 3]],
    );
    expect(w.numFiles(1)).toBe(2);
  });

  it("refuses a file whose smallest key is above its largest", () => {
    expect(() => apply(Version.empty(), [[0, "3:z#1-a#1"]])).toThrow(/smallest > largest/);
    expect(() => checkLevelOrdering([[f("3:a#1-b#1")]], icmp)).not.toThrow();
  });

  it("refuses deleting a file the version does not have", () => {
    expect(() => apply(Version.empty(), [], [[1, 99]])).toThrow(/deletes unknown file 99 at L1/);
  });
});
