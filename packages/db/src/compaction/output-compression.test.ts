/**
 * RocksDB's choice of an output table's codec (output-compression.ts): GetCompressionFlush
 * and GetCompressionType (base level 1), as a table of cases and as properties.
 */
import type { CompressionName } from "@shale/sstable";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compactionCompression,
  flushCompression,
  type LevelCompressionOptions,
} from "./output-compression.js";

/** Levels L0..L6 with files where `filled` says (the version's `levels`). */
function levels(...filled: number[]): number[][] {
  return Array.from({ length: 7 }, (_, l) => (filled.includes(l) ? [1] : []));
}

const codec = fc.constantFrom<CompressionName>("none", "snappy", "lz4");
const optionsArb = fc.record({
  compression: codec,
  compressionPerLevel: fc.array(codec, { maxLength: 8 }),
  bottommostCompression: fc.option(codec, { nil: undefined }),
});

describe("the codec of a new table", () => {
  const o: LevelCompressionOptions = {
    compression: "snappy",
    compressionPerLevel: ["none", "none", "lz4"],
    bottommostCompression: "snappy",
  };

  it("the header's example: flushes per_level[0], compactions by level, bottommost below all", () => {
    expect(flushCompression(o)).toBe("none");
    const data = levels(0, 1, 2, 4);
    expect(compactionCompression(o, 1, data)).toBe("none");
    expect(compactionCompression(o, 2, data)).toBe("lz4");
    expect(compactionCompression(o, 3, data)).toBe("lz4"); // index 3 repeats the last entry
    expect(compactionCompression(o, 4, data)).toBe("snappy"); // the deepest: bottommost
    expect(compactionCompression(o, 5, data)).toBe("snappy"); // below it too
    // Once L3 is the deepest non-empty level, L3 outputs are bottommost.
    expect(compactionCompression(o, 3, levels(0, 3))).toBe("snappy");
    // An empty version: every output is bottommost (RocksDB: level >= -1).
    expect(compactionCompression(o, 1, levels())).toBe("snappy");
  });

  it("without a list, `compression` everywhere; without bottommost, the list at the bottom", () => {
    const plain: LevelCompressionOptions = {
      compression: "lz4",
      compressionPerLevel: [],
      bottommostCompression: undefined,
    };
    expect(flushCompression(plain)).toBe("lz4");
    expect(compactionCompression(plain, 6, levels(6))).toBe("lz4");
    const list = { ...o, bottommostCompression: undefined };
    expect(compactionCompression(list, 6, levels(6))).toBe("lz4");
    expect(compactionCompression(list, 1, levels(6))).toBe("none");
  });

  it("bottommostCompression never applies to a flush (property)", () => {
    fc.assert(
      fc.property(optionsArb, (opts) => {
        expect(flushCompression(opts)).toBe(
          opts.compressionPerLevel.length > 0 ? opts.compressionPerLevel[0] : opts.compression,
        );
      }),
    );
  });

  it("compactions follow RocksDB's rule at every level and version shape (property)", () => {
    fc.assert(
      fc.property(
        optionsArb,
        fc.integer({ min: 1, max: 6 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { maxLength: 7 }),
        (opts, level, filled) => {
          const got = compactionCompression(opts, level, levels(...filled));
          const deepest = filled.length === 0 ? -1 : Math.max(...filled);
          const list = opts.compressionPerLevel;
          let want: CompressionName;
          if (opts.bottommostCompression !== undefined && level >= deepest)
            want = opts.bottommostCompression;
          else if (list.length === 0) want = opts.compression;
          else want = level < list.length ? list[level]! : list[list.length - 1]!;
          expect(got).toBe(want);
        },
      ),
    );
  });
});
