/**
 * Prefix seek against a sorted model: random puts, deletes and range deletions spread over
 * the memtable, many L0 tables and an L1 of many small tables (each with a prefix filter),
 * then seeks with every read-option combination (iterator/prefix-seek.ts):
 * - totalOrderSeek, autoPrefixMode (with an upper bound): exactly the model's keys;
 * - prefixSameAsStart: exactly the model's keys of the seek key's prefix, both ways;
 * - the default prefix seek: exact while the keys have the seek key's prefix;
 * - a for-of walk over a range (seekToFirst at its lower bound): exactly the model's keys.
 * And that a prefix seek skips tables (BloomPrefixUseful) where a total-order one cannot.
 */
import { MemoryFileSystem, Statistics, Ticker, toBytes } from "@shale/base";
import { cappedPrefix, fixedPrefix, type PrefixExtractor } from "@shale/sstable";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { IteratorOptions } from "../core/options.js";
import { DB } from "../db.js";

const text = (b: Uint8Array) => Buffer.from(b).toString("latin1");
const keyArb = fc.string({ unit: fc.constantFrom("a", "b", "c", "\u00ff"), maxLength: 4 });

type Op =
  | { kind: "put"; key: string; value: string }
  | { kind: "del"; key: string }
  | { kind: "range"; start: string; end: string }
  | { kind: "flush" }
  | { kind: "compact" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("put" as const),
      key: keyArb,
      value: fc.string({ maxLength: 3 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("del" as const), key: keyArb }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("range" as const), start: keyArb, end: keyArb }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: "flush" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "compact" as const }) },
);

/** Bytewise order of latin1 strings. */
const cmp = (a: string, b: string) =>
  Buffer.compare(Buffer.from(a, "latin1"), Buffer.from(b, "latin1"));

function prefixOf(e: PrefixExtractor, key: string): string | undefined {
  const k = Buffer.from(key, "latin1");
  return e.inDomain(k) ? text(e.transform(k)) : undefined;
}

async function load(e: PrefixExtractor, ops: readonly Op[], stats?: Statistics) {
  const fs = new MemoryFileSystem();
  const db = await DB.open("/db", {
    fs,
    prefixExtractor: e,
    disableAutoCompactions: true,
    targetFileSizeBase: 1, // L1 of many one-key tables: the LevelFilesIterator's rule runs
    ...(stats !== undefined ? { statistics: stats } : {}),
  });
  const model = new Map<string, string>();
  for (const op of ops) {
    if (op.kind === "put") {
      db.put(Buffer.from(op.key, "latin1"), op.value);
      model.set(op.key, op.value);
    } else if (op.kind === "del") {
      db.delete(Buffer.from(op.key, "latin1"));
      model.delete(op.key);
    } else if (op.kind === "range") {
      if (cmp(op.start, op.end) >= 0) continue;
      db.deleteRange(Buffer.from(op.start, "latin1"), Buffer.from(op.end, "latin1"));
      for (const k of [...model.keys()])
        if (cmp(k, op.start) >= 0 && cmp(k, op.end) < 0) model.delete(k);
    } else if (op.kind === "flush") await db.flush();
    else await db.compactRange();
  }
  const sorted = [...model.keys()].sort(cmp);
  return { db, sorted };
}

/** Keys from a seek forwards (at most `max`). */
function forward(db: DB, target: string, ro: IteratorOptions, max = 64): string[] {
  const it = db.iterator(ro);
  try {
    const out: string[] = [];
    for (it.seek(Buffer.from(target, "latin1")); it.valid() && out.length < max; it.next())
      out.push(text(it.key()));
    return out;
  } finally {
    it.close();
  }
}

function backward(db: DB, target: string, ro: IteratorOptions, max = 64): string[] {
  const it = db.iterator(ro);
  try {
    const out: string[] = [];
    for (it.seekForPrev(Buffer.from(target, "latin1")); it.valid() && out.length < max; it.prev())
      out.push(text(it.key()));
    return out;
  } finally {
    it.close();
  }
}

const extractors: Record<string, PrefixExtractor> = {
  fixed2: fixedPrefix(2),
  capped2: cappedPrefix(2),
  user1: {
    name: "test.FirstByte",
    transform: (k) => k.subarray(0, 1),
    inDomain: (k) => k.length >= 1,
  },
};

