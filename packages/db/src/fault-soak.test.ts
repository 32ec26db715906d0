/**
 * Fault soak: a long workload (puts, overwrites, deletes, deleteRange, merges,
 * batches; every 10th write synced; 64 KiB memtable, L0 trigger 2; flushes and compactRange)
 * with one fault per trial, placed at every n-th operation of its class:
 *
 * - write fail (ENOSPC, EIO) at the n-th write, then close;
 * - sync fail (EIO, ENOSPC) at the n-th sync (WAL, table, MANIFEST, CURRENT, directory), then
 *   close — and the same ended by a power cut;
 * - power cut before the n-th operation, or at the n-th write or sync (inside a flush or a
 *   compaction);
 * - power cut, then another one during the reopen (at its n-th write or sync).
 *
 * Each trial reopens with the fault cleared and model-checks the database
 * (test-support/fault-model.test-support.ts): lost writes must be 0. Prints, per variant, a
 * summary table (test-support/soak-summary.test-support.ts: trials, the ones whose fault
 * fired, lost, wrong, failed opens per class) and how each trial ended. The full soak runs
 * with SHALE_STRESS=1: a 3000-operation workload, up to 1800 trials per class (every sync
 * point, every third or fourth write; 9 classes x 3 variants: about 28,000-31,000 trials,
 * about 26 minutes with the three variants run in parallel on two idle cores, e.g.
 * `-t '^fault soak (?!with)'`, `-t '^fault soak with column families (?!and)'` and
 * `-t '^fault soak with column families and atomicFlush'`); SHALE_FAULT_SOAK_TRIALS sets the
 * trials per class. Otherwise a small bounded version runs
 * (and says so).
 *
 * Every class runs three ways: `default` only; over three column families (`busy` takes
 * most writes and flushes often, `idle` a few that stay in the WALs across busy's flushes,
 * batches across families), where every family must keep every acknowledged write; and the
 * same with `atomicFlush`.
 */
import { FaultInjectionFileSystem, MemoryFileSystem } from "@shale/base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DB } from "./db.js";
import {
  describeError,
  type FaultClass,
  faultDbOptions,
  type RunLog,
  runTrial,
  runWorkload,
  type TrialResult,
  type WorkloadOptions,
} from "./test-support/fault-model.test-support.js";
import { type SoakTally, soakSummary } from "./test-support/soak-summary.test-support.js";

const STRESS = process.env["SHALE_STRESS"] === "1";
if (!STRESS) {
  console.log(
    "fault soak: the small bounded version (SHALE_STRESS=1 runs the full soak: longer workload, a fault at every few operations of each class)",
  );
}

const BASE_WORKLOAD: WorkloadOptions = STRESS
  ? { seed: 1414, ops: 3000, syncEvery: 10, yieldEvery: 40, flushEvery: 700, compactEvery: 1100 }
  : { seed: 1414, ops: 700, syncEvery: 10, yieldEvery: 40, flushEvery: 300, compactEvery: 450 };
/** Trials per class at most (the stride over the class's operations follows from it). */
const TRIALS_PER_CLASS = Number(process.env["SHALE_FAULT_SOAK_TRIALS"] ?? (STRESS ? 1800 : 12));

/** Writes and syncs the workload does without faults (to space the faults over them). */
async function countOperations(
  WORKLOAD: WorkloadOptions,
): Promise<{ writes: number; syncs: number }> {
  const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
  const db = await DB.open("/db", faultDbOptions(fs, WORKLOAD.families));
  const before = fs.counters;
  const log: RunLog = { acked: [], syncedPrefix: 0, inFlight: undefined, error: undefined };
  await runWorkload(db, WORKLOAD, log);
  const after = fs.counters;
  await db.close();
  if (log.error !== undefined) throw log.error;
  return { writes: after.writes - before.writes, syncs: after.syncs - before.syncs };
}

interface ClassReport {
  name: string;
  trials: number;
  endings: Map<string, number>;
  lostKeys: number;
  failures: string[];
  tally: SoakTally;
}

function tally(report: ClassReport, r: TrialResult, at: number): void {
  report.trials++;
  report.tally.rounds++;
  if (r.outcome !== "no-fault") report.tally.trials++;
  if (r.outcome === "lost") report.tally.lost++;
  else if (r.outcome === "read-failed") report.tally.wrong++;
  else if (r.outcome === "open-failed") report.tally.failedOpens++;
  const ending =
    r.outcome === "no-fault"
      ? "completed (fault not reached)"
      : `${r.outcome}; close ${r.closeRejected ? "rejected" : "resolved"}; first error ${describeError(r.error).split(":")[0]}${r.recoveryError !== undefined ? "; reopen cut" : ""}`;
  report.endings.set(ending, (report.endings.get(ending) ?? 0) + 1);
  report.lostKeys += r.lostKeys;
  if (r.outcome !== "recovered" && r.outcome !== "no-fault") {
    report.failures.push(`at ${at}: ${r.outcome}: ${r.detail} (${describeError(r.error)})`);
  }
}

