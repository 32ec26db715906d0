import { isShaleError } from "@shale/base";
import { describe, expect, it } from "vitest";
import { Arena, DEFAULT_CHUNK_SIZE, MIN_NODE_CHUNK_SIZE } from "./arena.js";

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

  it("aligns an entry's address to a residue modulo 8 on request, counting the padding", () => {
    const arena = new Arena(1024);
    const a = arena.allocateEntry(3); // offset 0
    const b = arena.allocateEntry(10, 5); // offset 3 -> 5
    const c = arena.allocateEntry(10, 7); // offset 15 -> 15
    const d = arena.allocateEntry(10, 0); // offset 25 -> 32
    expect([a, b, c, d].map((x) => x & arena.mask)).toEqual([0, 5, 15, 32]);
    expect(arena.usedBytes).toBe(42);
    const e = arena.allocateEntry(250, 6); // 42 -> 46 + 250 <= 1024
    expect(e & arena.mask).toBe(46);
    for (let i = 0; i < 3; i++) arena.allocateEntry(240);
    const f = arena.allocateEntry(100, 3); // does not fit: a new chunk, at offset 3
    expect([f >>> arena.shift, f & arena.mask]).toEqual([1, 3]);
    const big = arena.allocateEntry(2000, 4); // a chunk of its own, 4 bytes longer
    expect([big >>> arena.shift, big & arena.mask]).toEqual([2, 4]);
    expect(arena.entryChunks[2]!.length).toBe(2004);
  });

  it("allocates nodes in word units in their own chunks, one bump pointer per lane", () => {
    const arena = new Arena(128); // node chunks are still MIN_NODE_CHUNK_SIZE bytes
    const words = MIN_NODE_CHUNK_SIZE / 4;
    const a = arena.allocateNode(words - 6, 0);
    const b = arena.allocateNode(8, 0); // does not fit: next chunk
    const c = arena.allocateNode(8, 1); // another lane: its own chunk
    const d = arena.allocateNode(6, 0);
    expect(a).toBe(0);
    expect(b >>> arena.nodeShift).toBe(1);
    expect(c >>> arena.nodeShift).toBe(2);
    expect(d).toBe(b + 8);
    expect(arena.nodeChunks[1]).toBeInstanceOf(Int32Array);
    // Handed out, plus the abandoned tail of chunk 0.
    expect(arena.usedBytes).toBe(MIN_NODE_CHUNK_SIZE + 8 * 4 + 8 * 4 + 6 * 4);
    expect(arena.allocatedBytes).toBe(3 * MIN_NODE_CHUNK_SIZE);
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
