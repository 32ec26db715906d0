/**
 * Universal and FIFO compaction against models of the tree's contents.
 *
 * - Universal: random puts, deletes, merges (max), range deletions, snapshots, flushes,
 *   waits for compactions, compactRange and reopens; every read (gets, iterators both ways,
 *   at snapshots) matches a sorted model, the tree keeps the universal shape (when idle, at
 *   most `trigger` sorted runs), and compactRange leaves one run in the last level.
 * - FIFO: random writes and flushes (one table each) under a small maxTableFilesSize; when
 *   idle the live tables are exactly the longest newest-first run of flushed tables whose
 *   bytes fit (so only the oldest data is ever dropped), every table stays in L0, and reads
 *   match a model built from the writes of the live tables and the memtable.
 */
import { compareBytes, MemoryFileSystem, Statistics, Ticker } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FlushJobInfo } from "./core/event-listeners.js";
import type { Snapshot } from "./core/snapshot.js";
import { DB } from "./db.js";
import { NUM_LEVELS } from "./version/version-edit.js";

const KEYS = ["", "a", "aa", "ab", "b", "ba", "c", "d", "e", "zz"];
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);
const byKey = ([a]: [string, string], [b]: [string, string]) => compareBytes(enc(a), enc(b));

type Write =
  | { t: "put"; k: string; v: string }
  | { t: "del"; k: string }
  | { t: "merge"; k: string; v: string }
  | { t: "range"; s: string; e: string };
type Op =
  | Write
  | { t: "snap" }
  | { t: "reopen" }
  | { t: "flush" }
  | { t: "wait" }
  | { t: "compact" }
  | { t: "check" };

const key = fc.constantFrom(...KEYS);
const val = fc.string({ maxLength: 6 });
const write: fc.Arbitrary<Write> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ t: fc.constant("put" as const), k: key, v: val }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("del" as const), k: key }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("merge" as const), k: key, v: val }) },
  {
    weight: 1,
    arbitrary: fc.tuple(key, key).map(([a, b]) => {
      const [s, e] = compareBytes(enc(a), enc(b)) <= 0 ? [a, b] : [b, a];
      return { t: "range" as const, s, e };
    }),
  },
);

function apply(state: Map<string, string>, w: Write): void {
  switch (w.t) {
    case "put":
      state.set(w.k, w.v);
      break;
    case "del":
      state.delete(w.k);
      break;
    case "merge": {
      const cur = state.get(w.k);
      state.set(w.k, cur === undefined || compareBytes(enc(w.v), enc(cur)) > 0 ? w.v : cur);
      break;
    }
    case "range":
      for (const k of KEYS) {
        if (compareBytes(enc(k), enc(w.s)) >= 0 && compareBytes(enc(k), enc(w.e)) < 0)
          state.delete(k);
      }
      break;
  }
}

function applyTo(db: DB, w: Write): void {
  if (w.t === "put") db.put(w.k, w.v);
  else if (w.t === "del") db.delete(w.k);
  else if (w.t === "merge") db.merge(w.k, w.v);
  else db.deleteRange(w.s, w.e);
}

function expectState(db: DB, state: Map<string, string>, snapshot?: Snapshot): void {
  const ro = snapshot === undefined ? undefined : { snapshot };
  for (const k of KEYS) expect(dec(db.get(k, ro)), `key "${k}"`).toBe(state.get(k));
  const expected = [...state.entries()].sort(byKey);
  const forward = [...db.iterator(ro)].map(([k, v]) => [dec(k), dec(v)]);
  expect(forward).toEqual(expected);
  const backward = [...db.iterator({ ...ro, reverse: true })].map(([k, v]) => [dec(k), dec(v)]);
  expect(backward).toEqual(expected.reverse());
}

/** Sorted runs of the current version: L0 tables + non-empty levels. */
function sortedRuns(db: DB): number {
  const levels = db.debugVersion().levels;
  let n = levels[0]!.length;
  for (let l = 1; l < NUM_LEVELS; l++) if (levels[l]!.length > 0) n++;
  return n;
}

describe("universal compaction against a model", () => {
  const op: fc.Arbitrary<Op> = fc.oneof(
    { weight: 12, arbitrary: write },
    { weight: 1, arbitrary: fc.constant({ t: "snap" as const }) },
    { weight: 1, arbitrary: fc.constant({ t: "reopen" as const }) },
    { weight: 3, arbitrary: fc.constant({ t: "flush" as const }) },
    { weight: 2, arbitrary: fc.constant({ t: "wait" as const }) },
    { weight: 1, arbitrary: fc.constant({ t: "compact" as const }) },
    { weight: 2, arbitrary: fc.constant({ t: "check" as const }) },
  );

  it("reads match the model; idle trees keep at most trigger runs", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 80 }),
        fc.integer({ min: 2, max: 4 }),
        fc.constantFrom(1, 50, 200),
        fc.boolean(),
        async (ops, trigger, amp, allowTrivialMove) => {
          const fs = new MemoryFileSystem();
          const options = {
            fs,
            mergeOperator: "max" as const,
            compactionStyle: "universal" as const,
            universal: { maxSizeAmplificationPercent: amp, allowTrivialMove },
            level0FileNumCompactionTrigger: trigger,
          };
          let db = await DB.open("/db", options);
          const state = new Map<string, string>();
          let snaps: { snap: Snapshot; state: Map<string, string> }[] = [];
          const check = () => {
            expectState(db, state);
            for (const s of snaps) expectState(db, s.state, s.snap);
          };
          try {
            for (const o of ops) {
              if (o.t === "snap") snaps.push({ snap: db.snapshot(), state: new Map(state) });
              else if (o.t === "reopen") {
                await db.close();
                db = await DB.open("/db", options);
                snaps = [];
              } else if (o.t === "flush") await db.flush();
              else if (o.t === "wait") {
                await db.waitForCompactions();
                expect(sortedRuns(db)).toBeLessThanOrEqual(trigger);
              } else if (o.t === "compact") {
                await db.compactRange();
                const levels = db.debugVersion().levels;
                // One run in the last level, or nothing at all.
                for (let l = 0; l < NUM_LEVELS - 1; l++) expect(levels[l]!.length).toBe(0);
              } else if (o.t === "check") check();
              else {
                applyTo(db, o);
                apply(state, o);
              }
            }
            check();
          } finally {
            await db.close();
          }
        },
      ),
      { numRuns: 80 },
    );
  });
});

