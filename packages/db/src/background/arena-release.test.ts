/**
 * A flushed memtable's arena is freed when the next flush result arrives, not whenever V8
 * next runs a major GC (collect-garbage.ts): a WeakRef to one of its SharedArrayBuffer
 * chunks is cleared after the following flush, with no other collection in between.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DB } from "../db.js";

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** 2000 of these are 20 MB of arena: past COLLECT_AFTER_BYTES (16 MiB) per flush. */
const big = new Uint8Array(10_000).fill(7);

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Survives enough scavenges that only a full collection can free what it holds. */
function promote(): number {
  let keep = 0;
  for (let i = 0; i < 40; i++) keep += new Array(100_000).fill(i).length;
  return keep;
}

/** A weak reference to the active memtable's first entry chunk (holding nothing else). */
function firstChunk(db: DB): WeakRef<SharedArrayBuffer> {
  const internals = db as unknown as { mem: { arena: { entryBuffers: SharedArrayBuffer[] } } };
  return new WeakRef(internals.mem.arena.entryBuffers[0]!);
}

describe("memtable arenas after a flush", () => {
  it("the flushed memtable's chunks are collected once the next flush result arrives", async () => {
    dir = mkdtempSync(join(tmpdir(), "shale-arena-release-"));
    const db = await DB.open(dir);
    try {
      for (let i = 0; i < 2000; i++) db.put(`a${i}`, big);
      const ref = firstChunk(db);
      expect(promote()).toBeGreaterThan(0);
      await db.flush(); // the first memtable becomes a table and is dropped
      await turn();
      expect(db.getProperty("shale.num-files-at-level0")).toBe("1");
      // A later flush's result arriving collects the first memtable's arena (allowing for a
      // flush that a loaded machine answered another way: up to three).
      let flushes = 0;
      while (ref.deref() !== undefined && flushes < 3) {
        flushes++;
        for (let i = 0; i < 2000; i++) db.put(`b${flushes}-${i}`, big);
        await db.flush();
        await turn();
      }
      expect(ref.deref()).toBeUndefined();
    } finally {
      await db.close();
    }
  });
});
