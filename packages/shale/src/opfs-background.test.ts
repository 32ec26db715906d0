import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { openFakeOpfsFileSystem } from "@shale/opfs/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { open } from "./index.js";

const fixture = new URL("./test-fixtures/opfs-background-worker.mjs", import.meta.url);
const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const key = (i: number): string => `key${String(i).padStart(6, "0")}`;
const value = (i: number): string => `value-${i}-${"x".repeat(i % 50)}`;
const text = (b: Uint8Array | undefined): string | undefined =>
  b === undefined ? undefined : new TextDecoder().decode(b);

describe("background work in nested workers over OPFS (fake OPFS, Node worker threads)", () => {
  it("flushes and compactions run in the background workers, over their own OPFS clients; the data survives a reopen", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shale-opfs-bg-"));
    dirs.push(dir);
    const warn = vi.spyOn(console, "warn");
    let started = 0;
    let results = 0;
    const fs = await openFakeOpfsFileSystem(
      "app",
      { dir },
      {
        startBackgroundWorker: () => {
          started++;
          const w = new Worker(fixture, { execArgv: [] });
          w.on("message", (m: { type?: string }) => {
            if (m?.type === "wake") results++;
          });
          return w;
        },
      },
    );
    const db = await open("db", {
      fs,
      writeBufferSize: 64 * 1024,
      targetFileSizeBase: 32 * 1024,
    });
    // A synchronous loop: stalled writers take flushes through the shared mailbox.
    for (let i = 0; i < 20_000; i++) db.put(key(i), value(i));
    for (let i = 0; i < 20_000; i += 7) db.delete(key(i));
    await db.flush();
    await db.compactRange();
    expect(db.getProperty("shale.num-files-at-level0")).toBe("0");
    await db.close();
    await fs.close();
    expect(started).toBeGreaterThanOrEqual(1);
    expect(results).toBeGreaterThan(0);
    expect(warn).not.toHaveBeenCalled();

    const again = await openFakeOpfsFileSystem("app", { dir });
    const db2 = await open("db", { fs: again });
    for (let i = 0; i < 20_000; i += 13)
      expect(text(db2.get(key(i)))).toBe(i % 7 === 0 ? undefined : value(i));
    let n = 0;
    for (const _ of db2.iterator()) n++;
    expect(n).toBe(20_000 - Math.ceil(20_000 / 7));
    await db2.close();
    await again.close();
  });
});
