/**
 * Scan buffers (scan-buffers.ts): iterators opened with `reuseScanBuffers` see the same
 * entries, say their values are not pinned, and take a bounded number of buffers however many
 * tables they read one after another; the pool keeps at most its free count.
 */
import { invariants, toBytes } from "@shale/base";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type BuiltTable, buildTable, ikey, openTable } from "../table/table.test-support.js";
import { SCAN_BUFFER_SIZE, ScanBufferPool, scanBuffers } from "./scan-buffers.js";

afterEach(() => vi.restoreAllMocks());

const N = 12_000;

function table(
  compression: "none" | "snappy",
  indexType: "binarySearch" | "twoLevelIndex" = "binarySearch",
  seed = 0,
): BuiltTable {
  const keys: Uint8Array[] = [];
  const values: Uint8Array[] = [];
  for (let i = 0; i < N; i++) {
    keys.push(ikey(`key${String(i).padStart(8, "0")}`, i + 1, 1));
    values.push(toBytes(`value ${i} ${seed} `.repeat(6)));
  }
  return buildTable(keys, values, { blockSize: 4096, compression, indexType });
}

/** Every entry of `t` as text, scanning forward or backward; values checked while current. */
function scan(t: BuiltTable, reuse: boolean, backward = false): string[] {
  const reader = openTable(t);
  const it = reader.newIterator({ fillCache: false, reuseScanBuffers: reuse });
  const out: string[] = [];
  const take = () => {
    if (out.length === 0) expect(it.isValuePinned?.()).toBe(!reuse);
    out.push(`${Buffer.from(it.key()).toString("latin1")}=${Buffer.from(it.value()).toString()}`);
  };
  if (backward) for (it.seekToLast(); it.valid(); it.prev()) take();
  else for (it.seekToFirst(); it.valid(); it.next()) take();
  it.close();
  reader.close();
  return out;
}

describe("scan buffers", () => {
  for (const compression of ["none", "snappy"] as const) {
    for (const indexType of ["binarySearch", "twoLevelIndex"] as const) {
      it(`a reusing scan sees every entry, both ways (${compression}, ${indexType})`, () => {
        const t = table(compression, indexType);
        const fresh = scan(t, false);
        expect(fresh.length).toBe(N);
        expect(scan(t, true)).toEqual(fresh);
        expect(scan(t, true, true)).toEqual(fresh.slice().reverse());
      });
    }

    it(`tables scanned one after another share two buffers (${compression})`, () => {
      const tables = [0, 1, 2, 3, 4, 5].map((seed) => table(compression, "binarySearch", seed));
      const spy = vi.spyOn(Buffer, "allocUnsafeSlow");
      const large = () => spy.mock.calls.filter(([n]) => n >= 128 * 1024).length;
      for (const t of tables) scan(t, false);
      const freshLarge = large();
      spy.mockClear();
      const allocated = scanBuffers.allocated;
      for (const t of tables) scan(t, true);
      // Fresh memory: a 128 and a 256 KiB region per table at least (each over 300 KB).
      expect(freshLarge).toBeGreaterThanOrEqual(2 * tables.length);
      // Reused: one region buffer and one slab buffer, taken by the first table's iterator.
      expect(scanBuffers.allocated - allocated).toBeLessThanOrEqual(2);
      expect(large()).toBeLessThanOrEqual(2);
      expect(scanBuffers.freeCount).toBeGreaterThanOrEqual(compression === "none" ? 1 : 2);
    });
  }

  it("a value kept across a block boundary is overwritten in invariants mode", () => {
    expect(invariants).toBe(true); // tests run with invariant checks on
    const t = table("snappy");
    const reader = openTable(t);
    const it = reader.newIterator({ fillCache: false, reuseScanBuffers: true });
    it.seekToFirst();
    const first = it.value();
    const expected = Buffer.from(first).toString();
    // Far enough to be in another block.
    for (let i = 0; i < 200 && it.valid(); i++) it.next();
    expect(Buffer.from(first).toString()).not.toBe(expected);
    it.close();
    reader.close();
  });
});

describe("ScanBufferPool", () => {
  it("reuses what is given back and keeps at most maxFree", () => {
    const pool = new ScanBufferPool(2);
    const a = pool.take();
    const b = pool.take();
    const c = pool.take();
    expect(a.byteLength).toBe(SCAN_BUFFER_SIZE);
    expect(pool.allocated).toBe(3);
    pool.give(a);
    pool.give(b);
    pool.give(c); // over maxFree: left to the GC
    expect(pool.freeCount).toBe(2);
    expect(pool.returned).toBe(3);
    const d = pool.take();
    expect(d === a || d === b).toBe(true);
    expect(pool.reused).toBe(1);
    // Given-back memory is mangled in invariants mode.
    if (invariants) expect(new Uint8Array(d)[0]).toBe(0xcc);
  });
});
