import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RunFailure, run } from "./main.js";
import { Progress } from "./report.js";
import { guarded, StallError } from "./runner.js";
import { TABLE_TITLE } from "./table.js";
import { tempDir } from "./test/helpers.js";

describe("failures", () => {
  it("a workload whose engine stops answering fails with StallError instead of hanging", async () => {
    const progress = new Progress();
    progress.start("test");
    await expect(
      guarded(new Promise<never>(() => {}), progress, "lmdb readrandom", 0.05),
    ).rejects.toThrow(StallError);
    progress.start("test");
    await expect(guarded(Promise.resolve(7), progress, "x", 0.05)).resolves.toBe(7);
  });

  for (const isolate of [false, true]) {
    it(`an engine that fails is reported FAILED and the others still run${isolate ? " (--isolate)" : ""}`, async () => {
      const { dir, cleanup } = tempDir();
      try {
        writeFileSync(join(dir, "lmdb"), "not a directory");
        const out: string[] = [];
        const args = [
          "--engines=lmdb,shale",
          "--benchmarks=fillseq,readrandom",
          "--num=200",
          `--db=${dir}`,
        ];
        const failure = await run(isolate ? [...args, "--isolate"] : args, (s) =>
          out.push(...s.split("\n")),
        ).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(failure).toBeInstanceOf(RunFailure);
        expect((failure as RunFailure).failures).toHaveLength(1);
        expect((failure as RunFailure).failures[0]).toMatch(/^lmdb/);
        expect(
          out.filter((l) => /^(fillseq|readrandom)\s+:\s+FAILED \(could not open: /.test(l)),
        ).toHaveLength(2);
        expect(out).toContain("--- shale ---");
        expect(out.some((l) => /^readrandom\s+:.*\(200 of 200 found\)$/.test(l))).toBe(true);
        const table = out.slice(out.indexOf(TABLE_TITLE) + 1);
        expect(table.find((l) => l.startsWith("fillseq "))).toMatch(/FAILED\s+\d+$/);
      } finally {
        cleanup();
      }
    });
  }
});
