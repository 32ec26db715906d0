/**
 * Spare chunks (spare-chunks.ts): a released arena's chunks (no pool, not exported) are
 * taken by the next arenas; memtables alive at the same time never share a chunk, and each
 * holds exactly what was added to it.
 */
import { ValueKind } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { ChunkPool } from "./chunk-pool.js";
import { MemTable } from "./memtable.js";
import { spareChunkCount, takeSpareChunk } from "./spare-chunks.js";

const key = (i: number) => new Uint8Array([0x6b, i >>> 8, i & 0xff]);

/** Fills `mem` with `n` entries whose values name the table. */
function fill(mem: MemTable, table: number, n: number): void {
  const value = new Uint8Array(100).fill(table & 0xff);
  for (let i = 0; i < n; i++) mem.add(i + 1, ValueKind.Value, key(i), value);
}

/** Every entry of `mem` is (key(i), 100 bytes of `table`), i in [0, n). */
function expectHolds(mem: MemTable, table: number, n: number): void {
  const it = mem.newIterator();
  let i = 0;
  for (it.seekToFirst(); it.valid(); it.next(), i++) {
    expect([...it.key().subarray(0, 3)]).toEqual([...key(i)]);
    expect(it.value().every((b) => b === (table & 0xff))).toBe(true);
  }
  it.close();
  expect(i).toBe(n);
}

/** Takes every spare chunk of the sizes arenas use here (so a test starts with none). */
function drain(): void {
  for (let size = 128; size <= 1 << 20; size *= 2) {
    while (takeSpareChunk(size, false) !== undefined) {}
    while (takeSpareChunk(size, true) !== undefined) {}
  }
}

describe("spare chunks", () => {
  it("a released memtable's chunks go to the next memtable", () => {
    drain();
    const a = new MemTable();
    fill(a, 1, 3000); // 4 KiB .. 256 KiB entry chunks, growing node chunks
    a.unref();
    const spared = spareChunkCount();
    expect(spared).toBeGreaterThan(4);
    const b = new MemTable();
    fill(b, 2, 3000);
    expect(spareChunkCount()).toBe(0);
    expectHolds(b, 2, 3000);
    b.unref();
  });

  it("keeps no big entry's own chunk (sized exactly: no other arena asks for it)", () => {
    drain();
    const a = new MemTable(); // 1 MiB chunks: an entry over 256 KiB gets its own
    a.add(1, ValueKind.Value, key(1), new Uint8Array(300_001));
    a.unref();
    expect(spareChunkCount()).toBe(0);
  });

  it("keeps no chunk of an exported memtable, nor of one with a pool", () => {
    drain();
    const a = new MemTable();
    fill(a, 1, 3000);
    a.seal();
    a.exportShared();
    a.unref();
    expect(spareChunkCount()).toBe(0);
    const pooled = new MemTable();
    fill(pooled, 1, 100);
    pooled.useChunkPool(new ChunkPool());
    fill(pooled, 1, 0);
    pooled.unref();
    expect(spareChunkCount()).toBe(0);
  });

  it("memtables alive together and released in any order each hold what was added", () => {
    const step = fc.oneof(
      fc.record({ make: fc.integer({ min: 0, max: 600 }), chunk: fc.constantFrom(256, 4096) }),
      fc.record({ release: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        const live: { mem: MemTable; table: number; n: number }[] = [];
        let table = 0;
        for (const s of steps) {
          if ("make" in s) {
            const mem = new MemTable({ arenaChunkSize: s.chunk });
            fill(mem, ++table, s.make);
            live.push({ mem, table, n: s.make });
          } else if (live.length > 0) {
            const [gone] = live.splice(s.release % live.length, 1);
            gone!.mem.unref();
          }
          for (const l of live) expectHolds(l.mem, l.table, l.n);
        }
        for (const l of live) l.mem.unref();
      }),
      { numRuns: 25 },
    );
  });
});

describe("spare chunk list pruning", () => {
  it("reads every reference once per doubling, not on every add, when all stay alive", async () => {
    // A fresh copy of the module: its list starts empty, whatever other tests left.
    vi.resetModules();
    const spareModule = await import("./spare-chunks.js");
    const alive: ArrayBuffer[] = [];
    const add = (count: number) => {
      for (let i = 0; i < count; i++) {
        const b = new ArrayBuffer(128);
        alive.push(b);
        spareModule.addSpareChunk(b);
      }
    };
    add(1024);
    const deref = vi.spyOn(WeakRef.prototype, "deref");
    try {
      // The add at 1,024 prunes (all alive: 1,024 derefs); the next prune is due at 2,048.
      add(1023);
      expect(deref.mock.calls.length).toBe(1024);
      deref.mockClear();
      add(1); // 2,047 -> 2,048 references: no prune yet
      expect(deref.mock.calls.length).toBe(0);
      add(1); // at 2,048: one pass over them all
      expect(deref.mock.calls.length).toBe(2048);
      deref.mockClear();
      add(2000);
      expect(deref.mock.calls.length).toBe(0);
    } finally {
      deref.mockRestore();
    }
    // Nothing was dropped: every chunk is still there to take.
    expect(spareModule.spareChunkCount()).toBe(alive.length);
    let taken = 0;
    while (spareModule.takeSpareChunk(128, false) !== undefined) taken++;
    expect(taken).toBe(alive.length);
  });

  it("prunes collected references when the list reaches its mark", async () => {
    vi.resetModules();
    const spareModule = await import("./spare-chunks.js");
    const alive: ArrayBuffer[] = [];
    for (let i = 0; i < 1024; i++) {
      const b = new ArrayBuffer(128);
      alive.push(b);
      spareModule.addSpareChunk(b);
    }
    // Half of them let go (their WeakRefs are made to read as collected).
    const gone = new Set(alive.splice(0, 512));
    const realDeref = WeakRef.prototype.deref;
    const deref = vi.spyOn(WeakRef.prototype, "deref").mockImplementation(function (
      this: WeakRef<ArrayBuffer>,
    ) {
      const b = realDeref.call(this);
      return b !== undefined && gone.has(b) ? undefined : b;
    });
    try {
      const b = new ArrayBuffer(128);
      alive.push(b);
      spareModule.addSpareChunk(b);
      expect(spareModule.spareChunkCount()).toBe(alive.length);
      let taken = 0;
      while (spareModule.takeSpareChunk(128, false) !== undefined) taken++;
      expect(taken).toBe(alive.length);
    } finally {
      deref.mockRestore();
    }
  });
});
