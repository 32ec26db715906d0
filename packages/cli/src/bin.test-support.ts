/**
 * Test support: runs the BUILT `shale` bin (dist/main.js, what `npm i shale` installs)
 * in a child process, as a user's shell would, and returns its exit code and output.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const BIN = join(dirname(fileURLToPath(import.meta.url)), "../dist/main.js");

export interface BinResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function shale(args: readonly string[], input?: string): BinResult {
  if (!existsSync(BIN))
    throw new Error(`${BIN} is missing: build the shale package first (tsc -b)`);
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: "utf8",
    input: input ?? "",
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: "1" },
  });
  if (r.error !== undefined) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Parses standard output as JSON lines. */
export function jsonLines(stdout: string): unknown[] {
  return stdout
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as unknown);
}

export function tempDir(prefix = "shale-cli-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
