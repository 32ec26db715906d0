/**
 * No native code: the whole smoke workload (tooling/ci/smoke-app.mjs: 100k puts, flushes and
 * compactions in worker threads, reads, scans, reopen; then MemoryFileSystem) ends with no
 * `.node` addon mapped into the process (/proc/self/maps), from the built packages. The
 * control loads an addon first and sees the check fail, so the check can see one.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const app = join(import.meta.dirname, "ci", "smoke-app.mjs");
const scratch = mkdtempSync(join(tmpdir(), "shale-native-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Some `.node` addon of the workspace install (any will do for the control). */
function anAddon(): string | undefined {
  const pnpm = join(import.meta.dirname, "..", "node_modules", ".pnpm");
  for (const d of readdirSync(pnpm)) {
    if (!d.startsWith("@rolldown+binding-linux")) continue;
    const dir = join(
      pnpm,
      d,
      "node_modules",
      "@rolldown",
      d.slice("@rolldown+".length).replace(/@.*/, ""),
    );
    if (!existsSync(dir)) continue;
    const f = readdirSync(dir).find((n) => n.endsWith(".node"));
    if (f !== undefined) return join(dir, f);
  }
  return undefined;
}

describe.runIf(existsSync("/proc/self/maps"))("native code", () => {
  it("a full workload maps no .node addon", () => {
    const run = spawnSync(process.execPath, [app, join(scratch, "db")], {
      encoding: "utf8",
      timeout: 110_000,
    });
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("native addons: none mapped (/proc/self/maps)");
    expect(run.status).toBe(0);
  });

  const addon = anAddon();
  it.runIf(addon !== undefined)("control: with an addon loaded first, the check fails", () => {
    const preload = join(scratch, "preload.mjs");
    writeFileSync(preload, `process.dlopen({ exports: {} }, ${JSON.stringify(addon)});\n`);
    const run = spawnSync(process.execPath, ["--import", preload, app, join(scratch, "db2")], {
      encoding: "utf8",
      timeout: 110_000,
    });
    expect(run.stderr).toContain("native addons are loaded");
    expect(run.status).not.toBe(0);
  });
});
