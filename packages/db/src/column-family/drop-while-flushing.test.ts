/**
 * Dropping a column family while a flush of it is awaited: the drop waits for the running
 * flush job, and the awaited flush settles (the family is gone: nothing of it is left to
 * flush) — it must not hang on the memtables the drop retired. Both with each family
 * flushing on its own and with atomicFlush (where `db.flush()` waits for every family).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";

const settled = (p: Promise<unknown>, ms: number): Promise<string> =>
  Promise.race([
    p.then(
      () => "resolved",
      (e: unknown) => `rejected: ${String(e)}`,
    ),
    new Promise<string>((resolve) => setTimeout(() => resolve("still pending"), ms)),
  ]);

describe("dropping a column family while its flush is awaited", () => {
  for (const atomicFlush of [false, true]) {
    it(`the flush settles${atomicFlush ? " (atomicFlush)" : ""}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "shale-drop-flush-"));
      try {
        const db = await DB.open(dir, {
          atomicFlush,
          createMissingColumnFamilies: true,
          columnFamilies: { other: { writeBufferSize: 64 * 1024, maxWriteBufferNumber: 20 } },
        });
        const other = db.columnFamily("other");
        const value = "v".repeat(4000);
        // Several memtables switched out while no flush result is taken (no turn of the loop).
        for (let i = 0; i < 120; i++) other.put(`k${i}`, value);
        expect(Number(other.getProperty("shale.num-immutable-mem-table"))).toBeGreaterThan(1);
        const flushing = atomicFlush ? db.flush() : other.flush();
        await db.dropColumnFamily("other");
        expect(await settled(flushing, 5_000)).toBe("resolved");
        expect(db.listColumnFamilies()).toEqual(["default"]);
        await db.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
