/**
 * Crash soak (RocksDB's crash test, in small): a child process writes batches over four
 * column families (test-fixtures/crash-soak-writer.mjs: puts, merges, an overwritten key, deletes;
 * one write in four synced; memtables that flush and L0 files that compact while it writes)
 * and is SIGKILLed at a random moment, round after round over one directory. After each
 * round the database is reopened and every acknowledged batch of every round is checked in
 * every family (the newest round's by point reads, all of them in one scan per family) — a SIGKILL loses nothing a returned write handed to the OS — and the batches
 * in flight (written, their acknowledgement not read before the kill) whole or absent.
 *
 * Prints a summary: rounds, trials (batches checked), lost (acknowledged, missing), wrong
 * (present with another value, or torn across families), failed opens. Runs against the
 * BUILT package. Rounds: 3 by default, 1000 with SHALE_STRESS=1, or SHALE_CRASH_SOAK_ROUNDS. A round
 * takes a few seconds at first and more as the run goes on (each checks every earlier
 * round): 800 rounds took about 1 h 50 min on two busy cores.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Random } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import { DB } from "./db.js";
import {
  crashRounds,
  crashTestDir,
  fixturePath,
  runAndKill,
} from "./test-support/crash-runner.test-support.js";
import { type SoakTally, soakSummary } from "./test-support/soak-summary.test-support.js";

const fixture = fixturePath("crash-soak-writer.mjs");
/** SHALE_CRASH_SOAK_ROUNDS overrides (a shorter soak on a loaded machine). */
const rounds = Number(process.env["SHALE_CRASH_SOAK_ROUNDS"] ?? crashRounds(3, 1000));
/** Generous: a round took 16 s on a loaded shared machine. */
const timeout = 30_000 + rounds * 20_000;
const str = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : new TextDecoder().decode(v);

/** What batch b wrote, per family, once batch `newest` is the newest (undefined: none). */
function expected(b: number, newest: number): Record<string, string | undefined> {
  return {
    busy: `${"b".repeat(2048)}${b}`,
    default: `default ${b}`,
    // Deleted by batch b + 3.
    wide: b + 3 <= newest ? undefined : `w${b},x${b}`,
    idle: b % 5 === 0 ? `idle ${b}` : undefined,
  };
}

const FAMILIES = ["busy", "default", "wide", "idle"] as const;

/** The WALs in `dir`: how many, and their bytes. */
function wals(dir: string): { count: number; bytes: number } {
  let count = 0;
  let bytes = 0;
  for (const n of readdirSync(dir)) {
    if (!n.endsWith(".log")) continue;
    count++;
    bytes += statSync(join(dir, n)).size;
  }
  return { count, bytes };
}

/**
 * Checks run r (acknowledged up to `lastAck`) in `db`. Batches after `lastAck` were in
 * flight (written, their "ack" not read before the kill): each is whole or absent, and the
 * newest present one decides what the later batches deleted and what `r<r>-last` holds.
 */
function checkRun(
  lookup: (family: string, key: string) => string | undefined,
  r: number,
  lastAck: number,
  tally: SoakTally,
): string[] {
  const problems: string[] = [];
  const read = (b: number) => {
    const got: Record<string, string | undefined> = {};
    for (const f of FAMILIES) got[f] = lookup(f, `r${r}-b${b}`);
    return got;
  };
  let newest = lastAck;
  while (read(newest + 1)["default"] !== undefined) newest++;
  for (let b = 0; b <= newest; b++) {
    const got = read(b);
    const want = expected(b, newest);
    if (b <= lastAck) tally.trials++;
    if (got["busy"] === undefined && got["default"] === undefined) {
      if (b <= lastAck) tally.lost++;
      else tally.wrong++;
      problems.push(`run ${r} batch ${b} ${b <= lastAck ? "acknowledged" : "in flight"}, lost`);
      continue;
    }
    for (const f of FAMILIES) {
      if (got[f] === want[f]) continue;
      tally.wrong++;
      problems.push(
        `run ${r} batch ${b} ${f}: ${got[f]?.slice(0, 20)} != ${want[f]?.slice(0, 20)}`,
      );
    }
  }
  const last = lookup("default", `r${r}-last`);
  if (last !== (newest < 0 ? undefined : String(newest))) {
    tally.wrong++;
    problems.push(
      `run ${r}: r${r}-last is ${last}, newest batch ${newest} (acknowledged ${lastAck})`,
    );
  }
  return problems;
}

