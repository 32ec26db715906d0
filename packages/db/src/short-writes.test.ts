/**
 * Partial writes on the fault-injecting file system: every OS write may be cut short (the
 * handle must send the rest, once), and the "disk" fills after N bytes (the write that
 * crosses the limit lands a prefix, every later one fails with ENOSPC). A workload of puts,
 * overwrites and deletes (every 10th write synced; 64 KiB memtables, so flushes and
 * compactions run) goes until it is done or fails; then close, free the space, and reopen
 * in the DEFAULT recovery mode: every acknowledged write is there, nothing else differs.
 */
import { FaultInjectionFileSystem, MemoryFileSystem } from "@shale/base";
import { Random } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import { DB } from "./db.js";
import {
  checkAgainstModel,
  runWorkload,
  type WorkloadResult,
} from "./test-support/fault-workload.test-support.js";

const options = { writeBufferSize: 64 * 1024, level0FileNumCompactionTrigger: 2 };
const trials = process.env["SHALE_STRESS"] === "1" ? 200 : 24;

async function trial(seed: number, limit: number | undefined): Promise<string[]> {
  const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
  fs.shortWrites({ probability: 0.3, seed });
  if (limit !== undefined) fs.failWritesAfterBytes(limit);
  let result: WorkloadResult;
  try {
    const db = await DB.open("/db", { ...options, fs });
    result = await runWorkload(db, seed, 3000);
    try {
      await db.close();
    } catch {
      // A close on a full disk may report it; the reopen is what is checked.
    }
  } catch (error) {
    // The disk filled while the database was being created: nothing was acknowledged.
    result = { model: new Map(), uncertain: undefined, error, acknowledged: 0 };
  }
  if (limit !== undefined && result.error === undefined) {
    return [`seed ${seed}: the disk (limit ${limit}) never filled`];
  }
  fs.clearFaults();
  let again: DB;
  try {
    again = await DB.open("/db", { ...options, fs });
  } catch (err) {
    return [`seed ${seed} limit ${limit}: reopen failed: ${(err as Error).message}`];
  }
  try {
    return checkAgainstModel(again, result).map((p) => `seed ${seed} limit ${limit}: ${p}`);
  } finally {
    await again.close();
  }
}

describe("partial writes (fault-injecting file system)", () => {
  it("short writes alone change nothing: every write is there after reopen", async () => {
    expect(await trial(7, undefined)).toEqual([]);
  });

  it(`a disk full after N bytes: every acknowledged write after reopen (${trials} trials)`, async () => {
    const rnd = new Random(20261201);
    const problems: string[] = [];
    for (let t = 0; t < trials; t++) {
      // The workload writes ~0.8 MB (WALs, tables, MANIFEST): fill anywhere in it.
      // A quarter of the trials fill up within the first 20 KB (while the database is made).
      const limit = t % 4 === 0 ? 1 + rnd.uniform(20_000) : 1 + rnd.uniform(700_000);
      problems.push(...(await trial(100 + t, limit)));
    }
    expect(problems).toEqual([]);
  });
});
