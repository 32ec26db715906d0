import { describe, expect, it } from "vitest";
import type { BenchResult } from "./report.js";
import { line } from "./report.js";
import { comparisonTable, TABLE_TITLE } from "./table.js";

const r = (
  engine: string,
  name: string,
  ops: number,
  seconds: number,
  extra: Partial<BenchResult> = {},
): BenchResult => ({
  name,
  engine,
  ops,
  seconds,
  bytes: ops * 116,
  message: "",
  ...extra,
});

describe("comparison table", () => {
  it("shows ops/sec and shale's speed-up over each peer, n/a, disk and peak RSS", () => {
    const text = comparisonTable([
      {
        engine: "shale",
        results: [
          r("shale", "fillseq", 1000, 0.5, { diskBytes: 3 * 1048576 }),
          r("shale", "readseq", 0, 0, { na: "no iterator" }),
          r("shale", "readrandom", 100, 1),
        ],
        peakRssBytes: 100 * 1048576,
      },
      {
        engine: "lmdb",
        results: [
          r("lmdb", "fillseq", 1000, 1, { diskBytes: 1048576 }),
          r("lmdb", "readseq", 500, 1),
          r("lmdb", "readrandom", 400, 1),
        ],
        peakRssBytes: 50 * 1048576,
      },
    ]).split("\n");
    expect(lines(text)).toEqual([
      TABLE_TITLE,
      "workload | shale | lmdb",
      "fillseq | 2000 | 1000 (2.00x)",
      "readseq | n/a | 500",
      "readrandom | 100 | 400 (0.25x)",
      "disk after fillseq (MB) | 3.0 | 1.0",
      "peak RSS (MB) | 100.0 | 50.0",
    ]);
  });

  it("labels repeated workloads and works without shale", () => {
    const text = comparisonTable([
      { engine: "lmdb", results: [r("lmdb", "readrandom", 10, 1), r("lmdb", "readrandom", 20, 1)] },
      {
        engine: "rocksdb",
        results: [r("rocksdb", "readrandom", 30, 1), r("rocksdb", "readrandom", 40, 1)],
      },
    ]).split("\n");
    expect(lines(text).slice(1)).toEqual([
      "workload | lmdb | rocksdb",
      "readrandom | 10 | 30",
      "readrandom #2 | 20 | 40",
    ]);
  });

  it("prints db_bench's line, and n/a with the reason", () => {
    expect(
      line(r("shale", "readrandom", 100000, 0.0983, { message: "(63103 of 100000 found)" })),
    ).toBe(
      "readrandom   :       0.983 micros/op 1017294 ops/sec;  112.5 MB/s (63103 of 100000 found)",
    );
    expect(line(r("lmdb", "compact", 0, 0, { na: "a B+tree has nothing to compact" }))).toBe(
      "compact      :         n/a (a B+tree has nothing to compact)",
    );
  });
});

/** Rows with their cells joined by " | " (column widths vary with the figures). */
function lines(text: string[]): string[] {
  return text.map((l, i) =>
    i === 0
      ? l
      : l
          .trim()
          .split(/\s{2,}/)
          .join(" | "),
  );
}
