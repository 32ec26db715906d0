/**
 * Crash tests with column families: a child process writes synced batches that span two to
 * four families ("busy", whose small memtable flushes often; "default"; "idle", written by
 * every third batch; with churn, the newest of the families it keeps creating and dropping)
 * and acknowledges each on stdout; it is killed with SIGKILL at a random moment, many times
 * over the same directory. After each crash every family must hold every acknowledged batch
 * of every run so far, no batch may be in some families and not in others (one WAL record
 * per batch; a WAL is kept while any family still needs it), a family whose creation
 * returned is there until its drop returned, and then it is gone.
 *
 * Runs against the BUILT package (the child imports "@shale/db" from dist). Rounds: 6 each
 * by default, SHALE_STRESS=1 for 150.
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

const fixture = fixturePath("crash-cf-writer.mjs");
const rounds = crashRounds(6, 150);
/** ~1.5 s a round here. */
const timeout = 20_000 + rounds * 3_000;

/** What the parent saw of one run of the writer. */
interface Run {
  lastAck: number;
  /** Families whose createColumnFamily returned, in order. */
  created: string[];
  /** Families whose dropColumnFamily returned. */
  dropped: Set<string>;
}

const str = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : new TextDecoder().decode(v);

/** The families batch b of run r wrote into (those that still exist), with their values. */
function batchWrites(r: number, b: number, names: Set<string>): Array<[string, string]> {
  const out: Array<[string, string]> = [
    ["busy", `${"b".repeat(4096)}${b}`],
    ["default", `default ${b}`],
  ];
  if (b % 3 === 0) out.push(["idle", `idle ${b}`]);
  if (b >= 10) {
    const gen = `g${r}-${b - (b % 10)}`;
    if (names.has(gen)) out.push([gen, `gen ${b}`]);
  }
  return out;
}

/** Every check of the reopened database against what the runs acknowledged. */
function check(db: DB, runs: readonly Run[]): void {
  const listed = db.listColumnFamilies();
  expect(listed.slice(0, 3)).toEqual(["default", "busy", "idle"]);
  const names = new Set(listed);
  for (const [r, run] of runs.entries()) {
    const latest = run.created[run.created.length - 1];
    for (const name of run.created) {
      if (run.dropped.has(name)) expect(names.has(name), `${name} was dropped`).toBe(false);
      else if (name === latest) expect(names.has(name), `${name} was created`).toBe(true);
    }
    // Every acknowledged batch, and (the last run only) the one in flight: whole or absent.
    const upTo = r === runs.length - 1 ? run.lastAck + 1 : run.lastAck;
    for (let b = 0; b <= upTo; b++) {
      const key = `r${r}-b${b}`;
      const writes = batchWrites(r, b, names);
      const got = writes.map(([cf]) => str(db.columnFamily(cf).get(key)));
      const want = writes.map(([, v]) => v);
      if (b <= run.lastAck) {
        expect(got, `run ${r} batch ${b} was acknowledged`).toEqual(want);
      } else {
        const present = got.filter((v) => v !== undefined).length;
        expect([0, writes.length], `run ${r} batch ${b} is torn: ${got}`).toContain(present);
        if (present > 0) expect(got).toEqual(want);
      }
    }
    if (r === runs.length - 1) {
      for (const cf of ["default", "busy", "idle"])
        expect(db.columnFamily(cf).get(`r${r}-b${run.lastAck + 2}`)).toBeUndefined();
    }
  }
}

/** `rounds` runs of the writer over one directory, each killed and checked. */
async function crashRuns(seed: number, churn: boolean): Promise<Run[]> {
  const dir = crashTestDir("shale-crash-cf-");
  const rnd = new Random(seed);
  const runs: Run[] = [];
  for (let r = 0; r < rounds; r++) {
    const run: Run = { lastAck: -1, created: [], dropped: new Set() };
    const args = [dir, String(r), ...(churn ? ["churn"] : [])];
    // With churn, long enough for a create and a drop (11 batches) even on a loaded machine.
    const killAfter = churn ? 300 + rnd.uniform(700) : 100 + rnd.uniform(500);
    // The first run lives past the writer's flush of busy (ack 32), however slow the
    // machine: the check at the end needs a table of busy.
    run.lastAck = await runAndKill(
      fixture,
      args,
      killAfter,
      (line) => {
        if (line.startsWith("created ")) run.created.push(line.slice(8));
        else if (line.startsWith("dropped ")) run.dropped.add(line.slice(8));
      },
      undefined,
      r === 0 ? 33 : 0,
    );
    runs.push(run);
    const db = await DB.open(dir, {});
    try {
      check(db, runs);
    } finally {
      await db.close();
    }
  }
  const acknowledged = runs.reduce((a, run) => a + run.lastAck + 1, 0);
  expect(acknowledged, `acks ${runs.map((run) => run.lastAck)}`).toBeGreaterThan(rounds * 10);
  // busy flushed to tables while idle's writes were in the WALs only: the retention rule was
  // exercised, not bypassed.
  const db = await DB.open(dir, {});
  try {
    let tables = 0;
    for (let level = 0; level < 7; level++)
      tables += Number(db.columnFamily("busy").getProperty(`shale.num-files-at-level${level}`));
    expect(tables).toBeGreaterThan(0);
  } finally {
    await db.close();
  }
  return runs;
}

describe("crash recovery with column families (SIGKILL)", () => {
  it(
    `keeps every acknowledged cross-family batch whole over ${rounds} kills`,
    async () => {
      await crashRuns(20261205, false);
    },
    timeout,
  );

  it(
    `keeps created families and their batches, and forgets dropped ones, over ${rounds} kills`,
    async () => {
      const runs = await crashRuns(20261206, true);
      // The writer got to create and drop families (kills did not all land before).
      expect(
        runs.some((run) => run.dropped.size > 0),
        `created ${runs.map((run) => run.created.length)}`,
      ).toBe(true);
    },
    timeout,
  );
});
