/**
 * Statistics cost nothing when off: resolving merges — in `get`, `getMany`, forward and
 * reverse iteration and at a snapshot, with operands in the memtable and in a flushed table —
 * reads no clock when the database has no Statistics, nor when its Statistics is at level
 * "disabled" or "except-timers". At level "all" every merge is counted (MergeOperations),
 * timed (MergeNanos histogram, MergeTimeNanos ticker) and failures are counted
 * (MergeFailures).
 *
 * The clocks watched are the ones the engine can read: `performance.now` (Statistics' default
 * clock and the db's job timers), `Date.now`, `process.hrtime` and `process.hrtime.bigint`,
 * and the clock injected into a Statistics object.
 */
import { Histogram, MemoryFileSystem, Statistics, type StatsLevel, Ticker } from "@shale/base";
import { afterEach, describe, expect, it, type MockInstance, vi } from "vitest";
import {
  decodeUint64,
  encodeUint64,
  type MergeOperator,
  uint64AddOperator,
} from "./core/merge-operator.js";
import type { DbOptions } from "./core/options.js";
import { DB } from "./db.js";

/** uint64add that counts its fullMerge calls (a user's object: it runs on the main thread). */
function countingAdd(): MergeOperator & { calls: number } {
  const op = {
    name: "test.counting-add",
    calls: 0,
    fullMerge(key: Uint8Array, existing: Uint8Array | undefined, operands: readonly Uint8Array[]) {
      op.calls++;
      return uint64AddOperator.fullMerge(key, existing, operands);
    },
  };
  return op;
}

/**
 * Keys with merges in the memtable, over a flushed L0 table, onto a base and onto a
 * deletion. Returns the expected sums.
 */
async function setUp(options: DbOptions): Promise<{ db: DB; op: ReturnType<typeof countingAdd> }> {
  const op = countingAdd();
  const db = await DB.open("/db", { fs: new MemoryFileSystem(), ...options, mergeOperator: op });
  db.put("base", encodeUint64(100));
  db.put("deleted", encodeUint64(1000));
  db.delete("deleted");
  for (let i = 1; i <= 10; i++) {
    db.merge("base", encodeUint64(i));
    db.merge("deleted", encodeUint64(i));
    db.merge("nobase", encodeUint64(i));
  }
  await db.flush();
  for (let i = 11; i <= 20; i++) {
    db.merge("base", encodeUint64(i));
    db.merge("nobase", encodeUint64(i));
  }
  db.merge("memonly", encodeUint64(7));
  db.put("plain", encodeUint64(3));
  return { db, op };
}

const WANT_BEFORE: Record<string, number> = {
  base: 310,
  deleted: 55,
  memonly: 7,
  nobase: 210,
  plain: 3,
};
const WANT_NOW: Record<string, number> = { ...WANT_BEFORE, base: 310 + 5, nobase: 210 + 5 };
const MERGED_KEYS = 4; // base, deleted, memonly, nobase

/**
 * Resolves the merged keys through every read path and checks the values. Returns the number
 * of merges the reads needed (each read of a merged key is one `fullMerge`).
 */
function readEverything(db: DB): number {
  const snap = db.snapshot();
  db.merge("base", encodeUint64(5));
  db.merge("nobase", encodeUint64(5));
  let merges = 0;
  for (const [k, v] of Object.entries(WANT_NOW)) {
    expect(decodeUint64(db.get(k)!), `get ${k}`).toBe(v);
    expect(decodeUint64(db.get(k, { snapshot: snap })!), `get ${k} at snapshot`).toBe(
      WANT_BEFORE[k],
    );
  }
  merges += 2 * MERGED_KEYS;
  const keys = Object.keys(WANT_BEFORE);
  expect(db.getMany(keys).map((b) => decodeUint64(b!))).toEqual(keys.map((k) => WANT_NOW[k]));
  merges += MERGED_KEYS;
  const scan = (reverse: boolean, snapshot?: typeof snap) =>
    Object.fromEntries(
      Array.from(db.iterator({ reverse, ...(snapshot ? { snapshot } : {}) }), ([k, v]) => [
        new TextDecoder().decode(k),
        decodeUint64(v),
      ]),
    );
  expect(scan(false)).toEqual(WANT_NOW);
  expect(scan(true)).toEqual(WANT_NOW);
  expect(scan(false, snap)).toEqual(WANT_BEFORE);
  expect(scan(true, snap)).toEqual(WANT_BEFORE);
  merges += 4 * MERGED_KEYS;
  snap.release();
  return merges;
}