describe("FIFO compaction against a model", () => {
  type FifoOp = Write | { t: "flush" } | { t: "reopen" };
  const fifoOp: fc.Arbitrary<FifoOp> = fc.oneof(
    { weight: 8, arbitrary: write },
    { weight: 3, arbitrary: fc.constant({ t: "flush" as const }) },
    { weight: 1, arbitrary: fc.constant({ t: "reopen" as const }) },
  );

  it("a flush of only an empty range deletion writes no table, and FIFO keeps the older one", async () => {
    const fs = new MemoryFileSystem();
    const options = {
      fs,
      compactionStyle: "fifo" as const,
      fifo: { maxTableFilesSize: 1200, ttl: 0 },
    };
    const db = await DB.open("/db", options);
    try {
      db.put("", "");
      await db.flush();
      db.deleteRange("ba", "ba");
      await db.flush();
      db.put("", "x");
      await db.waitForCompactions();
      expect(db.debugVersion().levels[0]!.length).toBe(1);
      expect(dec(db.get(""))).toBe("x");
    } finally {
      await db.close();
    }
  });

  it("drops only the oldest tables, keeping the newest that fit", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fifoOp, { minLength: 1, maxLength: 80 }),
        fc.integer({ min: 1200, max: 5000 }),
        async (ops, maxTableFilesSize) => {
          const fs = new MemoryFileSystem();
          const statistics = new Statistics();
          const options = {
            fs,
            mergeOperator: "max" as const,
            compactionStyle: "fifo" as const,
            fifo: { maxTableFilesSize, ttl: 0 },
            statistics,
            listeners: [
              { onFlushCompleted: (info: FlushJobInfo) => void flushed.push(info.fileNumber) },
            ],
          };
          /** Tables flushes wrote since the last look (a too-large one is already gone). */
          const flushed: number[] = [];
          let db = await DB.open("/db", options);
          /** Flushed tables, oldest first: number and the writes in it. */
          const tables: { number: number; writes: Write[] }[] = [];
          let pending: Write[] = [];
          const check = async () => {
            await db.waitForCompactions();
            const v = db.debugVersion();
            for (let l = 1; l < NUM_LEVELS; l++) expect(v.levels[l]!.length).toBe(0);
            const live = new Map(v.levels[0]!.map((f) => [f.number, f.size]));
            // The live tables are a newest-first run of the flushed ones ...
            let k = tables.length;
            let bytes = 0;
            while (k > 0 && live.has(tables[k - 1]!.number)) {
              bytes += live.get(tables[k - 1]!.number)!;
              k--;
            }
            expect(live.size).toBe(tables.length - k);
            expect(bytes).toBeLessThanOrEqual(maxTableFilesSize);
            // ... the longest one that fits.
            if (k > 0) {
              const older = tables[k - 1]!;
              expect(fs.exists(`/db/${String(older.number).padStart(6, "0")}.sst`)).toBe(false);
            }
            const state = new Map<string, string>();
            for (const t of tables.slice(k)) for (const w of t.writes) apply(state, w);
            for (const w of pending) apply(state, w);
            expectState(db, state);
            return k;
          };
          try {
            let dropped = 0;
            for (const o of ops) {
              if (o.t === "flush") {
                const before = new Set(db.debugVersion().levels[0]!.map((f) => f.number));
                const flushes = statistics.getTicker(Ticker.FlushCount);
                await db.flush();
                const added = db.debugVersion().levels[0]!.filter((f) => !before.has(f.number));
                expect(added.length).toBeLessThanOrEqual(1);
                // A table too large to fit alone is deleted as soon as it is installed.
                // Listeners are called on a later turn (setImmediate).
                for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
                const written = flushed.splice(0);
                if (statistics.getTicker(Ticker.FlushCount) > flushes && written.length === 0) {
                  // A memtable of deletions that hide nothing (an empty range, or nothing
                  // older in the tree) flushes to no table at all: nothing to keep, and
                  // nothing FIFO can drop. Only such a memtable may.
                  const before = new Map<string, string>();
                  for (const t of tables.slice(dropped)) for (const w of t.writes) apply(before, w);
                  const after = new Map(before);
                  for (const w of pending) apply(after, w);
                  expect(pending.every((w) => w.t === "del" || w.t === "range")).toBe(true);
                  expect([...after]).toEqual([...before]);
                  pending = [];
                } else if (statistics.getTicker(Ticker.FlushCount) > flushes) {
                  expect(written.length).toBe(1);
                  tables.push({ number: written[0]!, writes: pending });
                  pending = [];
                  // The newest table that does not fit alone is itself dropped.
                  const next = await check();
                  expect(next).toBeGreaterThanOrEqual(dropped);
                  dropped = next;
                }
              } else if (o.t === "reopen") {
                await db.close();
                db = await DB.open("/db", options);
              } else {
                applyTo(db, o);
                pending.push(o);
              }
            }
            await check();
          } finally {
            await db.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
