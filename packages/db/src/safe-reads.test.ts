/**
 * Safe by default, zero-copy on request: what `get`, `getMany` and the for-of
 * iteration return is memory the caller owns; `getView` and the cursor's `key()`/`value()`
 * are the store's own memory, and the invariants mode catches a write into them.
 *
 * The first test writes into every kind of returned value — a memtable value, a cached
 * block's, an uncached block's, a merge result (the `max` operator returns one of its
 * inputs, a view), an iterator entry, a getMany result — and proves the store unchanged
 * after a flush, a close and a reopen. (On the code before this change, where get returned
 * the view itself, the memtable value came back as "Xriginal".)
 */
import { isShaleError, MemoryFileSystem } from "@shale/base";
import { afterEach, describe, expect, it } from "vitest";
import { DB } from "./db.js";

const enc = (s: string) => new TextEncoder().encode(s);
const str = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

/**
 * A browser's `TextDecoder.decode` takes a non-shared BufferSource: a view of a
 * SharedArrayBuffer is a TypeError ("must not be shared"). Node's accepts both, so the
 * check is made here, as WebIDL makes it.
 */
function browserDecode(v: Uint8Array): string {
  if (v.buffer instanceof SharedArrayBuffer) {
    throw new TypeError("Failed to execute 'decode' on 'TextDecoder': must not be shared");
  }
  return new TextDecoder("utf-8", { fatal: true }).decode(v);
}

let dbs: DB[] = [];
afterEach(async () => {
  for (const db of dbs) await db.close();
  dbs = [];
});

async function openDb(fs: MemoryFileSystem): Promise<DB> {
  const db = await DB.open("/db", { fs, mergeOperator: "max" });
  dbs.push(db);
  return db;
}

/** Flips every byte of `v` ("scribbles" over it, as a careless caller would). */
function scribble(v: Uint8Array | undefined): void {
  expect(v).toBeDefined();
  for (let i = 0; i < v!.length; i++) v![i] = 0x58; // "X"
}

const EXPECTED: Record<string, string> = {
  "block:cached": "cached-original",
  "block:uncached": "uncached-original",
  "mem:value": "memtable-original",
  "merge:m": "9-max",
  "iter:a": "iter-original-a",
  "many:1": "many-original-1",
  "many:2": "many-original-2",
};

function expectUnchanged(db: DB): void {
  for (const [k, v] of Object.entries(EXPECTED)) expect(str(db.get(k)), k).toBe(v);
  const all = Object.fromEntries([...db.iterator()].map(([k, v]) => [str(k), str(v)]));
  expect(all).toEqual(EXPECTED);
}

