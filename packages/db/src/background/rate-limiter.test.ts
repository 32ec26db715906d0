/**
 * The `rateLimiter` option on a database whose compactions run in worker threads: what a
 * compaction writes per second stays under the limit (measured over the real compaction,
 * with generous bounds: this checks behaviour, not speed), the waits show in the statistics
 * and properties, one limiter shared by two databases bounds their sum, and bad values are
 * refused before anything is written.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ShaleError, Statistics, Ticker } from "@shale/base";
import { afterEach, describe, expect, it } from "vitest";
import { RateLimiter } from "../core/rate-limiter.js";
import { DB } from "../db.js";

const dirs: string[] = [];
function newDir(): string {
  const d = mkdtempSync(join(tmpdir(), "shale-rate-limiter-"));
  dirs.push(d);
  return d;
}

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Four L0 tables of random (incompressible) values: ~`bytes` in all. */
async function load(db: DB, bytes: number): Promise<void> {
  const perTable = Math.ceil(bytes / 4 / 1000);
  for (let t = 0; t < 4; t++) {
    for (let i = 0; i < perTable; i++)
      db.put(`key${String(i * 4 + t).padStart(8, "0")}`, randomBytes(1000));
    await db.flush();
  }
}

const RATE = 4 << 20;
const BASE = { disableAutoCompactions: true, compression: "none" as const };

describe("rateLimiter: background writes held to the rate", () => {
  it("a compaction writes no faster than the limit, and its waits are counted", async () => {
    const statistics = new Statistics();
    const db = await DB.open(newDir(), {
      ...BASE,
      statistics,
      rateLimiter: { bytesPerSecond: RATE, refillPeriodMicros: 10_000 },
    });
    await load(db, 3 << 20);
    const before = Number(db.getProperty("shale.rate-limiter-bytes"));
    expect(before).toBeGreaterThan(3 << 20); // the flushes were charged (and never waited)
    const t0 = performance.now();
    await db.compactRange();
    const seconds = (performance.now() - t0) / 1000;
    const written = Number(db.getProperty("shale.compact-write-bytes"));
    expect(written).toBeGreaterThan(3 << 20);
    // One burst (10 ms of the rate) may go at once; the rest at most at the rate, with
    // 10 % slack for clocks and rounding.
    const burst = RATE / 100;
    expect((written - burst) / seconds).toBeLessThan(RATE * 1.1);
    expect(Number(db.getProperty("shale.rate-limiter-bytes")) - before).toBeGreaterThanOrEqual(
      written,
    );
    expect(db.getProperty("shale.rate-limiter-bytes-per-second")).toBe(String(RATE));
    expect(Number(db.getProperty("shale.rate-limiter-delay-millis"))).toBeGreaterThan(100);
    expect(Number(db.getProperty("shale.rate-limiter-drains"))).toBeGreaterThan(0);
    expect(statistics.getTicker(Ticker.RateLimitDelayMillis)).toBeGreaterThan(100);
    expect(statistics.getTicker(Ticker.NumberRateLimiterDrains)).toBeGreaterThan(0);
    expect(db.get(`key${"0".padStart(8, "0")}`)?.length).toBe(1000);
    await db.close();
  }, 60_000);

  it("one limiter shared by two databases bounds what both write together", async () => {
    const limiter = new RateLimiter({ bytesPerSecond: RATE, refillPeriodMicros: 10_000 });
    const a = await DB.open(newDir(), { ...BASE, rateLimiter: limiter });
    const b = await DB.open(newDir(), { ...BASE, rateLimiter: limiter });
    await load(a, 2 << 20);
    await load(b, 2 << 20);
    const t0 = performance.now();
    await Promise.all([a.compactRange(), b.compactRange()]);
    const seconds = (performance.now() - t0) / 1000;
    const written =
      Number(a.getProperty("shale.compact-write-bytes")) +
      Number(b.getProperty("shale.compact-write-bytes"));
    expect(written).toBeGreaterThan(4 << 20);
    expect((written - RATE / 100) / seconds).toBeLessThan(RATE * 1.1);
    expect(limiter.counters().bytes).toBeGreaterThanOrEqual(2 * written);
    await Promise.all([a.close(), b.close()]);
  }, 60_000);

  it("without a limiter there are no rate-limiter properties and nothing waits", async () => {
    const statistics = new Statistics();
    const db = await DB.open(newDir(), { ...BASE, statistics });
    await load(db, 1 << 20);
    await db.compactRange();
    expect(db.getProperty("shale.rate-limiter-bytes")).toBeUndefined();
    expect(statistics.getTicker(Ticker.RateLimitDelayMillis)).toBe(0);
    await db.close();
  });
});

describe("rateLimiter: bad values", () => {
  const code = async (options: unknown): Promise<string> => {
    const dir = join(newDir(), "db");
    try {
      await DB.open(dir, { rateLimiter: options } as never);
      return "opened";
    } catch (e) {
      expect(existsSync(dir)).toBe(false); // refused before anything was written
      return ShaleError.isInstance(e) ? e.code : e instanceof TypeError ? "TypeError" : String(e);
    }
  };

  it("non-positive or non-finite rates are InvalidArgument, wrong types TypeError", async () => {
    for (const v of [0, -5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(await code({ bytesPerSecond: v })).toBe("InvalidArgument");
    expect(await code({ bytesPerSecond: 1e6, refillPeriodMicros: 0 })).toBe("InvalidArgument");
    expect(await code({ bytesPerSecond: 1e6, fairness: 10 })).toBe("InvalidArgument");
    expect(await code({ bytesPerSecond: "1MB" })).toBe("TypeError");
    expect(await code({})).toBe("TypeError");
    expect(await code(1e6)).toBe("TypeError");
  });
});
