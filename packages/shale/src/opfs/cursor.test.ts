import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { type DB, MemoryFileSystem, open } from "../index.js";
import { WorkerCursor } from "./cursor.js";

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
const open_: DB[] = [];
afterEach(async () => {
  for (const db of open_.splice(0)) await db.close();
});

async function dbWith(keys: readonly string[]): Promise<DB> {
  const db = await open("db", { fs: new MemoryFileSystem() });
  open_.push(db);
  for (const k of keys) db.put(k, `v-${k}`);
  return db;
}

function keysOf(entries: [Uint8Array, Uint8Array][]): string[] {
  return entries.map(([k]) => dec(k));
}

describe("WorkerCursor", () => {
  it("walks forward and in reverse in batches, within the range", async () => {
    const db = await dbWith(["a", "b", "c", "d", "e"]);
    const forward = new WorkerCursor(db, { gte: enc("b"), lt: enc("e") });
    expect(keysOf(forward.next(2))).toEqual(["b", "c"]);
    expect(keysOf(forward.next(2))).toEqual(["d"]);
    expect(forward.next(2)).toEqual([]);
    forward.close();
    const reverse = new WorkerCursor(db, { reverse: true, lte: enc("d") });
    expect(keysOf(reverse.next(10))).toEqual(["d", "c", "b", "a"]);
    reverse.close();
  });

  it("hands out copies, and the entry a seek lands on first", async () => {
    const db = await dbWith(["a", "b", "c", "d"]);
    const it = new WorkerCursor(db, {});
    const [first] = it.next(1);
    expect(dec(first![1])).toBe("v-a");
    it.seek(enc("c"));
    expect(keysOf(it.next(5))).toEqual(["c", "d"]);
    // A seek after the end starts again.
    it.seek(enc("b"));
    expect(keysOf(it.next(1))).toEqual(["b"]);
    expect(dec(first![0])).toBe("a");
    it.close();
    const back = new WorkerCursor(db, { reverse: true });
    back.seek(enc("bb"));
    expect(keysOf(back.next(5))).toEqual(["b", "a"]);
    back.close();
  });

  it("counts the limit over every entry it lands on", async () => {
    const db = await dbWith(["a", "b", "c", "d"]);
    const it = new WorkerCursor(db, { limit: 3 });
    expect(keysOf(it.next(10))).toEqual(["a", "b", "c"]);
    it.close();
  });

  it("matches a sorted model for any keys, batch sizes and seek targets", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { maxLength: 30 }),
        fc.string({ maxLength: 4 }),
        fc.integer({ min: 1, max: 7 }),
        fc.boolean(),
        async (keys, target, batch, reverse) => {
          const db = await dbWith(keys);
          // UTF-8 byte order, as the engine's bytewise comparator sorts.
          const sorted = [...keys].sort((x, y) => Buffer.compare(enc(x), enc(y)));
          const t = enc(target);
          const model = reverse
            ? sorted.filter((k) => Buffer.compare(enc(k), t) <= 0).reverse()
            : sorted.filter((k) => Buffer.compare(enc(k), t) >= 0);
          const it = new WorkerCursor(db, { reverse });
          it.seek(t);
          const got: string[] = [];
          for (let b = it.next(batch); b.length > 0; b = it.next(batch)) got.push(...keysOf(b));
          it.close();
          await db.close();
          open_.pop();
          expect(got).toEqual(model);
        },
      ),
      { numRuns: 60 },
    );
  });
});
