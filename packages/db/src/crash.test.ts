/**
 * Crash test: a child process writes batches and acknowledges each on stdout; it is killed
 * with SIGKILL at a random moment, many times over the same directory. After each crash the
 * database must open, hold every acknowledged batch (synced or not: a returned write is in
 * the OS), and hold every batch entirely or not at all.
 *
 * Run twice: with `default` only, and with column families "busy" and "idle" (each batch's
 * keys spread over the three; idle's data stays in the WALs across busy's flushes), where
 * every family must hold every acknowledged batch's keys.
 *
 * Runs against the BUILT package (the child imports "@shale/db" from dist). Rounds: 12 by
 * default, SHALE_STRESS=1 for 200.
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

const fixture = fixturePath("crash-writer.mjs");
const rounds = crashRounds(12, 200);

/** The family of key j of batch b (as the writer's `familyOf`). */
const familyOf = (families: boolean, b: number, j: number): string =>
  !families ? "default" : b % 7 === 0 && j === 0 ? "idle" : j % 2 === 0 ? "busy" : "default";

async function crashRuns(seed: number, families: boolean): Promise<void> {
  const dir = crashTestDir(families ? "shale-crash-families-" : "shale-crash-");
  const rnd = new Random(seed);
  let acknowledged = 0;
  const acks: number[] = [];
  for (let run = 0; run < rounds; run++) {
    const args = [dir, String(run), ...(families ? ["families"] : [])];
    const lastAck = await runAndKill(fixture, args, 20 + rnd.uniform(250));
    acknowledged += lastAck + 1;
    acks.push(lastAck);
    const db = await DB.open(dir, { writeBufferSize: 128 * 1024 });
    const get = (b: number, j: number, r = run) => {
      const cf = familyOf(families, b, j);
      return (cf === "default" ? db : db.columnFamily(cf)).get(`r${r}-b${b}-k${j}`);
    };
    try {
      for (let b = 0; b <= lastAck + 1; b++) {
        const n = 1 + (b % 5);
        let present = 0;
        for (let j = 0; j < n; j++) if (get(b, j) !== undefined) present++;
        if (b <= lastAck) expect(present, `run ${run} batch ${b} was acknowledged`).toBe(n);
        else expect([0, n], `run ${run} batch ${b} is torn`).toContain(present);
      }
      expect(get(lastAck + 2, 0)).toBeUndefined();
      // Earlier runs are all still there (a run killed before its first write returned
      // acknowledged nothing: SHALE_STRESS's 200 kills meet one).
      for (let r = Math.max(0, run - 3); r < run; r++)
        if (acks[r]! >= 0) expect(get(0, 0, r), `run ${r} batch 0`).toBeDefined();
    } finally {
      await db.close();
    }
  }
  // The writer really wrote (the kills did not all land before the first write).
  expect(acknowledged).toBeGreaterThan(rounds * 10);
  if (!families) return;
  // busy flushed to tables while idle's keys were in the WALs only: the retention rule was
  // exercised.
  const db = await DB.open(dir, { writeBufferSize: 128 * 1024 });
  try {
    let tables = 0;
    for (let level = 0; level < 7; level++)
      tables += Number(db.columnFamily("busy").getProperty(`shale.num-files-at-level${level}`));
    expect(tables).toBeGreaterThan(0);
  } finally {
    await db.close();
  }
}

describe("crash recovery (SIGKILL)", () => {
  it(`loses no acknowledged write and keeps batches atomic over ${rounds} kills`, async () => {
    await crashRuns(20261130, false);
  });

  it(`the same with column families busy and idle (batches across them) over ${rounds} kills`, async () => {
    await crashRuns(20261209, true);
  });
});
