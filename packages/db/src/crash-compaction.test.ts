/**
 * Crash test with compactions running all the time: a child process writes batches (tiny
 * memtables and levels, so flushes and worker-thread compactions never stop) and is killed
 * with SIGKILL at a random moment, many times over the same directory. After each crash the
 * database must open, hold every acknowledged batch, keep the newest acknowledged version of
 * each overwritten key, and hold no table that its version does not list.
 *
 * Runs against the BUILT package (the child imports "@shale/db" from dist). Rounds: 6 by
 * default, SHALE_STRESS=1 for 100.
 */
import { readdirSync } from "node:fs";
import { Random } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import { DB } from "./db.js";
import {
  crashRounds,
  crashTestDir,
  fixturePath,
  runAndKill,
} from "./test-support/crash-runner.test-support.js";

/** Tiny memtables and levels: flushes and compactions never stop. */
const OPTIONS = {
  writeBufferSize: 64 * 1024,
  targetFileSizeBase: 16 * 1024,
  maxBytesForLevelBase: 64 * 1024,
  maxBytesForLevelMultiplier: 4,
  level0FileNumCompactionTrigger: 2,
};

const fixture = fixturePath("crash-compaction-writer.mjs");
const rounds = crashRounds(6, 100);
const dir = crashTestDir("shale-crash-compaction-");

describe("crash recovery with compactions (SIGKILL)", () => {
  it(
    `loses no acknowledged write over ${rounds} kills mid-compaction`,
    async () => {
      const rnd = new Random(20261201);
      let compactedTables = 0;
      const acks: number[] = [];
      for (let run = 0; run < rounds; run++) {
        const lastAck = await runAndKill(
          fixture,
          [dir, String(run), JSON.stringify(OPTIONS)],
          150 + rnd.uniform(600),
        );
        const db = await DB.open(dir, OPTIONS);
        try {
          for (let b = 0; b <= lastAck; b++) {
            const n = 1 + (b % 5);
            for (let j = 0; j < n; j++)
              expect(db.get(`r${run}-b${b}-k${j}`), `run ${run} batch ${b}`).toBeDefined();
          }
          // Each hot key holds the newest acknowledged write to it, or a newer one that made it.
          for (let h = 0; h < 50 && h <= lastAck; h++) {
            const newestAcked = lastAck - ((((lastAck - h) % 50) + 50) % 50);
            const got = new TextDecoder().decode(db.get(`hot${h}`)!);
            const [r, b] = got.split(":").map(Number);
            expect(r, `hot${h}`).toBe(run);
            expect(b! % 50, `hot${h}`).toBe(h);
            expect(b!, `hot${h}`).toBeGreaterThanOrEqual(newestAcked);
            expect(b!, `hot${h}`).toBeLessThanOrEqual(lastAck + 1);
          }
          // Every earlier run's first and last acknowledged batches are still there (a run
          // killed while its first write waited on a stall acknowledged nothing).
          acks.push(lastAck);
          for (let r = 0; r < run; r++) {
            if (acks[r]! < 0) continue;
            expect(db.get(`r${r}-b0-k0`), `run ${r} batch 0`).toBeDefined();
            expect(db.get(`r${r}-b${acks[r]}-k0`), `run ${r} batch ${acks[r]}`).toBeDefined();
          }
          // No table that the version does not list. Orphans (a killed job's output) are
          // numbered at or above the NextFileNumber the MANIFEST recorded, so the open that
          // finds them keeps them (it cannot tell them from a stranger's files) and
          // records a NextFileNumber above them: the next open removes them. Background work
          // started by the open finishes first: a running job writes a table that no version
          // lists yet.
          await db.waitForCompactions();
          await db.close();
          const second = await DB.open(dir, OPTIONS);
          await second.waitForCompactions();
          const live = new Set<string>();
          const levels = second.debugVersion().levels;
          for (const files of levels)
            for (const f of files) live.add(`${String(f.number).padStart(6, "0")}.sst`);
          for (let l = 1; l < levels.length; l++) compactedTables += levels[l]!.length;
          expect(new Set(readdirSync(dir).filter((n) => n.endsWith(".sst")))).toEqual(live);
          await second.close();
        } finally {
          await db.close();
        }
      }
      // Compactions did run (tables reached L1+).
      expect(compactedTables).toBeGreaterThan(0);
    },
    60_000 + rounds * 5_000,
  );
});
