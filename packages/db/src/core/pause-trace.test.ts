/**
 * SHALE_TRACE_PAUSES (pause-trace.ts): with a threshold, the traced main-thread steps of a
 * write, a memtable switch and a flush install are printed to stderr; without it, nothing
 * is. Runs the built package in a child process (the threshold is read once, at load).
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

function run(env: Record<string, string>): { stdout: string; stderr: string } {
  dir = mkdtempSync(join(tmpdir(), "shale-pause-trace-"));
  const script = `
    const { DB } = await import(${JSON.stringify(dist)});
    const db = await DB.open(${JSON.stringify(dir)}, { writeBufferSize: 1024 * 1024 });
    for (let i = 0; i < 30000; i++) db.put("k" + i, "v".repeat(50));
    await db.flush();
    await db.close();
    console.log("done");
  `;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    timeout: 60_000,
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, SHALE_TRACE_PAUSES: "", ...env },
  });
  expect(r.stdout).toMatch(/done/);
  return { stdout: r.stdout, stderr: r.stderr };
}

describe("SHALE_TRACE_PAUSES", () => {
  it("prints every traced step at least the threshold long, nested steps indented", () => {
    const { stderr } = run({ SHALE_TRACE_PAUSES: "0.000001" });
    const lines = stderr.split("\n").filter((l) => l.startsWith("[shale pause]"));
    const line = /^\[shale pause\] t=\d+\.\d ms ( *)(.+?) (\d+\.\d) ms( \(.*\))?$/;
    for (const l of lines) expect(l).toMatch(line);
    const labels = lines.map((l) => line.exec(l)![2]);
    for (const label of [
      "wal append",
      "memtable insert",
      "memtable switch (wal roll, seal, new memtable)",
      "flush start",
      "manifest sync",
      "flush done",
    ]) {
      expect(labels).toContain(label);
    }
    // The MANIFEST sync of a flush install is nested in it: printed before it (it ends
    // first), indented deeper.
    const d = lines.findIndex((l) => l.includes(" flush done "));
    const done = lines[d]!;
    const syncs = lines.slice(0, d).filter((l) => l.includes(" manifest sync "));
    const sync = syncs[syncs.length - 1]!;
    expect(line.exec(sync)![1]!.length).toBeGreaterThan(line.exec(done)![1]!.length);
    expect(done).toMatch(/\(L0 files \d+\)$/);
  });

  it("prints nothing when unset or not a positive number", () => {
    for (const value of ["", "0", "-3", "soon"]) {
      const { stderr } = run({ SHALE_TRACE_PAUSES: value });
      expect(stderr).not.toContain("[shale pause]");
    }
  });
});
