/**
 * A shale secondary following a live RocksDB primary (db_bench, RocksDB 7.8.3): it catches
 * up again and again while db_bench fills the database with small memtables, so flushes and
 * compactions (RocksDB deletes files without knowing of shale's registrations) race every
 * catch-up; at the end it sees exactly what `ldb scan` sees. Skipped without the tools.
 * The fill is held to 3 MB/s (about 4 s) so a loaded CI machine, where one catch-up of the
 * test's transformed source takes up to half a second, still catches up several times.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ShaleError } from "@shale/base";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import {
  copyDir,
  ldbScan,
  missingToolsReason,
  shaleScan,
  tempDir,
} from "../interop/interop.test-support.js";

const toolsMissing = missingToolsReason();
if (toolsMissing !== undefined) console.log(`skipped: ${toolsMissing}`);
const tmp = tempDir("follow-live");
afterAll(() => tmp.remove());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(toolsMissing !== undefined)("shale secondary of a live RocksDB", () => {
  it("follows db_bench's fill through flushes and compactions", async () => {
    const dir = join(tmp.path, "db");
    const bench = spawn(
      "db_bench",
      [
        "--benchmarks=fillrandom",
        "--num=100000",
        "--value_size=100",
        "--key_size=16",
        "--write_buffer_size=262144",
        "--target_file_size_base=262144",
        "--max_bytes_for_level_base=1048576",
        "--level0_file_num_compaction_trigger=2",
        "--compression_type=none",
        "--benchmark_write_rate_limit=3000000",
        `--db=${dir}`,
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    bench.stderr!.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    let exited = false;
    const done = new Promise<number | null>((r) =>
      bench.once("exit", (code) => {
        exited = true;
        r(code);
      }),
    );
    // db_bench opens the database, then destroys it and opens it again for a fresh-db
    // benchmark (fillrandom): an open that lands between the two finds no database
    // (InvalidArgument, as it should) and is tried again.
    let secondary: DB | undefined;
    for (let tries = 1; secondary === undefined; tries++) {
      while (!existsSync(join(dir, "CURRENT")) && !exited) await sleep(5);
      try {
        secondary = await DB.openAsSecondary(dir);
      } catch (e) {
        if (tries >= 100 || !ShaleError.isInstance(e) || e.code !== "InvalidArgument") throw e;
        await sleep(5);
      }
    }
    let catchUps = 0;
    let edits = 0;
    let maxSeen = 0;
    try {
      while (!exited) {
        const r = secondary.tryCatchUpWithPrimary();
        catchUps++;
        edits += r.manifestEdits;
        // Never backwards: what a catch-up showed stays.
        expect(r.lastSequence).toBeGreaterThanOrEqual(maxSeen);
        maxSeen = r.lastSequence;
        await sleep(10);
      }
      expect(await done, stderr).toBe(0);
      secondary.tryCatchUpWithPrimary();
      const expected = ldbScan(copyDir(dir, `${dir}-dump`));
      expect(expected.length).toBeGreaterThan(50_000);
      expect(shaleScan(secondary)).toEqual(expected);
      expect(catchUps).toBeGreaterThan(5);
      expect(edits).toBeGreaterThan(5);
    } finally {
      await secondary.close();
      if (!exited) bench.kill("SIGKILL");
    }
  }, 120_000);
});
