/**
 * Test helper shared by the SIGKILL crash tests (crash.test.ts, crash-compaction.test.ts).
 *
 * A writer child (a script in src/test-fixtures that imports the BUILT "@shale/db") opens a
 * database, prints "ready", then writes batches forever and prints "ack <b>" once batch b's
 * `write` returned. `runAndKill` starts it, SIGKILLs it `killAfterMs` after "ready", and
 * resolves with the last acknowledged batch (-1 if none). A child that exits on its own (a
 * crash of the writer, not ours) rejects with its stderr.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

/** packages/db: the children run here. */
const packageDir = join(import.meta.dirname, "..", "..");

/** The path of a writer script in src/test-fixtures. */
export function fixturePath(name: string): string {
  return join(packageDir, "src", "test-fixtures", name);
}

/** `normal` rounds, or `stress` when SHALE_STRESS=1. */
export function crashRounds(normal: number, stress: number): number {
  return process.env["SHALE_STRESS"] === "1" ? stress : normal;
}

/** A fresh temporary directory, removed after the test file's tests. */
export function crashTestDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Runs `node <fixture> ...args`, kills it with SIGKILL `killAfterMs` after it printed
 * "ready" (or, with `minAcks`, after it acknowledged that many batches: a loaded machine
 * may otherwise kill a slow child before it did what the test needs; or, with `armOn`, after
 * the first line starting with it), and resolves with the last batch it acknowledged
 * ("ack <b>"), or -1. Every other line goes to `onLine`. `onAck`, if given, sees every
 * acknowledgement (writers with concurrent loops acknowledge out of order).
 */
export function runAndKill(
  fixture: string,
  args: readonly string[],
  killAfterMs: number,
  onLine?: (line: string) => void,
  onAck?: (n: number) => void,
  minAcks = 0,
  armOn?: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [fixture, ...args], {
      cwd: packageDir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let lastAck = -1;
    let buffered = "";
    let stderr = "";
    let timer: NodeJS.Timeout | undefined;
    let acks = 0;
    const startTimer = () => {
      timer ??= setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    };
    const armed = armOn === undefined && minAcks === 0;
    child.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      let nl = buffered.indexOf("\n");
      while (nl >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line === "ready") {
          if (armed) startTimer();
        } else if (line.startsWith("ack ")) {
          lastAck = Number(line.slice(4));
          if (++acks === minAcks && armOn === undefined) startTimer();
          onAck?.(lastAck);
        } else {
          if (armOn !== undefined && line.startsWith(armOn)) startTimer();
          onLine?.(line);
        }
        nl = buffered.indexOf("\n");
      }
    });
    child.stderr!.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.on("exit", (_code, signal) => {
      if (timer) clearTimeout(timer);
      if (signal !== "SIGKILL") reject(new Error(`writer exited on its own: ${stderr}`));
      else resolve(lastAck);
    });
  });
}
