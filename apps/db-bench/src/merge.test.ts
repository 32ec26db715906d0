import { decodeUint64, open } from "shale";
import { describe, expect, it } from "vitest";
import { KeyGenerator } from "./generators.js";
import { bench, expectParsableLines, tempDir } from "./test/helpers.js";

describe("merge workloads", () => {
  it("uint64add: every merge adds 1, so the counters sum to the merges written", async () => {
    const { dir, cleanup } = tempDir();
    try {
      const b = await bench([
        "--benchmarks=mergerandom,readrandommergerandom,readwhilemerging",
        "--merge_operator=uint64add",
        "--num=1000",
        "--merge_keys=50",
        `--db=${dir}`,
      ]);
      expectParsableLines(b);
      const [m, rm, rwm] = b.results("shale");
      expect(m!.message).toBe("( updates:1000)");
      const mix = /^\(reads:(\d+) merges:(\d+) total:1000 hits:(\d+) maxlength:(\d+)\)$/.exec(
        rm!.message,
      );
      expect(mix).not.toBeNull();
      const [reads, merges, hits, maxLength] = mix!.slice(1).map(Number) as [
        number,
        number,
        number,
        number,
      ];
      expect(reads + merges).toBe(1000);
      expect(merges / 1000).toBeGreaterThan(0.6); // --mergereadpercent=70 means 70% merges
      expect(hits).toBeGreaterThan(0);
      expect(maxLength).toBe(8);
      const during = /; (\d+) merges\)$/.exec(rwm!.message);
      expect(Number(during![1])).toBe(100);

      const db = await open(dir, { mergeOperator: "uint64add" });
      try {
        const keys = new KeyGenerator(16);
        let sum = 0;
        for (let k = 0; k < 50; k++) {
          const v = db.get(keys.key(k));
          if (v !== undefined) sum += decodeUint64(v);
        }
        expect(sum).toBe(1000 + merges + 100);
      } finally {
        await db.close();
      }
    } finally {
      cleanup();
    }
  });

  it("stringappend and max run, and their values grow or stay as the operator says", async () => {
    const append = await bench([
      "--benchmarks=mergerandom,readrandommergerandom",
      "--merge_operator=stringappend",
      "--num=400",
      "--merge_keys=4",
      "--value_size=5",
    ]);
    const grown = /maxlength:(\d+)/.exec(append.results("shale")[1]!.message);
    // 4 keys share ~400 operands of 5 bytes joined by ","
    expect(Number(grown![1])).toBeGreaterThan(100 * 5);
    const max = await bench([
      "--benchmarks=mergerandom,readrandommergerandom",
      "--merge_operator=max",
      "--num=400",
      "--merge_keys=4",
      "--value_size=5",
    ]);
    expect(max.results("shale")[1]!.message).toMatch(/maxlength:5\)$/);
  });
});
