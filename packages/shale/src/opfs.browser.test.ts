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
    openInWorker: typeof import("./opfs/index.js").openInWorker;
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

  it("openInWorker: get/put/del/batch/iterator/close from the page, the database in a worker", async () => {
    const browser = await launchChromium(chromium!, profile());
    try {
      const page = await openPage(browser);
      const result = await page.evaluate(async () => {
        const { openInWorker } = (globalThis as unknown as TestPage).shaleTest;
        const dec = (b: Uint8Array | undefined): string | null =>
          b === undefined ? null : new TextDecoder().decode(b);
        const code = async (p: Promise<unknown>): Promise<unknown> =>
          p.then(
            () => "resolved",
            (e: unknown) => (e instanceof TypeError ? "TypeError" : (e as { code?: string }).code),
          );
        const db = await openInWorker("oiw");
        await db.put("a", "1");
        await db.put(new Uint8Array([98]), "2", { sync: true });
        await db.batch([
          { type: "put", key: "c", value: "3" },
          { type: "del", key: "a" },
          { type: "put", key: "d", value: "4" },
        ]);
        const got = [dec(await db.get("a")), dec(await db.get("b")), dec(await db.get("c"))];
        const entries: string[] = [];
        for await (const [k, v] of db.iterator({ gte: "b", batchSize: 2 }))
          entries.push(`${dec(k)}=${dec(v)}`);
        const reverse: (string | null)[] = [];
        for await (const [k] of db.iterator({ reverse: true, limit: 2 })) reverse.push(dec(k));
        const busy = await code(openInWorker("oiw"));
        const badKey = await code(db.put(5 as unknown as string, "x"));
        const badOption = await code(db.put("k", "v", { bogus: true } as never));
        for (let i = 0; i < 300; i++) await db.put(`k${String(i).padStart(3, "0")}`, `v${i}`);
        await db.flush();
        await db.close();
        const again = await openInWorker("oiw");
        const after = [dec(await again.get("c")), dec(await again.get("k299"))];
        let n = 0;
        for await (const _ of again.iterator({ batchSize: 64 })) n++;
        await again.close();
        const closed = await code(again.get("c"));
        return { got, entries, reverse, busy, badKey, badOption, after, n, closed };
      });
      expect(result).toEqual({
        got: [null, "2", "3"],
        entries: ["b=2", "c=3", "d=4"],
        reverse: ["d", "c"],
        busy: "Busy",
        badKey: "TypeError",
        badOption: "InvalidArgument",
        after: ["3", "v299"],
        n: 303,
        closed: "Closed",
      });
    } finally {
      await browser.close();
    }
  });
});
