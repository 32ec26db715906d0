import { describe, expect, it } from "vitest";
import { markdownTable, median, parseSeedArgs, SeedUsageError } from "./driver.js";
import { mergeBench } from "./merge-bench.js";
import { SEED_000_DEFAULTS, seed000 } from "./seed-000-merge.js";
import {
  fillFlags,
  mismatches,
  PR_COUNTS,
  seed001,
  tombstoneCounts,
  variants,
} from "./seed-001-range-del.js";
import { seed002 } from "./seed-002-get-view.js";

// The end-to-end tests run the built db-bench (dist/main.js) in child processes: build first.

describe("seed driver", () => {
  it("parses --name=value into the defaults' kinds and passes what follows -- on", () => {
    const defaults = { num: 5, runs: 9, compact: true, db: "", counts: [] as number[] };
    expect(parseSeedArgs([], defaults)).toEqual({ options: defaults, extra: [] });
    const { options, extra } = parseSeedArgs(
      ["--num=7", "--nocompact", "--db=/x", "--counts=1,20", "--", "--cache_size=9", "--num=3"],
      defaults,
    );
    expect(options).toEqual({ num: 7, runs: 9, compact: false, db: "/x", counts: [1, 20] });
    expect(extra).toEqual(["--cache_size=9", "--num=3"]);
    expect(parseSeedArgs(["--compact=false"], defaults).options.compact).toBe(false);
    expect(parseSeedArgs(["--cache_size=3"], SEED_000_DEFAULTS).options.cacheSize).toBe(3);
    for (const bad of [["--nmu=1"], ["--num=x"], ["--num"], ["num=1"], ["--compact=maybe"]])
      expect(() => parseSeedArgs(bad, defaults)).toThrow(SeedUsageError);
  });

  it("takes medians and draws Markdown tables", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeNaN();
    expect(
      markdownTable([
        ["name", "value"],
        ["a", "1.5"],
        ["longer", "10.25"],
      ]),
    ).toBe(
      ["| name   | value |", "|--------|------:|", "| a      |   1.5 |", "| longer | 10.25 |"].join(
        "\n",
      ),
    );
  });
});

describe("seed 001 schedule", () => {
  it("scales the PR's counts to --num and spreads them over the last 10% of the puts", () => {
    expect(tombstoneCounts(5_000_000, [])).toEqual(PR_COUNTS);
    expect(tombstoneCounts(200_000, [])).toEqual([20, 40, 200, 400, 1000, 2000]);
    expect(tombstoneCounts(1000, [])).toEqual([1, 1, 1, 2, 5, 10]);
    expect(tombstoneCounts(1000, [7])).toEqual([7]);
    const list = variants([20, 40], true);
    expect(list.map((v) => v.label)).toEqual([
      "none",
      "500 expanded",
      "500 unexpanded",
      "1k expanded",
      "1k unexpanded",
    ]);
    expect(fillFlags(200_000, 100, list[0]!)).toEqual([]);
    expect(fillFlags(200_000, 100, list[1]!)).toEqual([
      "--writes_before_delete_range=180000",
      "--writes_per_range_tombstone=1000",
      "--max_num_range_tombstones=20",
      "--range_tombstone_width=100",
      "--expand_range_tombstones",
    ]);
    // The PR's largest: 50k tombstones in the last 500k of 5M puts, one every 10 puts.
    const pr = variants(PR_COUNTS, true).at(-1)!;
    expect(fillFlags(5_000_000, 100, pr)).toContain("--writes_per_range_tombstone=10");
    expect(() => fillFlags(1000, 100, { ...pr, count: 101 })).toThrow(/do not fit/);
  });

  it("runs end to end: expanded and unexpanded deletions find the same keys, fewer than none", async () => {
    const out: string[] = [];
    const figures = await seed001(
      ["--num=3000", "--counts=3,30", "--rounds=1", "--reads=2000"],
      (s) => out.push(...s.split("\n")),
    );
    expect(figures.map((f) => f.label)).toEqual([
      "none",
      "3 expanded",
      "3 unexpanded",
      "30 expanded",
      "30 unexpanded",
    ]);
    expect(figures.map((f) => f.written)).toEqual([0, 3, 3, 30, 30]);
    expect(mismatches(figures)).toEqual([]);
    expect(figures[3]!.found).toBe(figures[4]!.found);
    expect(Number(figures[4]!.found)).toBeLessThan(Number(figures[0]!.found));
    for (const f of figures) {
      expect(f.readrandom).toBeGreaterThan(0);
      expect(f.readwhilewriting).toBeGreaterThan(0);
    }
    expect(out.some((l) => l.startsWith("| 30 unexpanded | "))).toBe(true);
    expect(out.some((l) => l.startsWith("MISMATCH"))).toBe(false);
  });

  it("with --compact reads every variant on a compacted tree, the same keys found", async () => {
    const out: string[] = [];
    const figures = await seed001(
      ["--num=3000", "--counts=30", "--rounds=1", "--reads=2000", "--compact"],
      (s) => out.push(...s.split("\n")),
    );
    expect(out[0]).toContain("compacted after the fill");
    expect(figures.map((f) => f.label)).toEqual(["none", "30 expanded", "30 unexpanded"]);
    expect(mismatches(figures)).toEqual([]);
    expect(Number(figures[2]!.found)).toBeLessThan(Number(figures[0]!.found));
  });
});

describe("seed 002", () => {
  it("alternates getView and get at each value size, in one process, and prints the table", async () => {
    const out: string[] = [];
    const rows = await seed002(
      ["--value_sizes=100,1000", "--bytes=200000", "--reads=2000", "--rounds=2"],
      (s) => out.push(...s.split("\n")),
    );
    expect(rows.map((r) => [r.valueSize, r.num])).toEqual([
      [100, 2000],
      [1000, 1000],
    ]);
    for (const r of rows) {
      expect(r.view).toHaveLength(2);
      expect(r.copy).toHaveLength(2);
      for (const x of [...r.view, ...r.copy]) expect(x).toBeGreaterThan(0);
    }
    expect(out.some((l) => /^\| 1000 B +\| +1000 \| +[\d.]+ \|/.test(l))).toBe(true);
  });
});

describe("seed 000 and merge-bench", () => {
  it("readseq sees one entry per key; compaction leaves nothing to merge, without it every key merges", async () => {
    const compacted = await seed000(["--num=2000", "--runs=2"], () => {});
    expect(compacted.off).toHaveLength(2);
    expect(compacted.on).toHaveLength(2);
    expect(compacted.entries).toEqual([2000, 2000, 2000, 2000]);
    expect(compacted.merges).toBe(0);
    const lines: string[] = [];
    const raw = await seed000(["--num=2000", "--runs=2", "--nocompact"], (s) =>
      lines.push(...s.split("\n")),
    );
    expect(raw.merges).toBe(2 * 2000);
    expect(
      lines.some((l) => /^median micros\/op: off [\d.]+, on [\d.]+; on\/off [\d.]+$/.test(l)),
    ).toBe(true);
  });

  it("merge-bench runs both workloads with statistics off and on", async () => {
    const out: string[] = [];
    const f = await mergeBench(["--num=500", "--rounds=1", "--merge_operator=uint64add"], (s) =>
      out.push(...s.split("\n")),
    );
    expect(f.off.mergerandom).toHaveLength(1);
    expect(f.on.readrandommergerandom).toHaveLength(1);
    expect(f.messages[0]).toBe("( updates:500)");
    expect(out.some((l) => l.startsWith("| readrandommergerandom "))).toBe(true);
  });
});
