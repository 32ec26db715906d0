/**
 * Crash test of ingestion: a child (test-fixtures/crash-ingest-writer.mjs) ingests two
 * external files — one over older data (a global seqno), one apart — and SIGKILLs itself at
 * one step of the ingestion: each file opened for writing, each file sync, each directory
 * sync, each hard link, each removal (the MANIFEST's writes and syncs among them). Every step
 * is a kill point, copying and moving: each kill lands before its step, so only the removals
 * of the caller's names (moveFiles), which follow the MANIFEST edit, find the files in. After each crash the database must open with both files' keys
 * or neither (all of one file's, and the two together), the older data otherwise intact, no
 * table file left in the directory that the database does not use (a copy made before the
 * crash is deleted by the open), and, with moveFiles, the caller's files still there unless
 * the ingestion completed.
 *
 * Runs against the BUILT package (the child imports "@shale/db" from dist).
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DB } from "./db.js";
import { crashTestDir, fixturePath, runAndKill } from "./test-support/crash-runner.test-support.js";

const fixture = fixturePath("crash-ingest-writer.mjs");
const key = (prefix: string, j: number) => `${prefix}-k${String(j).padStart(3, "0")}`;
const text = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

/** Runs the child killing itself at step `killAt`; resolves with its steps count if it finished. */
async function run(dir: string, ext: string, killAt: number, mode: string) {
  let steps = -1;
  const ack = await runAndKill(fixture, [dir, ext, String(killAt), mode], 3000, (line) => {
    if (line.startsWith("steps ")) steps = Number(line.slice(6));
  });
  return { ack, steps };
}

async function check(dir: string, ext: string, acked: boolean, mode: string): Promise<boolean> {
  const db = await DB.open(dir, { disableAutoCompactions: true });
  try {
    const a = Array.from({ length: 100 }, (_, j) => text(db.get(key("old", j))));
    const b = Array.from({ length: 100 }, (_, j) => text(db.get(key("new", j))));
    const ingested = b[0] !== undefined;
    for (let j = 0; j < 100; j++) {
      expect(a[j]).toBe(ingested ? `a${j}` : `o${j}`);
      expect(b[j]).toBe(ingested ? `b${j}` : undefined);
    }
    if (acked) expect(ingested).toBe(true);
    expect(text(db.get(key("old", 200)))).toBe("in the memtable");
    const live = new Set(db.getLiveFiles().tables.map((t) => t.name));
    const onDisk = readdirSync(dir).filter((n) => n.endsWith(".sst"));
    expect(onDisk.sort()).toEqual([...live].sort());
    if (mode === "move" && !ingested) {
      expect(existsSync(join(ext, "a.sst"))).toBe(true);
      expect(existsSync(join(ext, "b.sst"))).toBe(true);
    }
    if (mode === "copy") expect(existsSync(join(ext, "a.sst"))).toBe(true);
    await db.compactRange();
    expect(text(db.get(key("new", 50)))).toBe(ingested ? "b50" : undefined);
    expect(text(db.get(key("old", 50)))).toBe(ingested ? "a50" : "o50");
    return ingested;
  } finally {
    await db.close();
  }
}

describe("crash during ingestion (SIGKILL at each step)", () => {
  for (const mode of ["copy", "move"]) {
    it(`leaves the database as before or with every file (${mode})`, async () => {
      const base = crashTestDir(`shale-crash-ingest-${mode}-`);
      const whole = await run(join(base, "whole"), join(base, "whole-ext"), 1_000_000, mode);
      expect(whole.ack).toBe(0);
      const steps = whole.steps;
      expect(steps).toBeGreaterThanOrEqual(6);
      await check(join(base, "whole"), join(base, "whole-ext"), true, mode);
      let before = 0;
      let after = 0;
      for (let killAt = 1; killAt <= steps; killAt++) {
        const dir = join(base, `k${killAt}`);
        const ext = join(base, `k${killAt}-ext`);
        const r = await run(dir, ext, killAt, mode);
        expect(r.ack).toBe(-1);
        if (await check(dir, ext, false, mode)) after++;
        else before++;
      }
      // Kills before the MANIFEST edit's sync leave the database as before; with moveFiles
      // the two removals after it find the files in.
      expect(after).toBe(mode === "move" ? 2 : 0);
      expect(before).toBe(steps - after);
    }, 300_000); // a child per step (about 20), each a second or more on a loaded machine
  }
});
