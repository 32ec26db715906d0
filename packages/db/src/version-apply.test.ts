/**
 * Version.apply under invariants (on in tests): LevelDB's "overlapping ranges in same level"
 * and sorted levels, checked on every edit — what a damaged or wrongly built edit would
 * otherwise install silently.
 */

import { readFileSync } from "node:fs";
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

  it("checkLevelOrdering accepts a whole version and refuses one out of order", () => {
    expect(() => checkLevelOrdering([[], [f("3:a#1-b#1"), f("4:c#1-d#1")]], icmp)).not.toThrow();
    expect(() => checkLevelOrdering([[], [f("4:c#1-d#1"), f("3:a#1-b#1")]], icmp)).toThrow(
      /overlapping ranges in same level L1/,
    );
  });
});

/** The cases of testdata/version/apply.txt (format at the top of that file). */
function cases(): {
  name: string;
  start: [number, string][];
  add: [number, string][];
  del: [number, number][];
  expected: string;
}[] {
  const text = readFileSync(new URL("../testdata/version/apply.txt", import.meta.url), "utf8");
  const out: ReturnType<typeof cases> = [];
  for (const chunk of text.split(/^case /m).slice(1)) {
    const [head, expected] = chunk.split(/^----\n/m) as [string, string];
    const lines = head.split("\n");
    const c = {
      name: lines[0]!.trim(),
      start: [],
      add: [],
      del: [],
      expected: expected.trim(),
    } as ReturnType<typeof cases>[number];
    let inEdit = false;
    for (const raw of lines.slice(1)) {
      const line = raw.trim();
      if (line === "" || line.startsWith("#")) continue;
      if (line === "edit") {
        inEdit = true;
        continue;
      }
      const m = /^(?:(add|del) )?L(\d) (\S+)$/.exec(line);
      if (m === null) throw new Error(`apply.txt: cannot read ${JSON.stringify(line)}`);
      const level = Number(m[2]);
      if (!inEdit) c.start.push([level, m[3]!]);
      else if (m[1] === "add") c.add.push([level, m[3]!]);
      else c.del.push([level, Number(m[3])]);
    }
    out.push(c);
  }
  return out;
}

describe("Version.apply (testdata/version/apply.txt)", () => {
  for (const c of cases()) {
    it(c.name, () => {
      const start = apply(Version.empty(), c.start);
      let got: string;
      try {
        got = apply(start, c.add, c.del).toString();
      } catch (e) {
        got = `error: ${String(e)}`;
      }
      if (c.expected.startsWith("error: ")) {
        expect(got.startsWith("error: ")).toBe(true);
        expect(got).toContain(c.expected.slice("error: ".length));
      } else {
        expect(got).toBe(c.expected);
      }
    });
  }
});
