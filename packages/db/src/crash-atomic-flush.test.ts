/**
 * Crash tests of atomicFlush (SIGKILL): a child writes batches across "busy" (a small
 * memtable that fills often), "default" and "idle" (every third batch), with a fourth family
 * never written, and is killed at a random moment, many times over the same directory.
 *
 * - With the WAL (synced writes): every acknowledged batch is in every family it wrote.
 * - Without it (`disableWAL`): only the atomic groups make data durable, so after each crash
 *   the families must agree: every batch is in all its families or in none, the batches
 *   present are a prefix of the run's, and a later crash never takes away what an earlier
 *   reopen found. Without atomicFlush, busy's flushes would carry its half of the batches to
 *   disk without default's and idle's.
 *
 * Runs against the BUILT package (the child imports "@shale/db" from dist). Rounds: 5 each
 * by default, SHALE_STRESS=1 for 100.
 */
import { Random } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import { DB } from "./db.js";
import {
  crashRounds,
  crashTestDir,
  fixturePath,
  runAndKill,
} from "./test-support/crash-runner.test-support.js";

const fixture = fixturePath("crash-atomic-writer.mjs");
const rounds = crashRounds(5, 100);
const timeout = 20_000 + rounds * 3_000;

const str = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : new TextDecoder().decode(v);

/** The families batch b wrote into, with their values. */
function batchWrites(b: number): Array<[string, string]> {
  const out: Array<[string, string]> = [
    ["busy", `${"b".repeat(4096)}${b}`],
    ["default", `default ${b}`],
  ];
  if (b % 3 === 0) out.push(["idle", `idle ${b}`]);
  return out;
}

/**
 * Checks run `r` (acknowledged up to `lastAck`, the last run: one more may be in flight):
 * each batch whole or absent in its families; returns how many of the first batches are
 * present (those after them are all absent).
 */
function checkRun(db: DB, r: number, lastAck: number, inFlight: boolean): number {
  let present = 0;
  let gap = false;
  const upTo = inFlight ? lastAck + 1 : lastAck;
  for (let b = 0; b <= upTo; b++) {
    const key = `r${r}-b${b}`;
    const writes = batchWrites(b);
    const got = writes.map(([cf]) => str(db.columnFamily(cf).get(key)));
    const count = got.filter((v) => v !== undefined).length;
    expect(
      [0, writes.length],
      `run ${r} batch ${b} is torn across families: ${got.map((v) => v?.slice(-12))}`,
    ).toContain(count);
    if (count > 0) {
      expect(got).toEqual(writes.map(([, v]) => v));
      expect(gap, `run ${r} batch ${b} is present after an absent one`).toBe(false);
      present++;
    } else gap = true;
  }
  expect(db.columnFamily("other").get(`r${r}-b0`)).toBeUndefined();
  return present;
}

async function crashRuns(seed: number, mode: "wal" | "nowal"): Promise<number[]> {
  const dir = crashTestDir(`shale-crash-atomic-${mode}-`);
  const rnd = new Random(seed);
  const acks: number[] = [];
  /** Nowal: how many batches of each run the first reopen after it found. */
  const found: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // Without the WAL, a run killed before busy's memtable filled (about 15 batches) leaves
    // nothing flushed to check: each such run is killed only after 48 batches (three fills),
    // however slow the machine.
    const minAcks = mode === "nowal" ? 48 : 0;
    const killAfterMs = 150 + rnd.uniform(600);
    acks.push(
      await runAndKill(fixture, [dir, String(r), mode], killAfterMs, undefined, undefined, minAcks),
    );
    const db = await DB.open(dir, {});
    try {
      for (let q = 0; q <= r; q++) {
        const present = checkRun(db, q, acks[q]!, q === r);
        if (mode === "wal")
          expect(present, `run ${q}: acknowledged ${acks[q]! + 1}`).toBeGreaterThanOrEqual(
            acks[q]! + 1,
          );
        else if (q < r) expect(present, `run ${q} lost flushed batches`).toBe(found[q]);
        else found.push(present);
      }
    } finally {
      await db.close();
    }
  }
  return found;
}

describe("crash recovery with atomicFlush (SIGKILL)", () => {
  it(
    `keeps every acknowledged synced batch in every family over ${rounds} kills`,
    async () => {
      await crashRuns(20261207, "wal");
    },
    timeout,
  );

  it(
    `without the WAL, the families' flushed states agree (a prefix of whole batches) over ${rounds} kills`,
    async () => {
      const found = await crashRuns(20261208, "nowal");
      // Groups were installed: some runs left flushed batches behind.
      expect(
        found.reduce((a, n) => a + n, 0),
        `found ${found}`,
      ).toBeGreaterThan(0);
    },
    timeout,
  );
});
