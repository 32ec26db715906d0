import { totalmem } from "node:os";
import { MemoryFileSystem } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import {
  defaultBlockCacheSize,
  MAX_DEFAULT_BLOCK_CACHE,
  MIN_DEFAULT_BLOCK_CACHE,
} from "./default-block-cache.js";
import { machineMemory } from "./machine-memory.js";

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

describe("defaultBlockCacheSize", () => {
  it.each([
    [24 * GiB, 1024 * MiB],
    [16 * GiB, 1024 * MiB],
    [8 * GiB, 512 * MiB],
    [2 * GiB, 128 * MiB],
    [1 * GiB, 64 * MiB],
    [512 * MiB, 32 * MiB],
    [64 * MiB, 32 * MiB],
    [3 * GiB + 12345, 192 * MiB],
    [700 * MiB, 43 * MiB], // 43.75 MiB, whole MiB down
    [1, 32 * MiB],
    [0, 32 * MiB],
    [Number.NaN, 32 * MiB],
    [undefined, 32 * MiB],
  ])("memory %s -> %s bytes", (memory, size) => {
    expect(defaultBlockCacheSize(memory)).toBe(size);
  });

  it("is a whole number of MiB in [32 MiB, 1 GiB], never shrinking as memory grows", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 2 ** 50, noNaN: true }),
        fc.double({ min: 0, max: 2 ** 50, noNaN: true }),
        (a, b) => {
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          const s = defaultBlockCacheSize(lo);
          expect(s % MiB).toBe(0);
          expect(s).toBeGreaterThanOrEqual(MIN_DEFAULT_BLOCK_CACHE);
          expect(s).toBeLessThanOrEqual(MAX_DEFAULT_BLOCK_CACHE);
          expect(defaultBlockCacheSize(hi)).toBeGreaterThanOrEqual(s);
          // Never more than 1/16 of the memory, unless that is below the minimum.
          if (s > MIN_DEFAULT_BLOCK_CACHE) expect(s).toBeLessThanOrEqual(lo / 16);
        },
      ),
    );
  });
});

describe("machineMemory", () => {
  it("is the machine's memory, or a container's limit below it", () => {
    const m = machineMemory();
    expect(m).toBeGreaterThan(0);
    expect(m).toBeLessThanOrEqual(totalmem());
  });

  it("under Deno reads the memory only with sys access already granted, never asking", () => {
    const g = globalThis as { Deno?: unknown };
    const asked: unknown[] = [];
    const deno = (state: string | undefined) => ({
      permissions: {
        querySync: (d: unknown) => {
          asked.push(d);
          if (state === undefined) throw new Error("NotCapable");
          return { state };
        },
      },
    });
    try {
      for (const state of ["prompt", "denied", undefined]) {
        g.Deno = deno(state);
        expect(machineMemory(), String(state)).toBeUndefined();
      }
      g.Deno = deno("granted");
      expect(machineMemory()).toBeGreaterThan(0);
      expect(asked[0]).toEqual({ name: "sys", kind: "systemMemoryInfo" });
    } finally {
      delete g.Deno;
    }
  });
});

describe("a database's block cache", () => {
  it("is sized to the machine without blockCacheSize, and as given with it", async () => {
    const db = await DB.open("/db", { fs: new MemoryFileSystem() });
    const sized = await DB.open("/sized", { fs: new MemoryFileSystem(), blockCacheSize: 5 * MiB });
    try {
      expect(db.getProperty("shale.block-cache-capacity")).toBe(
        String(defaultBlockCacheSize(machineMemory())),
      );
      expect(sized.getProperty("shale.block-cache-capacity")).toBe(String(5 * MiB));
    } finally {
      await db.close();
      await sized.close();
    }
  });
});
