import { isShaleError } from "@shale/base";
import { describe, expect, it } from "vitest";
import { Arena, DEFAULT_CHUNK_SIZE } from "./arena.js";

describe("Arena", () => {
  it("packs (chunk, offset) into one address and bumps within a chunk", () => {
    const arena = new Arena(1000); // addressed with 10 offset bits
    expect(arena.shift).toBe(10);
    const a = arena.allocateEntry(100);
    const b = arena.allocateEntry(200);
    expect([a >>> 10, a & 1023]).toEqual([0, 0]);
    expect([b >>> 10, b & 1023]).toEqual([0, 100]);
    const c = arena.allocateEntry(240); // 300 + 240 <= 1000
    const d = arena.allocateEntry(240); // 540 + 240
    const e = arena.allocateEntry(240); // 780 + 240 > 1000: next chunk
    expect([c & 1023, d & 1023]).toEqual([300, 540]);
    expect([e >>> 10, e & 1023]).toEqual([1, 0]);
    expect(arena.usedBytes).toBe(1000 + 240);
    expect(arena.entryChunks).toHaveLength(2);
  });

  it("gives an allocation above a quarter chunk a chunk of its own and keeps bumping", () => {
    const arena = new Arena(1024);
    const small = arena.allocateEntry(10);
    const big = arena.allocateEntry(5000);
    const next = arena.allocateEntry(10);
    expect(big >>> arena.shift).toBe(1);
    expect(big & arena.mask).toBe(0);
    expect(arena.entryChunks[1]!.length).toBe(5000);
    expect(next).toBe(small + 10);
    expect(arena.usedBytes).toBe(5020);
  });

  it("allocates nodes in word units in their own chunks", () => {
    const arena = new Arena(128); // 32 words per node chunk
    const a = arena.allocateNode(26, 0);
    const b = arena.allocateNode(8, 0); // does not fit: next chunk
    expect(a).toBe(0);
    expect(b >>> arena.nodeShift).toBe(1);
    expect(arena.nodeChunks[1]).toBeInstanceOf(Int32Array);
    expect(arena.usedBytes).toBe(128 + 32);
    expect(arena.allocatedBytes).toBe(256);
  });

  it("exports and reopens shared chunks", () => {
    const arena = new Arena();
    expect(arena.chunkSize).toBe(DEFAULT_CHUNK_SIZE);
    const address = arena.allocateEntry(3);
    arena.entryChunks[0]!.set([1, 2, 3], address);
    arena.allocateNode(4, 0);
    const reopened = Arena.fromShared(structuredClone(arena.exportShared()));
    expect([...reopened.entryChunks[0]!.subarray(0, 3)]).toEqual([1, 2, 3]);
    expect(reopened.usedBytes).toBe(arena.usedBytes);
    expect(() =>
      Arena.fromShared({
        ...arena.exportShared(),
        entryChunks: [new ArrayBuffer(8) as unknown as SharedArrayBuffer],
      }),
    ).toThrow(TypeError);
  });

  it("rejects chunk sizes out of range", () => {
    for (const size of [0, 127, 2 ** 30 + 1, Number.NaN]) {
      let caught: unknown;
      try {
        new Arena(size);
      } catch (e) {
        caught = e;
      }
      expect(isShaleError(caught, "InvalidArgument")).toBe(true);
    }
  });
});