describe("values the caller owns", () => {
  it("writing into every kind of returned value leaves the store unchanged, through flush, close and reopen", async () => {
    const fs = new MemoryFileSystem();
    let db = await openDb(fs);
    // In tables: a block that gets cached, one read without filling the cache, a merge base.
    db.put("block:cached", "cached-original");
    db.put("block:uncached", "uncached-original");
    db.merge("merge:m", "1-max");
    db.put("iter:a", "iter-original-a");
    db.put("many:1", "many-original-1");
    await db.flush();
    // In the memtable: a plain value and merge operands over the table's base.
    db.put("mem:value", "memtable-original");
    db.merge("merge:m", "9-max");
    db.put("many:2", "many-original-2");

    db.get("block:cached"); // now in the block cache
    scribble(db.get("block:cached")); // a cached block's value
    scribble(db.get("block:uncached", { fillCache: false })); // an uncached block's
    scribble(db.get("mem:value")); // the memtable arena's
    scribble(db.get("merge:m")); // max returns its largest operand: a view of the memtable
    for (const [k, v] of db.iterator({ lowerBound: "iter:", upperBound: "iter;" })) {
      scribble(k);
      scribble(v);
    }
    for (const [k, v] of db.iterator({ reverse: true })) {
      scribble(k);
      scribble(v);
    }
    for (const v of db.getMany(["many:1", "many:2", "mem:value", "block:cached"])) scribble(v);

    expectUnchanged(db);
    await db.flush();
    expectUnchanged(db);
    await db.compactRange();
    expectUnchanged(db);
    await db.close();
    dbs = [];
    db = await openDb(fs);
    expectUnchanged(db);
  });

  it("every returned value is a plain ArrayBuffer's (a browser's TextDecoder takes it); getView's from the memtable is not", async () => {
    const db = await openDb(new MemoryFileSystem());
    db.put("t:1", "table ✓");
    db.merge("t:m", "1");
    await db.flush();
    db.put("m:1", "memtable ✓");
    db.merge("t:m", "2");
    db.get("t:1"); // cached
    const returned: Uint8Array[] = [
      db.get("m:1")!,
      db.get("t:1")!,
      db.get("t:1", { fillCache: false })!,
      db.get("t:m")!,
      ...(db.getMany(["m:1", "t:1", "t:m"]) as Uint8Array[]),
      ...[...db.iterator()].flat(),
      ...[...db.iterator({ reverse: true })].flat(),
    ];
    expect(returned).toHaveLength(4 + 3 + 6 + 6);
    for (const v of returned) {
      expect(v.buffer).toBeInstanceOf(ArrayBuffer);
      expect(() => browserDecode(v)).not.toThrow();
    }
    expect(browserDecode(db.get("m:1")!)).toBe("memtable ✓");
    expect(browserDecode(db.get("t:m")!)).toBe("2");
    // The zero-copy read is what the browser refuses: the test tells them apart.
    const view = db.getView("m:1")!;
    expect(str(view)).toBe("memtable ✓");
    expect(() => browserDecode(view)).toThrow(/must not be shared/);
  });

  it("getMany reads every key at one sequence number and returns undefined for missing keys", async () => {
    const db = await openDb(new MemoryFileSystem());
    db.put("a", "1");
    db.put("c", "3");
    expect(db.getMany([]).length).toBe(0);
    expect(db.getMany(["a", "b", enc("c")]).map(str)).toEqual(["1", undefined, "3"]);
    const s = db.snapshot();
    db.put("a", "2");
    db.delete("c");
    expect(db.getMany(["a", "c"], { snapshot: s }).map(str)).toEqual(["1", "3"]);
    expect(db.getMany(["a", "c"]).map(str)).toEqual(["2", undefined]);
    s.release();
    expect(() => db.getMany("a" as never)).toThrow(TypeError);
    expect(() => db.getMany([5 as never])).toThrow(/keys\[0\]/);
  });

  it("has: true for a live key (value or merged), false for missing and deleted ones", async () => {
    const db = await openDb(new MemoryFileSystem());
    db.put("a", "1");
    db.merge("m", "5");
    db.put("d", "x");
    db.delete("d");
    db.deleteRange("r", "s");
    expect([db.has("a"), db.has("m"), db.has("d"), db.has("zz")]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    const s = db.snapshot();
    db.delete("a");
    expect(db.has("a")).toBe(false);
    expect(db.has("a", { snapshot: s })).toBe(true);
    s.release();
  });
});

describe("zero-copy views", () => {
  it("getView returns the same bytes as get, without a copy, and undefined for a missing key", async () => {
    const db = await openDb(new MemoryFileSystem());
    db.put("a", "memtable");
    expect(str(db.getView("a"))).toBe("memtable");
    expect(db.getView("a")!.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(db.getView("missing")).toBeUndefined();
    await db.flush();
    expect(str(db.getView("a"))).toBe("memtable");
  });

  it("invariants mode: a write into a getView view fails the next call into the database", async () => {
    const db = await openDb(new MemoryFileSystem());
    db.put("a", "original");
    for (const next of [
      () => db.get("b"),
      () => db.put("b", "1"),
      () => db.iterator().close(),
      () => db.flush(),
      () => db.getProperty("shale.stats"),
    ]) {
      const view = db.getView("a")!;
      const saved = view[0]!;
      view[0] = 0x58;
      let error: unknown;
      try {
        await next();
      } catch (e) {
        error = e;
      }
      view[0] = saved; // undo the damage (the view IS the stored value)
      expect(isShaleError(error), String(error)).toBe(true);
      expect(String((error as Error).message)).toMatch(/db\.getView\(\).*written into/);
    }
    // Reading a view is fine, and so is the next call.
    expect(str(db.getView("a"))).toBe("original");
    expect(str(db.get("a"))).toBe("original");
  });

  it("invariants mode: a write into the cursor's key() or value() fails its next move", async () => {
    const db = await openDb(new MemoryFileSystem());
    db.put("a", "1");
    db.put("b", "2");
    db.put("c", "3");
    for (const what of ["key", "value"] as const) {
      const it = db.iterator();
      it.seekToFirst();
      const view = it[what]();
      const saved = view[0]!;
      view[0] = view[0]! ^ 0xff;
      let error: unknown;
      try {
        it.next();
      } catch (e) {
        error = e;
      }
      view[0] = saved;
      it.close();
      expect(isShaleError(error), String(error)).toBe(true);
      expect(String((error as Error).message)).toContain(`iterator.${what}()`);
    }
    const it = db.iterator();
    it.seekToFirst();
    const value = it.value();
    value[0] = value[0]! ^ 0xff;
    expect(() => it.close()).toThrow(/written into/);
    expect(it.isClosed).toBe(true); // closed all the same
    value[0] = value[0]! ^ 0xff;
    expect(str(db.get("a"))).toBe("1");
  });
});
