/**
 * Version.apply under invariants (on in tests), data-driven (testdata/version/*.txt):
 * LevelDB's "overlapping ranges in same level" and sorted levels, checked on every edit —
 * what a damaged or wrongly built edit would otherwise install silently. An edit read from a
 * MANIFEST (`apply from=<file>@<offset>`) fails with Corruption naming the record; one the
 * engine built fails with AssertionFailed (an engine bug, not damage).
 *
 * Commands:
 * - `define` — input: `L<n> <file>` lines (test-support/lsm-text); output: the version.
 * - `apply [from=<file>@<offset>]` — input: `add L<n> <file>` / `del L<n> <number>`; output:
 *   the new version (which later cases build on) or `error: <message>`.
 * - `check-ordering` — input: `L<n> <file>` lines kept in the order given (not sorted);
 *   output: `ok` or the error `checkLevelOrdering` throws.
 */
import { invariants } from "@shale/base";
import { dataDrivenTests, expectShaleError } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import {
  errorText,
  icmp,
  inputLines,
  parseEdit,
  parseFile,
  parseLevelLine,
  parseVersion,
  versionText,
} from "../test-support/lsm-text.test-support.js";
import type { FileMetaData } from "./version-edit.js";
import { checkLevelOrdering, Version } from "./version-set.js";

describe("Version.apply ordering checks (invariants)", () => {
  it("runs with invariants on in tests", () => {
    expect(invariants).toBe(true);
  });

  it("an overlapping edit from a MANIFEST is Corruption naming the record", () => {
    const v = parseVersion("L2 3:a#1-f#1");
    const edit = parseEdit("add L2 4:e#2-k#2");
    expectShaleError(() => v.apply(edit, icmp, "MANIFEST-000007", 321), "Corruption", {
      message: "overlapping ranges in same level L2",
      file: "MANIFEST-000007",
      offset: 321,
    });
  });

  it("an overlapping edit built by the engine is AssertionFailed", () => {
    const v = parseVersion("L2 3:a#1-f#1");
    expectShaleError(() => v.apply(parseEdit("add L2 4:e#2-k#2"), icmp), "AssertionFailed", {
      message: "overlapping ranges in same level L2",
    });
  });

  it("checkLevelOrdering refuses a level out of order", () => {
    const levels = [[], [parseFile("4:c#1-d#1"), parseFile("3:a#1-b#1")]];
    expectShaleError(() => checkLevelOrdering(levels, icmp), "AssertionFailed");
  });
});

dataDrivenTests(new URL("../../testdata/version", import.meta.url), () => {
  let version = Version.empty();
  return (c) => {
    switch (c.cmd) {
      case "define":
        version = parseVersion(c.input);
        return versionText(version);
      case "apply": {
        const from = c.hasArg("from") ? c.arg("from").split("@") : undefined;
        try {
          version = version.apply(
            parseEdit(c.input),
            icmp,
            from?.[0],
            from?.[1] === undefined ? undefined : Number(from[1]),
          );
          return versionText(version);
        } catch (e) {
          return errorText(e);
        }
      }
      case "check-ordering": {
        const levels: FileMetaData[][] = Array.from({ length: 7 }, () => []);
        for (const line of inputLines(c.input)) {
          const [level, f] = parseLevelLine(line);
          levels[level]!.push(f);
        }
        try {
          checkLevelOrdering(levels, icmp);
          return "ok";
        } catch (e) {
          return errorText(e);
        }
      }
      default:
        return c.fail("unknown command");
    }
  };
});