describe.each(Object.entries(extractors))("prefix seek with %s", (_name, e) => {
  it("matches the sorted model", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 60 }),
        fc.array(keyArb, { minLength: 1, maxLength: 8 }),
        async (ops, targets) => {
          const { db, sorted } = await load(e, ops);
          try {
            for (const t of targets) {
              const geq = sorted.filter((k) => cmp(k, t) >= 0);
              const leq = sorted.filter((k) => cmp(k, t) <= 0).reverse();
              const p = prefixOf(e, t);
              const same = (k: string) => p === undefined || prefixOf(e, k) === p;
              // A for-of walk over a range (seekToFirst at the lower bound): total order.
              const walk = Array.from(db.iterator({ gte: Buffer.from(t, "latin1") }), ([k]) =>
                text(k),
              );
              expect(walk).toEqual(geq);
              // Total order: everything.
              expect(forward(db, t, { totalOrderSeek: true })).toEqual(geq.slice(0, 64));
              expect(backward(db, t, { totalOrderSeek: true })).toEqual(leq.slice(0, 64));
              // prefixSameAsStart: the seek key's prefix, exactly, both ways.
              const inPrefix = geq.filter(same);
              expect(forward(db, t, { prefixSameAsStart: true })).toEqual(
                p === undefined ? geq.slice(0, 64) : inPrefix.slice(0, 64),
              );
              if (p !== undefined)
                expect(backward(db, t, { prefixSameAsStart: true })).toEqual(leq.filter(same));
              // The default prefix seek: exact within the prefix.
              if (p !== undefined) {
                const got = forward(db, t, {});
                const head = got.slice(0, got.findIndex((k) => !same(k)) >>> 0);
                expect(got.filter(same)).toEqual(inPrefix.slice(0, got.filter(same).length));
                expect(head).toEqual(inPrefix.slice(0, head.length));
                if (got.length < 64) expect(got.filter(same)).toEqual(inPrefix);
              }
              // autoPrefixMode: total order within the bound.
              for (const upper of [`${t}b`, `${t}\u00ff`, "c"]) {
                const want = geq.filter((k) => cmp(k, upper) < 0);
                expect(
                  forward(db, t, {
                    autoPrefixMode: true,
                    upperBound: Buffer.from(upper, "latin1"),
                  }),
                ).toEqual(want.slice(0, 64));
              }
            }
          } finally {
            await db.close();
          }
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});

describe("prefix seek after a range deletion", () => {
  it("filters nothing for a seek key outside the domain, though the tombstone's end is inside it", async () => {
    // The merging iterator steps over ["", "a") by seeking the table to "a": the table has no
    // key of prefix "a", but the seek key "" has no prefix, so "c" must still be found.
    const ops: Op[] = [
      { kind: "put", key: "c", value: "" },
      { kind: "put", key: "", value: "" },
      { kind: "flush" },
      { kind: "range", start: "", end: "a" },
      { kind: "put", key: "", value: "" },
    ];
    const { db, sorted } = await load(extractors.user1!, ops);
    try {
      expect(sorted).toEqual(["", "c"]);
      expect(forward(db, "", { prefixSameAsStart: true })).toEqual(["", "c"]);
      expect(forward(db, "", {})).toEqual(["", "c"]);
    } finally {
      await db.close();
    }
  });
});

describe("prefix seek skips tables", () => {
  it("by their prefix filters (BloomPrefixUseful), and the memtable keeps its keys", async () => {
    const stats = new Statistics();
    const ops: Op[] = [];
    // 10 L0 tables of one prefix each.
    for (let t = 0; t < 10; t++) {
      for (let i = 0; i < 20; i++) ops.push({ kind: "put", key: `p${t}k${i}`, value: "v" });
      ops.push({ kind: "flush" });
    }
    ops.push({ kind: "put", key: "p3zz", value: "mem" });
    const { db } = await load(fixedPrefix(2), ops, stats);
    try {
      const before = stats.getTicker(Ticker.BloomPrefixUseful);
      const got = forward(db, "p3", { prefixSameAsStart: true });
      expect(got).toHaveLength(21);
      expect(got.at(-1)).toBe("p3zz");
      expect(stats.getTicker(Ticker.BloomPrefixChecked)).toBeGreaterThanOrEqual(10);
      // Nine of the ten tables lack "p3" (a false positive at 10 bits per key is rare).
      expect(stats.getTicker(Ticker.BloomPrefixUseful) - before).toBeGreaterThanOrEqual(8);
      const checked = stats.getTicker(Ticker.BloomPrefixChecked);
      forward(db, "p3", { totalOrderSeek: true });
      forward(db, "p3", { autoPrefixMode: true });
      expect(stats.getTicker(Ticker.BloomPrefixChecked)).toBe(checked);
      // autoPrefixMode with an upper bound in the prefix (or its successor) uses the filters.
      forward(db, "p3", { autoPrefixMode: true, upperBound: toBytes("p4") });
      expect(stats.getTicker(Ticker.BloomPrefixChecked)).toBeGreaterThan(checked);
    } finally {
      await db.close();
    }
  });
});
