/**
 * Batched `getMany` against a loop of `get` (the model): random puts, deletes, merges
 * (stringappend), range deletions, snapshots, flushes to L0 and compactions into several
 * small L1+ files of small data blocks; then batches of random keys (present, missing,
 * repeated, in any order) read at the latest state and at every snapshot, with and without
 * read options, must give exactly what `get` gives key by key. Plus a custom comparator
 * (reverse order: the batch is sorted by the family's comparator, not bytewise), results
 * that are copies the caller owns, and bad input.
 */
import { MemoryFileSystem, reverseBytewiseComparator, ShaleError } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Snapshot } from "../core/snapshot.js";
import { DB } from "../db.js";

const KEYS = Array.from({ length: 40 }, (_, i) => `k${String(i * 7).padStart(3, "0")}`);
const dec = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

type Op =
  | { t: "put"; k: string; v: string }
  | { t: "del"; k: string }
  | { t: "merge"; k: string; v: string }
  | { t: "range"; a: string; b: string }
  | { t: "snap" }
  | { t: "flush" }
  | { t: "compact"; a: string; b: string };

const key = fc.constantFrom(...KEYS);
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      t: fc.constant("put" as const),
      k: key,
      v: fc.string({ minLength: 1, maxLength: 40 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("del" as const), k: key }) },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant("merge" as const),
      k: key,
      v: fc.string({ maxLength: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("range" as const), a: key, b: key }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("snap" as const) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("flush" as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("compact" as const), a: key, b: key }) },
);

const batchKeys = fc.array(fc.oneof(key, fc.constantFrom("a", "k0001", "zz", "")), {
  minLength: 0,
  maxLength: 30,
});

async function apply(db: DB, ops: readonly Op[], snapshots: Snapshot[]): Promise<void> {
  for (const o of ops) {
    switch (o.t) {
      case "put":
        db.put(o.k, o.v);
        break;
      case "del":
        db.delete(o.k);
        break;
      case "merge":
        db.merge(o.k, o.v);
        break;
      case "range":
        db.deleteRange(o.a < o.b ? o.a : o.b, o.a < o.b ? o.b : o.a);
        break;
      case "snap":
        snapshots.push(db.snapshot());
        break;
      case "flush":
        await db.flush();
        break;
      case "compact":
        await db.compactRange(o.a < o.b ? o.a : o.b, o.a < o.b ? o.b : o.a);
        break;
    }
  }
}

function expectSameAsGets(db: DB, keys: readonly string[], snapshot?: Snapshot): void {
  const options = snapshot === undefined ? undefined : { snapshot };
  const many = db.getMany(keys, options).map(dec);
  const loop = keys.map((k) => dec(db.get(k, options)));
  expect(many).toEqual(loop);
}

describe("getMany (batched MultiGet)", () => {
  it("equals a loop of get across memtables, L0, levels, deletions, merges and snapshots", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 120 }),
        fc.array(batchKeys, { minLength: 1, maxLength: 4 }),
        async (ops, batches) => {
          const fs = new MemoryFileSystem();
          const db = await DB.open("/db", {
            fs,
            mergeOperator: "stringappend",
            blockSize: 256,
            targetFileSizeBase: 512,
            maxBytesForLevelBase: 1024,
            level0FileNumCompactionTrigger: 3,
            blockCacheSize: 4096,
          });
          const snapshots: Snapshot[] = [];
          try {
            // A base of every key in several multi-block files of L1+, under the random ops.
            for (const k of KEYS) db.put(k, `base-${k}-${"x".repeat(20)}`);
            await db.flush();
            await db.compactRange();
            await apply(db, ops, snapshots);
            for (const keys of batches) {
              expectSameAsGets(db, keys);
              for (const s of snapshots) expectSameAsGets(db, keys, s);
              const ro = { fillCache: false, verifyChecksums: true };
              expect(db.getMany(keys, ro).map(dec)).toEqual(keys.map((k) => dec(db.get(k, ro))));
            }
            // Everything at once: in reverse order, and already in order (no sort needed).
            expectSameAsGets(db, [...KEYS].reverse());
            expectSameAsGets(db, [...KEYS, KEYS[KEYS.length - 1]!]);
          } finally {
            for (const s of snapshots) s.release();
            await db.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("sorts the batch by the family's comparator", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, comparator: reverseBytewiseComparator, blockSize: 256 });
    for (let i = 0; i < 200; i++) db.put(`k${String(i).padStart(3, "0")}`, `v${i}`);
    await db.flush();
    await db.compactRange();
    for (let i = 0; i < 200; i += 3) db.put(`k${String(i).padStart(3, "0")}`, `w${i}`);
    const keys = ["k005", "k199", "k000", "k150", "k003", "nope", "k003"];
    expect(db.getMany(keys).map(dec)).toEqual(["v5", "v199", "w0", "w150", "w3", undefined, "w3"]);
    await db.close();
  });

  it("hands out copies the caller owns", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    db.put("a", "1");
    db.put("b", "2");
    await db.flush();
    db.put("c", "3");
    const [a, b, c] = db.getMany(["a", "b", "c"]);
    a![0] = 0x39;
    c![0] = 0x39;
    expect(dec(db.get("a"))).toBe("1");
    expect(dec(db.get("c"))).toBe("3");
    expect(dec(b)).toBe("2");
    expect(db.getMany([])).toEqual([]);
    await db.close();
  });

  it("refuses bad input", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    expect(() => db.getMany("a" as never)).toThrow(TypeError);
    expect(() => db.getMany(["a", 3] as never)).toThrow(/keys\[1\]/);
    expect(() => db.getMany(["a"], { bogus: 1 } as never)).toThrow(
      expect.objectContaining({ code: "InvalidArgument" }),
    );
    await db.close();
    try {
      db.getMany(["a"]);
      expect.unreachable();
    } catch (e) {
      expect(ShaleError.isInstance(e) && e.code).toBe("Closed");
    }
  });
});
