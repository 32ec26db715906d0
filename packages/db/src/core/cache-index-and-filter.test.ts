/**
 * `cacheIndexAndFilterBlocks` (options.ts): true pins each table's index and filter in the
 * block cache (charged to it); false holds them in the table reader, so the cache keeps data
 * blocks only. Reads answer the same either way, and the choice is recorded in OPTIONS.
 */
import { MemoryFileSystem } from "@shale/base";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { readNewestOptions } from "./options-file.js";

async function tableOf(cacheIndexAndFilterBlocks: boolean | undefined) {
  const fs = new MemoryFileSystem();
  const db = await DB.open("/db", {
    fs,
    blockCacheSize: 4 << 20,
    ...(cacheIndexAndFilterBlocks === undefined ? {} : { cacheIndexAndFilterBlocks }),
  });
  for (let i = 0; i < 5000; i++) db.put(`key${String(i).padStart(6, "0")}`, `value${i}`);
  await db.flush();
  return { fs, db };
}

describe("cacheIndexAndFilterBlocks", () => {
  it("true (the default) pins the index and filter in the cache; false keeps them out of it", async () => {
    const pinned = new Map<string, number>();
    for (const setting of [undefined, true, false] as const) {
      const { db } = await tableOf(setting);
      expect(db.get("key000123")).toEqual(new TextEncoder().encode("value123"));
      expect(db.get("key999999")).toBeUndefined();
      pinned.set(String(setting), Number(db.getProperty("shale.block-cache-pinned-usage")));
      await db.close();
    }
    expect(pinned.get("undefined")).toBeGreaterThan(0);
    expect(pinned.get("true")).toBe(pinned.get("undefined"));
    expect(pinned.get("false")).toBe(0);
  });

  it("is recorded in the OPTIONS file's table section", async () => {
    for (const setting of [true, false]) {
      const { fs, db } = await tableOf(setting);
      await db.close();
      const table = readNewestOptions(fs, "/db")?.sections.find(
        (s) => s.title === 'TableOptions/BlockBasedTable "default"',
      );
      expect(table?.entries.get("cache_index_and_filter_blocks")).toBe(String(setting));
    }
  });
});
