/**
 * A DB iterator's tables read ahead into reused memory (`tableScanOptions`: @shale/sstable's
 * scan buffers): a full scan allocates a bounded number of large buffers however much it
 * reads, and every value it hands out is right while it is current, forward and backward,
 * merges included (the DB iterator copies what it keeps across a move).
 */
import { MemoryFileSystem } from "@shale/base";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DB } from "../db.js";

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
const key = (i: number): string => `key${String(i).padStart(7, "0")}`;

afterEach(() => vi.restoreAllMocks());

async function filled(n: number): Promise<DB> {
  const db = await DB.open("/db", {
    fs: new MemoryFileSystem(),
    disableAutoCompactions: true,
    blockSize: 4096,
    compression: "snappy",
    mergeOperator: "stringappend",
    prepopulateBlockCache: "disable",
    blockCacheSize: 64 * 1024, // far smaller than the data: blocks come from the regions
  });
  for (let i = 0; i < n; i++) db.put(enc(key(i)), enc(`${i}:${"v".repeat(60 + (i % 40))}`));
  await db.flush();
  await db.compactRange();
  // Merge operands in a table over the compacted values, some spanning blocks.
  for (let i = 0; i < n; i += 1000)
    for (let j = 0; j < 80; j++) db.merge(enc(key(i)), enc(`m${j}`));
  await db.flush();
  return db;
}

function expected(i: number): string {
  const v = `${i}:${"v".repeat(60 + (i % 40))}`;
  if (i % 1000 !== 0) return v;
  return [v, ...Array.from({ length: 80 }, (_, j) => `m${j}`)].join(",");
}

describe("DB iterator scan buffers", () => {
  it("a full scan, forward and backward, sees every value and allocates few large buffers", async () => {
    const n = 40_000;
    const db = await filled(n);
    try {
      const spy = vi.spyOn(Buffer, "allocUnsafeSlow");
      const it = db.iterator();
      let i = 0;
      for (it.seekToFirst(); it.valid(); it.next(), i++) {
        expect(dec(it.key())).toBe(key(i));
        if (i % 97 === 0 || i % 1000 === 0) expect(dec(it.value())).toBe(expected(i));
      }
      expect(i).toBe(n);
      for (it.seekToLast(); it.valid(); it.prev()) {
        i--;
        if (i % 97 === 0 || i % 1000 === 0) expect(dec(it.value())).toBe(expected(i));
      }
      expect(i).toBe(0);
      it.close();
      // ~5 MB of blocks each way: fresh memory took a 256 KiB region and slab per 256 KiB.
      const large = spy.mock.calls.filter(([size]) => size >= 128 * 1024).length;
      expect(large).toBeLessThanOrEqual(4);
    } finally {
      await db.close();
    }
  });
});
