/**
 * The failure signal of merge operators: a `fullMerge` that returns undefined makes the read
 * or compaction that needs it fail with ShaleError Corruption (RocksDB's behaviour) — `get`,
 * `getMany`, every iterator move that meets the key, and `compactRange` (also when the
 * compaction runs in a worker thread) — while other keys stay readable and nothing is lost.
 * And `uint64add`'s documented contract: a base or operand that is not 8 bytes makes the
 * merge fail; `decodeUint64` rejects such values with InvalidArgument.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ErrorCode, isShaleError, MemoryFileSystem } from "@shale/base";
import { thrown } from "@shale/base/testing";
import { afterAll, describe, expect, it } from "vitest";
import {
  decodeUint64,
  encodeUint64,
  type MergeOperator,
  uint64AddOperator,
} from "./core/merge-operator.js";
import type { DbOptions } from "./core/options.js";
import { DB } from "./db.js";

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const str = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);
const tmp = mkdtempSync(join(tmpdir(), "shale-merge-failures-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function expectCode(e: unknown, code: ErrorCode, what: string): void {
  expect(isShaleError(e, code), `${what}: ${String(e)}`).toBe(true);
}

/**
 * Every read path that meets "bad" fails with Corruption; "good" stays readable. The keys
 * are "a" < "bad" < "good" < "z".
 */
function expectReadsFail(db: DB, goodValue: string): void {
  expectCode(
    thrown(() => db.get("bad")),
    "Corruption",
    "get",
  );
  expect(str(db.get("good"))).toBe(goodValue);
  expectCode(
    thrown(() => db.getMany(["good", "bad"])),
    "Corruption",
    "getMany",
  );
  const it = db.iterator();
  try {
    // Walking onto the key from either side fails at the move that reaches it.
    it.seekToFirst();
    expect(str(it.key())).toBe("a");
    expectCode(
      thrown(() => it.next()),
      "Corruption",
      "next onto bad",
    );
    expect(it.valid()).toBe(false);
    it.seekToLast();
    it.prev();
    expect(str(it.key())).toBe("good");
    expectCode(
      thrown(() => it.prev()),
      "Corruption",
      "prev onto bad",
    );
    expect(it.valid()).toBe(false);
    for (const seek of [() => it.seek("b"), () => it.seekForPrev("bb")])
      expectCode(thrown(seek), "Corruption", "seek onto bad");
    it.seek("c");
    expect(str(it.value())).toBe(goodValue);
  } finally {
    it.close();
  }
  expectCode(
    thrown(() => Array.from(db.iterator())),
    "Corruption",
    "forward scan",
  );
  expectCode(
    thrown(() => Array.from(db.iterator({ reverse: true }))),
    "Corruption",
    "reverse scan",
  );
}

/** Fails exactly for the key "bad"; concatenates otherwise. */
const failing: MergeOperator = {
  name: "test.fails-on-bad",
  fullMerge(key, existing, operands) {
    if (str(key) === "bad") return undefined;
    return enc([existing, ...operands].map((b) => (b === undefined ? "" : str(b))).join(""));
  },
};

async function expectCompactionFails(db: DB, what: string): Promise<void> {
  const l0 = db.getProperty("shale.num-files-at-level0");
  const e = await db.compactRange().then(
    () => undefined,
    (err: unknown) => err,
  );
  expectCode(e, "Corruption", `compactRange ${what}`);
  // Nothing was installed: the inputs are still where they were.
  expect(db.getProperty("shale.num-files-at-level0")).toBe(l0);
}

describe("a merge operator that fails", () => {
  for (const [label, fsOptions] of [
    ["memory file system", (): DbOptions => ({ fs: new MemoryFileSystem() })],
    ["node file system", (): DbOptions => ({})],
  ] as const) {
    it(`fails reads and compactions with Corruption (${label})`, async () => {
      const dir = label === "memory file system" ? "/db" : mkdtempSync(join(tmp, "failing-"));
      const options: DbOptions = { ...fsOptions(), mergeOperator: failing };
      let db = await DB.open(dir, options);
      db.put("a", "A");
      db.merge("bad", "x");
      db.merge("good", "g1");
      db.put("z", "Z");
      // Operands in the memtable.
      expectReadsFail(db, "g1");
      await db.flush();
      // Operands in an L0 table, and in the memtable over it.
      expectReadsFail(db, "g1");
      db.merge("bad", "y");
      db.merge("good", "g2");
      expectReadsFail(db, "g1g2");
      await db.flush();
      expect(db.getProperty("shale.num-files-at-level0")).toBe("2");
      await expectCompactionFails(db, "user operator");
      // The database stops taking writes after a failed background job...
      expect(isShaleError(thrown(() => db.put("q", "Q")))).toBe(true);
      // close reports the failure (once) and still releases the LOCK.
      await expect(db.close()).rejects.toMatchObject({ code: "Corruption" });
      // ...and loses nothing: reopened, everything reads as before.
      db = await DB.open(dir, options);
      expect(str(db.get("a"))).toBe("A");
      expectReadsFail(db, "g1g2");
      await db.close();
    });
  }
});

