/**
 * The database's block cache recycles evicted blocks' memory (`recycleBlocks`): reads must
 * never see a value whose block went back to the pool. Tests run with invariants on, so a
 * recycled buffer reads 0xcc; a small cache makes nearly every read evict a block.
 */
import { MemoryFileSystem, toBytes } from "@shale/base";
import { describe, expect, it } from "vitest";
import type { MergeOperator } from "../core/merge-operator.js";
import { DB } from "../db.js";

const N = 3000;
const key = (i: number) => `key${String(i).padStart(6, "0")}`;
const value = (i: number) => `value-${i}-`.padEnd(100, "v");
const text = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

async function filled(mergeOperator?: MergeOperator): Promise<DB> {
  const db = await DB.open("/db", {
    fs: new MemoryFileSystem(),
    blockCacheSize: 24 * 1024,
    disableAutoCompactions: true,
    ...(mergeOperator !== undefined ? { mergeOperator } : {}),
  });
  for (let i = 0; i < N; i++) db.put(key(i), value(i));
  await db.flush();
  await db.compactRange();
  return db;
}

describe("recycled block memory", () => {
  it("a merge operator that reads the database meanwhile still merges the right base", async () => {
    let db: DB | undefined;
    // Appends the operands to the base, after reading other keys (each read may evict and
    // recycle the block the base is in).
    const appendAfterReads: MergeOperator = {
      name: "append-after-reads",
      fullMerge(_key, existing, operands) {
        for (let j = 0; j < 40; j++) {
          const other = (j * 613) % N;
          db!.get(key(other % 97 === 0 ? other + 1 : other)); // a key without operands
        }
        const parts = [text(existing) ?? "", ...operands.map((o) => text(o)!)];
        return toBytes(parts.join("+"));
      },
    };
    db = await filled(appendAfterReads);
    for (let i = 0; i < N; i += 97) db.merge(key(i), "op");
    for (let i = 0; i < N; i += 97) expect(text(db.get(key(i)))).toBe(`${value(i)}+op`);
    await db.close();
  });

  it("gets, getViews and a reverse scan interleaved over a churning cache read what was written", async () => {
    const db = await filled();
    const it = db.iterator();
    let i = N - 1;
    for (it.seekToLast(); it.valid(); it.prev(), i--) {
      expect(text(it.key())).toBe(key(i));
      const v = text(it.value());
      // Reads between the iterator's steps churn the cache under it.
      const j = (i * 7919) % N;
      expect(text(db.get(key(j)))).toBe(value(j));
      expect(text(db.getView(key((j + 1) % N)))).toBe(value((j + 1) % N));
      expect(v).toBe(value(i));
    }
    expect(i).toBe(-1);
    it.close();
    await db.close();
  });
});
