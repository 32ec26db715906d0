/**
 * The compaction picker, data-driven (testdata/picker/*.txt), and its invariant check.
 *
 * Commands:
 * - `define [trigger=4] [base=10M] [multiplier=10] [target=2M]` — input: `L<n> <file>` lines
 *   (test-support/lsm-text); a new picker (cursors reset) over that version; output: the
 *   files with their sizes.
 * - `scores [busy=(n, ...)]` — the score of L0..L5, two decimals.
 * - `pick [busy=(n, ...)] [running=(L<a>->L<b>:<lo>-<hi>, ...)]` — the automatic pick:
 *   `Compaction.toString()`, then its reason, score, key range and grandparents; or `none`.
 * - `pick-manual level=<n> [range=<lo>-<hi>] [busy=(...)]` — a manual pick, or `empty`/`busy`.
 * - `cursor level=<n>` — the compact cursor of a level (`none` before its first pick).
 * - `apply` — input: an edit (`add L<n> <file>` / `del L<n> <number>`), applied to the version.
 */
import {
  dataDrivenTests,
  expectShaleError,
  internalKeyText,
  keyText,
  parseKeyText,
} from "@shale/base/testing";
import { describe, it } from "vitest";
import {
  errorText,
  icmp,
  parseEdit,
  parseSize,
  parseVersion,
  versionText,
} from "../test-support/lsm-text.test-support.js";
import type { KeyRange } from "../version/key-range.js";
import { Version } from "../version/version-set.js";
import { Compaction, CompactionReason } from "./compaction.js";
import { CompactionPicker, checkPick, type RunningCompaction } from "./picker.js";

const MB = 1024 * 1024;

function rangeText(r: KeyRange): string {
  return `[${keyText(r.lo)}, ${keyText(r.hi)}${r.hiExclusive ? ")" : "]"}`;
}

function compactionText(c: Compaction): string {
  const grandparents = c.grandparents.map((f) => f.number).join(",");
  return [
    c.toString(),
    `  reason: ${c.reason}, score ${c.score.toFixed(2)}`,
    `  range: ${rangeText(c.range)}`,
    `  grandparents: ${grandparents === "" ? "none" : grandparents}`,
  ].join("\n");
}

function parseRange(text: string): KeyRange {
  const [lo, hi] = text.split("-");
  if (lo === undefined || hi === undefined) throw new TypeError(`bad range ${text}`);
  return { lo: parseKeyText(lo), hi: parseKeyText(hi), hiExclusive: false };
}

/** `L2->L3:a-z` -> a running compaction. */
function parseRunning(text: string): RunningCompaction {
  const m = /^L(\d)->L(\d):(.+)$/.exec(text);
  if (m === null) throw new TypeError(`bad running compaction ${text}: want L<a>->L<b>:lo-hi`);
  return { level: Number(m[1]), outputLevel: Number(m[2]), range: parseRange(m[3]!) };
}

describe("checkPick (invariants)", () => {
  it("refuses a pick that splits one user key's versions between picked and left files", () => {
    const v = parseVersion("L1 1:a#1-c#9\nL1 2:c#5-e#5\nL1 3:f#1-h#1");
    const broken = new Compaction({
      version: v,
      level: 1,
      inputs: [[v.levels[1]![1]!], []],
      reason: CompactionReason.LevelSize,
      score: 1,
      ucmp: icmp.user,
      allowTrivialMove: false,
      maxGrandparentOverlapBytes: 20 * MB,
    });
    expectShaleError(() => checkPick(icmp.user, v, broken, new Set()), "AssertionFailed", {
      message: "shares a user key with the inputs",
    });
  });

  it("refuses a pick that leaves out an overlapping output file or takes a busy one", () => {
    const v = parseVersion("L0 1:a#5-c#5\nL1 2:b#1-d#1");
    const make = (outputs: (typeof v.levels)[1]) =>
      new Compaction({
        version: v,
        level: 0,
        inputs: [v.levels[0]!, outputs],
        reason: CompactionReason.Manual,
        score: 0,
        ucmp: icmp.user,
        allowTrivialMove: false,
        maxGrandparentOverlapBytes: 20 * MB,
      });
    expectShaleError(() => checkPick(icmp.user, v, make([]), new Set()), "AssertionFailed", {
      message: "overlaps the inputs but is left out",
    });
    expectShaleError(
      () => checkPick(icmp.user, v, make(v.levels[1]!), new Set([2])),
      "AssertionFailed",
      {
        message: "file 2 is busy",
      },
    );
  });
});

dataDrivenTests(new URL("../../testdata/picker", import.meta.url), () => {
  let version = Version.empty();
  let picker = new CompactionPicker(icmp, {
    level0FileNumCompactionTrigger: 4,
    maxBytesForLevelBase: 10 * MB,
    maxBytesForLevelMultiplier: 10,
    targetFileSizeBase: 2 * MB,
  });
  const busyOf = (values: string[]) => new Set(values.map(Number));
  return (c) => {
    switch (c.cmd) {
      case "define":
        picker = new CompactionPicker(icmp, {
          level0FileNumCompactionTrigger: c.numArg("trigger", 4),
          maxBytesForLevelBase: parseSize(c.arg("base", "10M")),
          maxBytesForLevelMultiplier: c.numArg("multiplier", 10),
          targetFileSizeBase: parseSize(c.arg("target", "2M")),
        });
        version = parseVersion(c.input);
        return versionText(version, true);
      case "scores":
        return picker
          .scores(version, busyOf(c.argValues("busy")))
          .map((s, level) => `L${level}: ${s.toFixed(2)}`)
          .join("\n");
      case "pick": {
        const p = picker.pick(
          version,
          busyOf(c.argValues("busy")),
          c.argValues("running").map(parseRunning),
        );
        return p === undefined ? "none" : compactionText(p);
      }
      case "pick-manual": {
        const range = c.hasArg("range") ? parseRange(c.arg("range")) : undefined;
        const p = picker.pickManual(
          version,
          c.numArg("level"),
          range,
          busyOf(c.argValues("busy")),
          [],
        );
        return typeof p === "string" ? p : compactionText(p);
      }
      case "cursor": {
        const k = picker.compactCursor(c.numArg("level"));
        return k === undefined ? "none" : internalKeyText(k);
      }
      case "apply":
        try {
          version = version.apply(parseEdit(c.input), icmp);
          return versionText(version, true);
        } catch (e) {
          return errorText(e);
        }
      default:
        return c.fail("unknown command");
    }
  };
});
