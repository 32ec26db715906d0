/**
 * Crash test: a child process writes batches and acknowledges each on stdout; it is killed
 * with SIGKILL at a random moment, many times over the same directory. After each crash the
 * database must open, hold every acknowledged batch (synced or not: a returned write is in
 * the OS), and hold every batch entirely or not at all.
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
const dir = crashTestDir("shale-crash-");

describe("crash recovery (SIGKILL)", () => {
  it(`loses no acknowledged write and keeps batches atomic over ${rounds} kills`, async () => {
    const rnd = new Random(20261130);
    let acknowledged = 0;
    const acks: number[] = [];
    for (let run = 0; run < rounds; run++) {
      const lastAck = await runAndKill(fixture, [dir, String(run)], 20 + rnd.uniform(250));
      acknowledged += lastAck + 1;
      acks.push(lastAck);
      const db = await DB.open(dir, { writeBufferSize: 128 * 1024 });
      try {
        for (let b = 0; b <= lastAck + 1; b++) {
          const n = 1 + (b % 5);
          let present = 0;
          for (let j = 0; j < n; j++) if (db.get(`r${run}-b${b}-k${j}`) !== undefined) present++;
          if (b <= lastAck) expect(present, `run ${run} batch ${b} was acknowledged`).toBe(n);
          else expect([0, n], `run ${run} batch ${b} is torn`).toContain(present);
        }
        expect(db.get(`r${run}-b${lastAck + 2}-k0`)).toBeUndefined();
        // Earlier runs are all still there (a run killed before its first write returned
        // acknowledged nothing: SHALE_STRESS's 200 kills meet one).
        for (let r = Math.max(0, run - 3); r < run; r++)
          if (acks[r]! >= 0) expect(db.get(`r${r}-b0-k0`), `run ${r} batch 0`).toBeDefined();
      } finally {
        await db.close();
      }
    }
    // The writer really wrote (the kills did not all land before the first write).
    expect(acknowledged).toBeGreaterThan(rounds * 10);
  });
});
