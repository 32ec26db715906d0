import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MAIN_JS } from "./isolate.js";
import { TABLE_TITLE } from "./table.js";
import { bench, found } from "./test/helpers.js";

describe("--isolate", () => {
  // The children run the built program (apps/db-bench/dist/main.js): build before testing.
  it("runs each engine in a child process and merges their results and peak RSS", async () => {
    expect(existsSync(MAIN_JS)).toBe(true);
    const b = await bench([
      "--isolate",
      "--engines=shale,lmdb",
      "--benchmarks=fillseq,readrandom",
      "--num=500",
    ]);
    for (const e of ["shale", "lmdb"]) {
      const r = b.results(e);
      expect(r.map((x) => x.name)).toEqual(["fillseq", "readrandom"]);
      expect(found(r[1]!)).toEqual([500, 500]);
      expect(r[0]!.diskBytes).toBeGreaterThan(0);
      expect(b.summary.engines.find((s) => s.engine === e)!.peakRssBytes).toBeGreaterThan(1e6);
    }
    const table = b.out.slice(b.out.indexOf(TABLE_TITLE));
    expect(table.some((l) => /^peak RSS \(MB\)\s+\d+\.\d\s+\d+\.\d$/.test(l))).toBe(true);
    const json = await bench([
      "--isolate",
      "--json",
      "--engines=shale,memory-level",
      "--benchmarks=fillseq",
      "--num=100",
    ]);
    const objects = json.out.map((l) => JSON.parse(l) as Record<string, unknown>);
    const rss = objects.filter((o) => typeof o.peakRssBytes === "number");
    expect(rss.map((o) => o.engine)).toEqual(["shale", "memory-level", undefined]);
    expect(b.out).toContain(
      "note: lmdb: getMany = a loop of getBinaryFast; deleteRange = one transaction deleting each key in the range",
    );
  });
});
