/**
 * Support for the interop tests (shale <-> RocksDB 7.8.3's `db_bench`, `ldb`, `sst_dump`):
 * finding the tools, running them, reading the checked-in fixtures, comparing scans.
 * Test-only (excluded from the build).
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { toHex } from "@shale/base";
import type { DB } from "../db.js";

/** The checked-in RocksDB databases (see testdata/rocksdb/README.md). */
export const FIXTURES = fileURLToPath(new URL("../../testdata/rocksdb/", import.meta.url));

export const TOOLS = ["db_bench", "ldb", "sst_dump"] as const;

/** Why the tool-driven tests cannot run here, or undefined when every tool answers. */
export function missingToolsReason(): string | undefined {
  const missing: string[] = [];
  for (const tool of TOOLS) {
    const r = spawnSync(tool, ["--version"], { encoding: "utf8", timeout: 20_000 });
    if (r.error !== undefined) missing.push(tool);
  }
  return missing.length === 0
    ? undefined
    : `${missing.join(", ")} not on the PATH (install Debian's rocksdb-tools, as .ci/run does)`;
}

export interface ToolResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a RocksDB tool to completion (2 minutes at most); never throws for a failed run. */
export function runTool(tool: string, args: string[]): ToolResult {
  const r = spawnSync(tool, args, {
    encoding: "utf8",
    timeout: 120_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.error !== undefined) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** As `runTool`, and fails the test (with the tool's output) if it exits non-zero. */
export function mustRun(tool: string, args: string[]): string {
  const r = runTool(tool, args);
  if (r.status !== 0) {
    throw new Error(
      `${tool} ${args.join(" ")} exited ${r.status}\n--- stdout\n${r.stdout.slice(-4000)}\n--- stderr\n${r.stderr.slice(-4000)}`,
    );
  }
  return r.stdout;
}

/** A key/value pair in lower-case hex. */
export interface HexEntry {
  key: string;
  value: string;
}

/** A model's entries (hex key -> hex value) in key order (lower-case hex sorts as the bytes do). */
export function sortedEntries(model: ReadonlyMap<string, string>): HexEntry[] {
  return [...model.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => ({ key, value }));
}

/** `ldb --hex scan` of `dir` (optionally one column family) as entries in key order. */
export function ldbScan(dir: string, columnFamily?: string): HexEntry[] {
  const args = [`--db=${dir}`, "--hex"];
  if (columnFamily !== undefined) args.push(`--column_family=${columnFamily}`);
  args.push("scan");
  return parseLdbScan(mustRun("ldb", args));
}

/** Parses ldb's `0xKEY : 0xVALUE` lines. */
export function parseLdbScan(out: string): HexEntry[] {
  const entries: HexEntry[] = [];
  for (const line of out.split("\n")) {
    const m = /^0x([0-9A-Fa-f]*) : 0x([0-9A-Fa-f]*)$/.exec(line.trim());
    if (m !== null) entries.push({ key: m[1]!.toLowerCase(), value: m[2]!.toLowerCase() });
  }
  return entries;
}

/** A fixture's expected.jsonl (or another .jsonl beside it). */
export function expectedEntries(fixture: string, file = "expected.jsonl"): HexEntry[] {
  return readFileSync(join(FIXTURES, fixture, file), "utf8")
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as HexEntry);
}

/** What the scans need: the database or one of its column families' handles. */
export type Scannable = Pick<DB, "iterator">;

/** shale's whole scan of `db` (or a column family), forwards, as hex entries. */
export function shaleScan(db: Scannable): HexEntry[] {
  const out: HexEntry[] = [];
  const it = db.iterator();
  try {
    for (it.seekToFirst(); it.valid(); it.next()) {
      out.push({ key: toHex(it.key()), value: toHex(it.value()) });
    }
  } finally {
    it.close();
  }
  return out;
}

/** shale's whole scan of `db` (or a column family), backwards (seekToLast, prev), as hex entries. */
export function shaleReverseScan(db: Scannable): HexEntry[] {
  const out: HexEntry[] = [];
  const it = db.iterator();
  try {
    for (it.seekToLast(); it.valid(); it.prev()) {
      out.push({ key: toHex(it.key()), value: toHex(it.value()) });
    }
  } finally {
    it.close();
  }
  return out;
}

export function fromHex(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

/** A fresh temporary directory; `remove()` deletes it. */
export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `shale-interop-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A copy of a fixture in a fresh directory (the tests write to it). */
export function copyFixture(fixture: string, into: string): string {
  const dir = join(into, fixture);
  cpSync(join(FIXTURES, fixture), dir, { recursive: true });
  for (const f of readdirSync(dir)) if (f.endsWith(".jsonl")) rmSync(join(dir, f));
  return dir;
}

/** A copy of a database directory (each tool gets its own: ldb may recover and flush). */
export function copyDir(from: string, to: string): string {
  cpSync(from, to, { recursive: true });
  return to;
}

/** db_bench's key `n`: 8 big-endian bytes of n, then "00000000" (16 bytes). */
export function dbBenchKey(n: number): Uint8Array {
  const k = new Uint8Array(16).fill(0x30);
  let x = n;
  for (let i = 7; i >= 0; i--) {
    k[i] = x % 256;
    x = Math.floor(x / 256);
  }
  return k;
}

/** Files of `dir` whose names end with `suffix`, sorted. */
export function filesEnding(dir: string, suffix: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(suffix))
    .sort();
}
