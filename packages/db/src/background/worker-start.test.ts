/**
 * A background worker that dies before its script runs (worker-executor.ts, "A worker that
 * never starts"): a writer stalled for a flush used to wait for it forever (its 'error' event
 * needs the event loop the stalled writer does not turn). Now the wait gives up on it after
 * WORKER_START_TIMEOUT_MS and the jobs run on the main thread: the writes complete, nothing
 * is lost, and a process warning says so.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { fixturePath } from "../test-support/crash-runner.test-support.js";

function run(
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

describe("a background worker that never starts", () => {
  it("does not hang a writer stalled for a flush: the jobs run on the main thread", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shale-worker-start-"));
    try {
      const r = await run(
        [
          "--import",
          fixturePath("workers-die-at-start.mjs"),
          fixturePath("stalled-writer.mjs"),
          dir,
        ],
        60_000,
      );
      expect(r.out, r.err).toContain("wrote 1000");
      expect(r.out).toContain("closed");
      expect(r.code).toBe(0);
      expect(r.err).toContain("SHALE_NO_WORKERS");
      const db = await DB.open(dir);
      try {
        for (let i = 0; i < 1000; i++)
          expect(new TextDecoder().decode(db.get(`k${i}`)).split(":")[0]).toBe(String(i));
        // The flushes (and any compaction after them) ran: the data reached tables. Not L0
        // alone: a compaction on the main thread may have moved every L0 table into L1.
        let tables = 0;
        for (let level = 0; level < 7; level++)
          tables += Number(db.getProperty(`shale.num-files-at-level${level}`));
        expect(tables).toBeGreaterThan(0);
      } finally {
        await db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
