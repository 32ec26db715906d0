/**
 * One writer and three reader processes: two secondaries that catch up before
 * each check and one read-only reader that reopens for each, against a primary that keeps
 * flushing and compacting (and reopens half way). Every time the primary reports a synced
 * batch, each idle reader is asked to check it: after catching up it must see every write
 * of every batch up to it. The children import the BUILT @shale/db (test-fixtures/).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { crashTestDir, fixturePath } from "../test-support/crash-runner.test-support.js";

const packageDir = join(import.meta.dirname, "..", "..");

interface Child {
  proc: ChildProcess;
  lines: string[];
  waiters: { resolve: (line: string) => void; reject: (e: Error) => void }[];
  stderr: string;
  exited: boolean;
}

function start(script: string, args: string[]): Child {
  const proc = spawn(process.execPath, [fixturePath(script), ...args], {
    cwd: packageDir,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const child: Child = { proc, lines: [], waiters: [], stderr: "", exited: false };
  proc.once("exit", (code) => {
    child.exited = true;
    const error = new Error(`child exited (${code}) while we waited: ${child.stderr}`);
    for (const w of child.waiters.splice(0)) w.reject(error);
  });
  let buffered = "";
  proc.stdout!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const w = child.waiters.shift();
      if (w !== undefined) w.resolve(line);
      else child.lines.push(line);
    }
  });
  proc.stderr!.on("data", (chunk: Buffer) => {
    child.stderr += chunk.toString();
  });
  return child;
}

function nextLine(child: Child): Promise<string> {
  const queued = child.lines.shift();
  if (queued !== undefined) return Promise.resolve(queued);
  if (child.exited) return Promise.reject(new Error(`child exited: ${child.stderr}`));
  return new Promise((resolve, reject) => child.waiters.push({ resolve, reject }));
}

const BATCHES = 1600;

describe("one writer, three reader processes", () => {
  it("readers see every write the primary synced, while it flushes and compacts", async () => {
    const dir = crashTestDir("shale-multi-");
    const writer = start("multi-writer.mjs", [dir, String(BATCHES)]);
    expect(await nextLine(writer)).toBe("ready");
    const readers = [
      start("multi-reader.mjs", [dir, "secondary"]),
      start("multi-reader.mjs", [dir, "secondary"]),
      start("multi-reader.mjs", [dir, "readOnly"]),
    ];
    for (const r of readers) expect(await nextLine(r)).toBe("ready");

    const failures: string[] = [];
    const checks = [0, 0, 0];
    let latest = -1;
    const busy = [false, false, false];
    const pending: Promise<void>[] = [];
    const ask = (i: number, b: number) => {
      busy[i] = true;
      readers[i]!.proc.stdin!.write(`check ${b}\n`);
      pending.push(
        nextLine(readers[i]!).then((answer) => {
          busy[i] = false;
          checks[i]!++;
          if (answer !== `ok ${b}`) failures.push(`reader ${i}: ${answer}`);
        }),
      );
    };
    let compactions = -1;
    for (;;) {
      const line = await nextLine(writer);
      if (line.startsWith("done ")) {
        compactions = Number(line.slice(5));
        break;
      }
      expect(line).toMatch(/^synced \d+$/);
      latest = Number(line.slice(7));
      for (let i = 0; i < readers.length; i++) if (!busy[i]) ask(i, latest);
    }
    await Promise.all(pending);
    // Last round, beside the still-open primary: everything it wrote is synced.
    for (let i = 0; i < readers.length; i++) ask(i, latest);
    await Promise.all(pending);
    expect(failures).toEqual([]);
    expect(latest).toBe(BATCHES - 1);
    expect(compactions).toBeGreaterThan(0);
    for (const c of checks) expect(c).toBeGreaterThan(1); // the last round, and during the writes

    for (const r of readers) r.proc.stdin!.write("stop\n");
    const closed = await Promise.all(readers.map((r) => nextLine(r)));
    expect(closed[0]).toMatch(/^closed \d+$/);
    // The secondaries removed their registrations.
    const regDir = join(dir, "secondaries");
    if (existsSync(regDir))
      expect(readdirSync(regDir).filter((n) => n.endsWith(".reg"))).toEqual([]);
    writer.proc.stdin!.write("stop\n");
    await new Promise((r) => writer.proc.once("exit", r));
  }, 120_000);
});
