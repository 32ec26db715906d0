/**
 * abstract-level's own test suite in real headless chromium against the browser ShaleLevel
 * (the database in a worker, on OPFS): the suite ../../test/abstract-level-suite.mjs runs in
 * Node — by default its modules that exercise the private API, once; with SHALE_STRESS=1 all
 * of it, on the database and on a sublevel (several minutes: every test opens a database,
 * with its two workers). Skipped, with the reason printed, where chromium is missing (set
 * CHROMIUM or put chromium on PATH).
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSite, findChromium, launchChromium, serve } from "./chromium.test-support.js";

const chromium = findChromium();
if (chromium === undefined) {
  console.log(
    "abstract-level-suite.browser.test.ts: skipped: no chromium (set CHROMIUM or install chromium on PATH)",
  );
}

const here = dirname(fileURLToPath(import.meta.url));
/** The whole suite, twice (database and sublevel): several minutes, so only with SHALE_STRESS=1. */
const full = process.env.SHALE_STRESS === "1";
const cleanup: string[] = [];
let server: Server;
let origin: string;

interface SuiteResult {
  pass: number;
  fail: number;
  failures: string[];
}

describe.skipIf(chromium === undefined)("@shale/level in chromium", () => {
  beforeAll(async () => {
    const site = await buildSite({
      page: join(here, "suite-page.test-support.ts"),
      "opfs-db-worker": "shale/opfs/db-worker",
      "opfs-io-worker": "shale/opfs/io-worker",
    });
    cleanup.push(site);
    ({ server, origin } = await serve(site));
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    for (const d of cleanup) rmSync(d, { recursive: true, force: true });
  });

  it(`passes abstract-level's test suite (${full ? "all of it" : "its private-API modules"})`, {
    timeout: full ? 1_800_000 : 240_000,
  }, async () => {
    const profile = mkdtempSync(join(tmpdir(), "shale-level-chromium-"));
    cleanup.push(profile);
    const browser = await launchChromium(chromium!, profile);
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(`${origin}/${full ? "?full" : ""}`);
      const deadline = Date.now() + (full ? 1_780_000 : 220_000);
      let result: SuiteResult | undefined;
      let logged = 0;
      while (result === undefined && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500));
        const state = (await page.evaluate(() => {
          const g = globalThis as unknown as { suiteResult?: SuiteResult; suiteLog: string[] };
          return { result: g.suiteResult, log: g.suiteLog.length, tail: g.suiteLog.slice(-3) };
        })) as { result?: SuiteResult; log: number; tail: string[] };
        result = state.result;
        if (process.env.SHALE_DEBUG && state.log !== logged) {
          logged = state.log;
          console.log(state.log, state.tail.join(""));
        }
      }
      if (result === undefined) {
        const tail = await page.evaluate(() =>
          (globalThis as unknown as { suiteLog: string[] }).suiteLog.slice(-30).join(""),
        );
        if (process.env.SHALE_DEBUG) {
          const log = await page.evaluate(() =>
            (globalThis as unknown as { suiteLog: string[] }).suiteLog.join(""),
          );
          console.log(
            log
              .split("\n")
              .filter((l) => l.startsWith("#") || l.startsWith("not ok"))
              .join("\n"),
          );
        }
        throw new Error(
          `the suite did not finish; its last output:\n${tail}\n${errors.join("\n")}`,
        );
      }
      console.log(`abstract-level suite in chromium: pass ${result.pass}, fail ${result.fail}`);
      if (result.fail > 0) console.log(result.failures.slice(0, 40).join("\n"));
      expect(errors).toEqual([]);
      expect(result.failures).toEqual([]);
      expect(result.pass).toBeGreaterThan(full ? 5000 : 500);
    } finally {
      await browser.close();
    }
  });
});
