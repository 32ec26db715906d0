/**
 * The rate limiter's token bucket (rate-limiter.ts) on a fake clock: random requests at
 * random times, each granted at its arrival plus the wait `reserve` returns. Checked:
 * - the rate: over any interval between two grants, the bytes granted stay within one
 *   burst plus `bytesPerSecond x interval`;
 * - first come, first served: grants come in the order of the requests;
 * - no needless waiting (work conservation): request j is granted no later than the
 *   latest `arrival(k) + bytes(k..j) / rate` over k <= j — the bucket, once owed, pays at
 *   the full rate;
 * - a high-priority request never waits, and is charged.
 * Plus the argument checks and the state seen through `fromShared`.
 */
import { ShaleError } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RateLimiter, RateLimiterAccount } from "./rate-limiter.js";

interface Req {
  gap: number;
  bytes: number;
}

const EPS = 1e-6;

function run(rate: number, period: number, reqs: Req[]) {
  let now = 1_000_000;
  const limiter = new RateLimiter({
    bytesPerSecond: rate,
    refillPeriodMicros: period,
    clock: () => now,
  });
  const burst = limiter.singleBurstBytes;
  const start = now;
  const grants: { at: number; arrival: number; bytes: number }[] = [];
  for (const r of reqs) {
    now += r.gap;
    const bytes = Math.min(r.bytes, burst);
    const wait = limiter.reserve(bytes, now);
    expect(wait).toBeGreaterThanOrEqual(0);
    grants.push({ at: now + wait, arrival: now, bytes });
  }
  return { grants, burst, start, limiter };
}

const requests = fc.array(
  fc.record({ gap: fc.integer({ min: 0, max: 300_000 }), bytes: fc.integer({ min: 1, max: 1e6 }) }),
  { minLength: 1, maxLength: 60 },
);
const rates = fc.integer({ min: 1000, max: 50_000_000 });
const periods = fc.integer({ min: 1000, max: 1_000_000 });

describe("RateLimiter: token bucket properties", () => {
  it("grants stay within one burst plus the rate over every interval, in request order", () => {
    fc.assert(
      fc.property(rates, periods, requests, (rate, period, reqs) => {
        const { grants, burst } = run(rate, period, reqs);
        for (let i = 1; i < grants.length; i++)
          expect(grants[i]!.at).toBeGreaterThanOrEqual(grants[i - 1]!.at - EPS);
        for (let i = 0; i < grants.length; i++) {
          let sum = 0;
          for (let j = i; j < grants.length; j++) {
            sum += grants[j]!.bytes;
            const allowed = burst + (rate * (grants[j]!.at - grants[i]!.at)) / 1e6;
            expect(sum).toBeLessThanOrEqual(allowed + 1e-3 * allowed + 1);
          }
        }
      }),
    );
  });

  it("never waits longer than paying the debt at the full rate needs", () => {
    fc.assert(
      fc.property(rates, periods, requests, (rate, period, reqs) => {
        const { grants } = run(rate, period, reqs);
        for (let j = 0; j < grants.length; j++) {
          let latest = 0;
          let bytes = 0;
          for (let k = j; k >= 0; k--) {
            bytes += grants[k]!.bytes;
            latest = Math.max(latest, grants[k]!.arrival + (bytes * 1e6) / rate);
          }
          expect(grants[j]!.at).toBeLessThanOrEqual(latest + 1);
        }
      }),
    );
  });

  it("a high-priority request never waits, is charged, and delays the next low one", () => {
    fc.assert(
      fc.property(rates, fc.integer({ min: 1, max: 1e6 }), (rate, bytes) => {
        const now = 0;
        const limiter = new RateLimiter({ bytesPerSecond: rate, clock: () => now });
        const account = new RateLimiterAccount();
        const n = Math.min(bytes, limiter.singleBurstBytes);
        expect(limiter.reserve(n, now, account, "high")).toBe(0);
        expect(account.counters()).toEqual({ bytes: n, requests: 1, delayMillis: 0, drains: 0 });
        // The bucket started empty: the next low request pays for both.
        const wait = limiter.reserve(1, now, account, "low");
        expect(wait).toBeCloseTo(((n + 1) * 1e6) / rate, 3);
        expect(account.counters().drains).toBe(1);
      }),
    );
  });
});

describe("RateLimiter: arguments and sharing", () => {
  it("rejects a rate that is not a finite positive number", () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const e = (() => {
        try {
          new RateLimiter({ bytesPerSecond: bad });
        } catch (err) {
          return err;
        }
      })();
      expect(ShaleError.isInstance(e) && e.code === "InvalidArgument").toBe(true);
    }
    expect(() => new RateLimiter({ bytesPerSecond: "10" as unknown as number })).toThrow(TypeError);
    expect(() => new RateLimiter(undefined as unknown as { bytesPerSecond: number })).toThrow(
      TypeError,
    );
    expect(() => new RateLimiter({ bytesPerSecond: 1, fairness: 10 } as never)).toThrow(
      /unknown option/,
    );
    const limiter = new RateLimiter({ bytesPerSecond: 1 });
    expect(() => limiter.setBytesPerSecond(0)).toThrow(/finite number > 0/);
  });

  it("fromShared sees and moves the same bucket and counters", () => {
    let now = 0;
    const a = new RateLimiter({ bytesPerSecond: 1000, refillPeriodMicros: 1e6, clock: () => now });
    const b = RateLimiter.fromShared(a.buffer);
    expect(b.bytesPerSecond).toBe(1000);
    expect(b.singleBurstBytes).toBe(1000);
    now = 2e6; // two periods: the bucket holds one burst (1000), not 2000
    expect(a.reserve(600, now)).toBe(0);
    expect(b.reserve(600, now)).toBeCloseTo(200_000, 3); // 200 bytes owed at 1000/s
    b.setBytesPerSecond(2000);
    expect(a.bytesPerSecond).toBe(2000);
    expect(a.counters()).toEqual({ bytes: 1200, requests: 2, delayMillis: 200, drains: 1 });
    expect(() => RateLimiter.fromShared(new SharedArrayBuffer(8))).toThrow(TypeError);
  });

  it("request() splits into bursts and sleeps for the tokens (real clock)", () => {
    const limiter = new RateLimiter({ bytesPerSecond: 1_000_000, refillPeriodMicros: 10_000 });
    const account = new RateLimiterAccount();
    const t0 = performance.now();
    limiter.request(100_000, "low", account); // 10 bursts of 10,000 bytes: ~100 ms
    const ms = performance.now() - t0;
    expect(ms).toBeGreaterThanOrEqual(85);
    expect(account.counters().requests).toBe(10);
    expect(account.counters().bytes).toBe(100_000);
    const d = account.drain();
    expect(d.bytes).toBe(100_000);
    expect(account.drain().bytes).toBe(0);
  });
});
