/**
 * Worker threads start in a process run with Node options a worker rejects (here
 * `--trace-gc`): the flush still runs in a worker and the data is on disk.
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

describe("worker threads and the parent's Node options", () => {
  it("a process run with --trace-gc still flushes in a worker", () => {
    dir = mkdtempSync(join(tmpdir(), "shale-worker-options-"));
    const script = `
      const { DB } = await import(${JSON.stringify(dist)});
      const db = await DB.open(${JSON.stringify(dir)});
      for (let i = 0; i < 1000; i++) db.put("k" + i, "v" + i);
      await db.flush();
      const files = db.getProperty("shale.num-files-at-level0");
      await db.close();
      const again = await DB.open(${JSON.stringify(dir)});
      console.log("result", files, again.get("k999") !== undefined);
      await again.close();
    `;
    const r = spawnSync(process.execPath, ["--trace-gc", "--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.stdout).toMatch(/result 1 true/);
  });
});
