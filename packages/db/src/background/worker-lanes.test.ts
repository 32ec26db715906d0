/**
 * Worker lanes and `compactionCpuPriority` (worker-executor.ts): with two background jobs
 * or more, flushes run on one worker at the process's priority and compactions on the
 * others, which take nice 10 ("low") or 19 ("idle") on Linux; with one job its single
 * worker flushes too and keeps the process's priority. Each case runs in a child process,
 * so the threads counted are that database's alone.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const dist = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
let dir: string | undefined;

afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/**
 * Opens a database with `options`, writes and flushes four L0 tables (one more write
 * after each flush, so the next flush has something), compacts them, and returns the nice
 * value of every thread of the child that differs from its main thread's.
 */
function lowered(options: Record<string, unknown>): number[] {
  dir = mkdtempSync(join(tmpdir(), "shale-worker-lanes-"));
  const script = `
    import { readdirSync, readFileSync } from "node:fs";
    const { DB } = await import(${JSON.stringify(dist)});
    const db = await DB.open(${JSON.stringify(dir)}, ${JSON.stringify(options)});
    for (let t = 0; t < 4; t++) {
      for (let i = 0; i < 200; i++) db.put("k" + String(i).padStart(4, "0"), "v" + t);
      await db.flush();
    }
    await db.compactRange();
    const nice = (tid) => Number(readFileSync("/proc/self/task/" + tid + "/stat", "latin1").slice(
      readFileSync("/proc/self/task/" + tid + "/stat", "latin1").lastIndexOf(")") + 2).split(" ")[16]);
    const main = nice(process.pid);
    const other = readdirSync("/proc/self/task").map(nice).filter((n) => n !== main);
    const files = db.getProperty("shale.num-files-at-level1");
    await db.close();
    console.log("result " + JSON.stringify({ other, files }));
  `;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    timeout: 60_000,
  });
  const m = /result (.*)/.exec(r.stdout);
  expect(m, r.stderr).not.toBeNull();
  const result = JSON.parse(m![1]!) as { other: number[]; files: string };
  expect(result.files).toBe("1"); // the compaction ran
  return result.other;
}

describe.runIf(process.platform === "linux")("compaction worker CPU priority (Linux)", () => {
  it('"low": the compaction worker alone takes nice 10, the flush worker keeps the priority', () => {
    expect(lowered({ maxBackgroundJobs: 2, compactionCpuPriority: "low" })).toEqual([10]);
  });

  it('"idle": nice 19; with three jobs both compaction workers, none of the flushes', () => {
    // compactRange runs one job at a time: the second compaction worker may never start.
    const other = lowered({ maxBackgroundJobs: 3, compactionCpuPriority: "idle" });
    expect(other.length).toBeGreaterThanOrEqual(1);
    expect(other.every((n) => n === 19)).toBe(true);
  });

  it('"normal" (the default), or one job (its worker flushes too): no thread lowered', () => {
    expect(lowered({ maxBackgroundJobs: 2 })).toEqual([]);
    expect(lowered({ maxBackgroundJobs: 1, compactionCpuPriority: "idle" })).toEqual([]);
  });
});