interface SoakClass {
  name: string;
  fault: FaultClass;
  /** How many operations of its kind the workload does (the faults are spread over them). */
  total: (counts: { writes: number; syncs: number }) => number;
  /** A second power cut during the first reopen. */
  recovery?: boolean;
}

const classes = (WORKLOAD: WorkloadOptions): SoakClass[] => [
  {
    name: "write fail ENOSPC, close",
    fault: { op: "write", errno: "ENOSPC", end: "close" },
    total: (c) => c.writes,
  },
  {
    name: "write fail EIO, close",
    fault: { op: "write", errno: "EIO", end: "close" },
    total: (c) => c.writes,
  },
  {
    name: "sync fail EIO, close",
    fault: { op: "sync", errno: "EIO", end: "close" },
    total: (c) => c.syncs,
  },
  {
    name: "sync fail ENOSPC, close",
    fault: { op: "sync", errno: "ENOSPC", end: "close" },
    total: (c) => c.syncs,
  },
  {
    name: "sync fail EIO, power cut",
    fault: { op: "sync", errno: "EIO", end: "powercut" },
    total: (c) => c.syncs,
  },
  {
    name: "sync fail ENOSPC, power cut",
    fault: { op: "sync", errno: "ENOSPC", end: "powercut" },
    total: (c) => c.syncs,
  },
  { name: "power cut between operations", fault: { op: "powercut" }, total: () => WORKLOAD.ops },
  {
    name: "power cut at a write or sync (inside flushes and compactions)",
    fault: { op: "any", errno: "EIO", end: "powercut" },
    total: (c) => c.writes + c.syncs,
  },
  {
    name: "power cut, then a power cut during the reopen",
    fault: { op: "powercut" },
    total: () => WORKLOAD.ops,
    recovery: true,
  },
];

const VARIANTS: { name: string; workload: WorkloadOptions }[] = [
  { name: "", workload: BASE_WORKLOAD },
  { name: " with column families", workload: { ...BASE_WORKLOAD, families: {} } },
  {
    name: " with column families and atomicFlush",
    workload: { ...BASE_WORKLOAD, families: { atomicFlush: true } },
  },
];

for (const { name, workload: WORKLOAD } of VARIANTS)
  describe(`fault soak${name}${STRESS ? "" : " (bounded; SHALE_STRESS=1 for the full soak)"}`, () => {
    let counts: { writes: number; syncs: number } = { writes: 0, syncs: 0 };
    const reports: ClassReport[] = [];
    beforeAll(async () => {
      counts = await countOperations(WORKLOAD);
    });
    afterAll(() => {
      const lines = [
        `fault soak${name}: ${WORKLOAD.ops} ops, ${counts.writes} writes, ${counts.syncs} syncs per run; ` +
          `${reports.reduce((n, r) => n + r.trials, 0)} trials, lost keys ${reports.reduce((n, r) => n + r.lostKeys, 0)}`,
      ];
      for (const r of reports) {
        lines.push(`  ${r.name}: ${r.trials} trials, lost keys ${r.lostKeys}`);
        for (const [ending, n] of r.endings) lines.push(`    ${n} x ${ending}`);
        for (const f of r.failures.slice(0, 5)) lines.push(`    FAILED ${f}`);
      }
      console.log(
        soakSummary(
          `fault soak${name}`,
          reports.map((r) => [r.name, r.tally] as const),
          ["trials", "fired"],
        ),
      );
      console.log(lines.join("\n"));
    });

    for (const c of classes(WORKLOAD)) {
      it(
        `${c.name}: no acknowledged write lost`,
        async () => {
          const report: ClassReport = {
            name: c.name,
            trials: 0,
            endings: new Map(),
            lostKeys: 0,
            failures: [],
            tally: { rounds: 0, trials: 0, lost: 0, wrong: 0, failedOpens: 0 },
          };
          reports.push(report);
          const total = c.total(counts);
          const stride = Math.max(1, Math.ceil(total / TRIALS_PER_CLASS));
          let j = 0;
          for (let at = 1; at <= total; at += stride, j++) {
            const r =
              c.fault.op === "powercut"
                ? await runTrial(WORKLOAD, c.fault, at, 1, c.recovery ? 1 + (j % 24) : undefined)
                : await runTrial(WORKLOAD, c.fault, 0, at);
            tally(report, r, at);
          }
          expect(report.failures).toEqual([]);
          expect(report.lostKeys).toBe(0);
        },
        STRESS ? 1_800_000 : 60_000,
      );
    }
  });