describe("uint64add with values that are not 8 bytes", () => {
  it("decodeUint64 rejects them with InvalidArgument; encode/decode round-trip", () => {
    for (const n of [0, 1, 7, 9, 16])
      expectCode(
        thrown(() => decodeUint64(new Uint8Array(n))),
        "InvalidArgument",
        `${n} bytes`,
      );
    for (const v of [0, 1, 255, 256, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1]) {
      const b = encodeUint64(v);
      expect(b.length).toBe(8);
      expect(decodeUint64(b)).toBe(v);
      expect(new DataView(b.buffer).getBigUint64(0, true)).toBe(BigInt(v));
    }
  });

  it("the operator fails (undefined) on a bad base or operand, in full and partial merges", () => {
    const k = enc("k");
    const good = encodeUint64(5);
    for (const n of [0, 1, 7, 9, 16]) {
      const bad = new Uint8Array(n);
      expect(uint64AddOperator.fullMerge(k, undefined, [good, bad]), `operand ${n}`).toBe(
        undefined,
      );
      expect(uint64AddOperator.fullMerge(k, bad, [good]), `base ${n}`).toBe(undefined);
      expect(uint64AddOperator.partialMerge!(k, good, bad), `right ${n}`).toBe(undefined);
      expect(uint64AddOperator.partialMerge!(k, bad, good), `left ${n}`).toBe(undefined);
    }
    expect(decodeUint64(uint64AddOperator.fullMerge(k, encodeUint64(2), [good, good])!)).toBe(12);
    expect(decodeUint64(uint64AddOperator.partialMerge!(k, good, good)!)).toBe(10);
  });

  for (const [label, fsOptions] of [
    ["memory file system", (): DbOptions => ({ fs: new MemoryFileSystem() })],
    ["node file system, worker compaction", (): DbOptions => ({})],
  ] as const) {
    it(`makes reads and compactions fail with Corruption (${label})`, async () => {
      const onNode = label !== "memory file system";
      for (const [what, write] of [
        ["a 7-byte operand", (db: DB) => db.merge("k", new Uint8Array(7))],
        ["a 9-byte operand", (db: DB) => db.merge("k", new Uint8Array(9))],
        ["an empty operand", (db: DB) => db.merge("k", new Uint8Array(0))],
        ["a 3-byte base", (db: DB) => db.put("k", "abc")],
      ] as const) {
        const dir = onNode ? mkdtempSync(join(tmp, "u64-")) : "/db";
        const db = await DB.open(dir, { ...fsOptions(), mergeOperator: "uint64add" });
        db.put("a", encodeUint64(1));
        db.merge("ok", encodeUint64(40));
        db.merge("ok", encodeUint64(2));
        db.merge("k", encodeUint64(1));
        write(db); // the write itself is accepted: the failure is at merge time
        db.merge("k", encodeUint64(1));
        expectCode(
          thrown(() => db.get("k")),
          "Corruption",
          what,
        );
        expect(decodeUint64(db.get("ok")!)).toBe(42);
        expectCode(
          thrown(() => Array.from(db.iterator())),
          "Corruption",
          `${what}: scan`,
        );
        await db.flush();
        db.merge("k", encodeUint64(1));
        await db.flush();
        await expectCompactionFails(db, what);
        expectCode(
          thrown(() => db.get("k")),
          "Corruption",
          `${what}: after the failed compaction`,
        );
        expect(decodeUint64(db.get("ok")!)).toBe(42);
        await expect(db.close()).rejects.toMatchObject({ code: "Corruption" });
      }
    });
  }
});
