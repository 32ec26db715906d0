/**
 * shale on OPFS in real headless chromium (puppeteer-core): a durable database in a dedicated
 * worker. Skipped, with the reason printed, where chromium is missing (set CHROMIUM or put
 * chromium on PATH).
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSite, findChromium, launchChromium, serve } from "./browser/harness.test-support.js";

const chromium = findChromium();
if (chromium === undefined) {
  console.log(
    "opfs.browser.test.ts: skipped: no chromium (set CHROMIUM or install chromium on PATH)",
  );
}

const cleanup: string[] = [];
let site: string;
let server: Server;
let origin: string;

interface TestPage {
  shaleTest: {
    progress: number;
    call(cmd: string, args: unknown): Promise<unknown>;
    openOnMainThread(): Promise<unknown>;
  };
}

async function openPage(browser: Browser): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${origin}/`);
  await page.waitForFunction(
    () => (globalThis as unknown as Partial<TestPage>).shaleTest !== undefined,
  );
  return page;
}

function call(page: Page, cmd: string, args: unknown): Promise<unknown> {
  return page.evaluate(
    (c, a) => (globalThis as unknown as TestPage).shaleTest.call(c, a),
    cmd,
    args,
  );
}

function profile(): string {
  const d = mkdtempSync(join(tmpdir(), "shale-chromium-"));
  cleanup.push(d);
  return d;
}

describe.skipIf(chromium === undefined)("shale on OPFS in chromium", () => {
  beforeAll(async () => {
    site = await buildSite();
    cleanup.push(site);
    ({ server, origin } = await serve(site));
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    for (const d of cleanup) rmSync(d, { recursive: true, force: true });
  });

  it("writes, flushes, compacts and closes; a browser restart reads everything back", async () => {
    const userDataDir = profile();
    let browser = await launchChromium(chromium!, userDataDir);
    try {
      const page = await openPage(browser);
      const filled = (await call(page, "fill", { name: "restart", n: 20_000 })) as {
        stats: { peakOpenHandles: number; moves: number; journaledRenames: number };
        atomicMove: boolean;
        error?: unknown;
      };
      expect(filled.error).toBeUndefined();
      console.log("fill:", JSON.stringify(filled));
      expect(filled.stats.peakOpenHandles).toBeLessThanOrEqual(64);
      // Renames (CURRENT, OPTIONS) are atomic moves where chromium has move(), else journaled.
      expect(filled.stats.moves + filled.stats.journaledRenames).toBeGreaterThan(0);
      if (!filled.atomicMove) expect(filled.stats.moves).toBe(0);
      expect(await call(page, "verify", { name: "restart", n: 20_000 })).toEqual({
        wrong: 0,
        count: 16_000,
      });
    } finally {
      await browser.close();
    }
    browser = await launchChromium(chromium!, userDataDir);
    try {
      const page = await openPage(browser);
      expect(await call(page, "verify", { name: "restart", n: 20_000 })).toEqual({
        wrong: 0,
        count: 16_000,
      });
    } finally {
      await browser.close();
    }
  });

  it("a browser SIGKILLed mid-write keeps every synced acknowledged write", async () => {
    const userDataDir = profile();
    let browser = await launchChromium(chromium!, userDataDir);
    let acknowledged = 0;
    try {
      const page = await openPage(browser);
      void call(page, "writeForever", { name: "crash" }).catch(() => undefined);
      const deadline = Date.now() + 30_000;
      while (acknowledged < 500 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        acknowledged = await page.evaluate(
          () => (globalThis as unknown as TestPage).shaleTest.progress,
        );
      }
    } finally {
      browser.process()?.kill("SIGKILL");
      await new Promise((r) => setTimeout(r, 200));
      await browser.close().catch(() => undefined);
    }
    expect(acknowledged).toBeGreaterThanOrEqual(500);
    console.log("acknowledged before SIGKILL:", acknowledged);
    browser = await launchChromium(chromium!, userDataDir);
    try {
      const page = await openPage(browser);
      const result = (await call(page, "verifySynced", { name: "crash", n: acknowledged })) as {
        missing: number;
        count: number;
      };
      console.log("after SIGKILL:", JSON.stringify(result));
      expect(result.missing).toBe(0);
      expect(result.count).toBeGreaterThanOrEqual(acknowledged);
    } finally {
      await browser.close();
    }
  });

  it("two tabs: the second open is Busy until the first closes; the main thread is NotSupported", async () => {
    const browser = await launchChromium(chromium!, profile());
    try {
      const first = await openPage(browser);
      const second = await openPage(browser);
      expect(await call(first, "hold", { name: "tabs" })).toBe("held");
      const busy = (await call(second, "tryOpen", { name: "tabs" })) as {
        error?: { code: string; message: string };
      };
      expect(busy.error?.code).toBe("Busy");
      expect(await call(first, "release", { name: "tabs" })).toBe("released");
      expect(await call(second, "tryOpen", { name: "tabs" })).toBe("opened");
      const main = (await first.evaluate(() =>
        (globalThis as unknown as TestPage).shaleTest.openOnMainThread(),
      )) as {
        code: string;
        message: string;
      };
      expect(main.code).toBe("NotSupported");
      expect(main.message).toMatch(/dedicated worker/);
    } finally {
      await browser.close();
    }
  });
});