type Spy = MockInstance<(...args: never[]) => unknown>;
let spies: Spy[] = [];
afterEach(() => {
  for (const s of spies) s.mockRestore();
  spies = [];
});

/** Spies on every global clock (calling through); returns a function counting their calls. */
function watchGlobalClocks(): () => Record<string, number> {
  const hrtime = process.hrtime;
  const bigint = vi.spyOn(hrtime, "bigint");
  const named: [string, Spy][] = [
    ["performance.now", vi.spyOn(performance, "now") as unknown as Spy],
    ["Date.now", vi.spyOn(Date, "now") as unknown as Spy],
    ["process.hrtime.bigint", bigint as unknown as Spy],
    ["process.hrtime", vi.spyOn(process, "hrtime") as unknown as Spy],
  ];
  // The spy that replaced process.hrtime keeps its .bigint.
  (process.hrtime as { bigint: typeof hrtime.bigint }).bigint = hrtime.bigint;
  spies.push(...named.map(([, s]) => s));
  return () => Object.fromEntries(named.map(([name, s]) => [name, s.mock.calls.length]));
}

const NO_CALLS = {
  "performance.now": 0,
  "Date.now": 0,
  "process.hrtime.bigint": 0,
  "process.hrtime": 0,
};

describe("merge statistics", () => {
  it("reads no clock while resolving merges when statistics are off", async () => {
    const { db, op } = await setUp({});
    const calls = watchGlobalClocks();
    op.calls = 0;
    const merges = readEverything(db);
    expect(op.calls).toBe(merges);
    expect(calls()).toEqual(NO_CALLS);
    // The spies do see the engine's clock: one read through each shows up.
    performance.now();
    Date.now();
    process.hrtime();
    process.hrtime.bigint();
    expect(calls()).toEqual({
      "performance.now": 1,
      "Date.now": 1,
      "process.hrtime.bigint": 1,
      "process.hrtime": 1,
    });
    await db.close();
  });

  for (const level of ["disabled", "except-timers"] as StatsLevel[]) {
    it(`reads no clock at level "${level}"; counts merges only when not disabled`, async () => {
      const clock = vi.fn(() => 0);
      const stats = new Statistics({ level, clock });
      const { db, op } = await setUp({ statistics: stats });
      stats.reset();
      clock.mockClear();
      const calls = watchGlobalClocks();
      op.calls = 0;
      const merges = readEverything(db);
      expect(op.calls).toBe(merges);
      expect(clock).not.toHaveBeenCalled();
      expect(calls()).toEqual(NO_CALLS);
      expect(stats.getTicker(Ticker.MergeOperations)).toBe(level === "disabled" ? 0 : merges);
      expect(stats.getTicker(Ticker.MergeTimeNanos)).toBe(0);
      expect(stats.histogram(Histogram.MergeNanos).count).toBe(0);
      await db.close();
    });
  }

  it('counts and times every merge at level "all", and counts failures', async () => {
    // Each clock read advances 250 ns: one merge (two reads, nothing between) takes 250 ns.
    let t = 0;
    const clock = vi.fn(() => (t += 250));
    const stats = new Statistics({ clock });
    const { db, op } = await setUp({ statistics: stats });
    stats.reset();
    op.calls = 0;
    const merges = readEverything(db);
    expect(op.calls).toBe(merges);
    expect(stats.getTicker(Ticker.MergeOperations)).toBe(merges);
    expect(stats.getTicker(Ticker.MergeTimeNanos)).toBe(250 * merges);
    const h = stats.histogram(Histogram.MergeNanos);
    expect([h.count, h.sum, h.min, h.max]).toEqual([merges, 250 * merges, 250, 250]);
    expect(stats.getTicker(Ticker.MergeFailures)).toBe(0);

    db.merge("broken", new Uint8Array(3)); // not 8 bytes: uint64add fails
    expect(() => db.get("broken")).toThrowError(/Corruption/);
    expect(() => Array.from(db.iterator())).toThrowError(/Corruption/);
    expect(stats.getTicker(Ticker.MergeFailures)).toBe(2);
    // The scan merged "base" before it failed on "broken": every call counts.
    expect(op.calls).toBe(merges + 3);
    expect(stats.getTicker(Ticker.MergeOperations)).toBe(op.calls);
    await db.close();
  });
});
