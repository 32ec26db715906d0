import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { directoryBytes } from "./disk.js";
import { bench, tempDir } from "./test/helpers.js";

describe("disk after fill", () => {
  it("sums the sizes of every file below a directory; undefined when there is none", () => {
    const { dir, cleanup } = tempDir();
    try {
      writeFileSync(join(dir, "a"), new Uint8Array(100));
      mkdirSync(join(dir, "sub", "deeper"), { recursive: true });
      writeFileSync(join(dir, "sub", "b"), new Uint8Array(20));
      writeFileSync(join(dir, "sub", "deeper", "c"), new Uint8Array(3));
      expect(directoryBytes(dir)).toBe(123);
      expect(directoryBytes(join(dir, "sub"))).toBe(23);
      expect(directoryBytes(join(dir, "missing"))).toBeUndefined();
    } finally {
      cleanup();
    }
  });

  it("measures each engine on its own directory", async () => {
    // With --disable_wal shale writes no log (and, below its write buffer, no table), while
    // LevelDB always logs: the two sizes must differ by about the log. (Without the flag both
    // directories hold one log in the same record format and the same bytes, so equal
    // figures there are real, not one directory measured twice.)
    const num = 2000;
    const { dir, cleanup } = tempDir();
    try {
      const b = await bench([
        "--engines=shale,classic-level",
        "--benchmarks=fillseq",
        `--num=${num}`,
        "--disable_wal",
        `--db=${dir}`,
      ]);
      const shale = b.results("shale")[0]!.diskBytes!;
      const level = b.results("classic-level")[0]!.diskBytes!;
      expect(shale).toBeLessThan(4096);
      expect(level).toBeGreaterThan(num * (16 + 100));
      const table = b.out.find((l) => l.startsWith("disk after fillseq (MB)"))!;
      expect(table.split(/\s+/).slice(-2)).toEqual([
        (shale / 1048576).toFixed(1),
        (level / 1048576).toFixed(1),
      ]);
    } finally {
      cleanup();
    }
  });
});