describe("crash soak (SIGKILL)", () => {
  it(
    `keeps every acknowledged batch of ${rounds} killed rounds over four families`,
    async () => {
      const dir = crashTestDir("shale-crash-soak-");
      const rnd = new Random(20261206);
      const tally: SoakTally = { rounds: 0, trials: 0, lost: 0, wrong: 0, failedOpens: 0 };
      const acks: number[] = [];
      const problems: string[] = [];
      for (let r = 0; r < rounds; r++) {
        // The kill comes 50-650 ms after the writer's 40th acknowledged batch (more than
        // busy's 64 KiB memtable holds), so even on a loaded machine each round switches
        // busy's memtable before it dies.
        acks.push(
          await runAndKill(
            fixture,
            [dir, String(r)],
            50 + rnd.uniform(600),
            undefined,
            undefined,
            40,
          ),
        );
        tally.rounds++;
        let db: DB;
        try {
          db = await DB.open(dir, { mergeOperator: "stringappend" });
        } catch (e) {
          tally.failedOpens++;
          problems.push(`round ${r}: open failed: ${String(e)}`);
          continue;
        }
        try {
          // The newest round through point reads, every round through one scan per family.
          const get = (f: string, k: string) => str(db.columnFamily(f).get(k));
          problems.push(...checkRun(get, r, acks[r]!, { ...tally }));
          const scanned = new Map<string, string>();
          for (const f of FAMILIES)
            for (const [k, v] of db.columnFamily(f).iterator())
              scanned.set(`${f}/${str(k)}`, str(v)!);
          const scan = (f: string, k: string) => scanned.get(`${f}/${k}`);
          for (let past = 0; past <= r; past++)
            problems.push(...checkRun(scan, past, acks[past]!, tally));
        } finally {
          await db.close();
        }
        // A long soak reports as it goes (a soak stopped early still says how far it got).
        if ((r + 1) % 100 === 0 && r + 1 < rounds) {
          const w = wals(dir);
          console.log(
            `crash soak: ${r + 1} of ${rounds} rounds, ${tally.trials} trials, ${tally.lost} lost, ${tally.wrong} wrong, ${tally.failedOpens} failed opens, ${w.count} WALs of ${w.bytes} bytes`,
          );
        }
      }
      console.log(
        soakSummary("crash soak (SIGKILL, four column families)", [["all rounds", tally]]),
      );
      expect(problems.slice(0, 10)).toEqual([]);
      expect(tally.trials, `acks ${acks}`).toBeGreaterThan(rounds * 5);
      // idle's rare writes do not keep every WAL (the writer's maxTotalWalSize, 1 MiB, plus
      // what a round writes before its check): before it, every WAL of every round stayed
      // (about 70 KiB and two files a round), each replayed by every open.
      expect(wals(dir).bytes).toBeLessThan(2 * 1024 * 1024);
      // busy flushed and compacted while the writer ran: the soak exercised more than WALs.
      const db = await DB.open(dir, { mergeOperator: "stringappend" });
      try {
        let tables = 0;
        for (let level = 0; level < 7; level++)
          tables += Number(db.columnFamily("busy").getProperty(`shale.num-files-at-level${level}`));
        expect(tables).toBeGreaterThan(0);
      } finally {
        await db.close();
      }
    },
    timeout,
  );
});
