/**
 * Model check of a secondary: random primary operations (puts, deletes, range deletions,
 * synced or not, flushes, compactions, reopens) interleaved with catch-ups; after every
 * catch-up the secondary holds exactly what the primary holds, through get and a scan.
 */
import { MemoryFileSystem } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";

const text = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : Buffer.from(v).toString();
const key = (i: number) => `k${String(i).padStart(4, "0")}`;

type Op =
  | { op: "put"; k: number; v: number; sync: boolean }
  | { op: "del"; k: number }
  | { op: "range"; k: number; n: number }
  | { op: "flush" | "compact" | "reopen" | "catchUp" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant("put" as const),
      k: fc.nat(200),
      v: fc.nat(99),
      sync: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("del" as const), k: fc.nat(200) }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant("range" as const), k: fc.nat(200), n: fc.nat(15) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constantFrom("flush" as const, "compact" as const, "reopen" as const),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("catchUp" as const) }) },
);

describe("secondary model check", () => {
  it("after each catch-up the secondary holds what the primary holds", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 80 }), async (ops) => {
        const fs = new MemoryFileSystem();
        const options = { fs, writeBufferSize: 64 * 1024, level0FileNumCompactionTrigger: 2 };
        let primary = await DB.open("/db", options);
        const secondary = await DB.openAsSecondary("/db", undefined, { fs });
        const model = new Map<string, string>();
        const check = () => {
          secondary.tryCatchUpWithPrimary();
          const seen = new Map<string, string>();
          for (const [k, v] of secondary.iterator()) seen.set(text(k)!, text(v)!);
          expect(seen).toEqual(model);
          for (const [k, v] of model) expect(text(secondary.get(k))).toBe(v);
        };
        try {
          for (const o of ops) {
            switch (o.op) {
              case "put": {
                const v = `v${o.v}${"x".repeat(o.v * 10)}`;
                primary.put(key(o.k), v, { sync: o.sync });
                model.set(key(o.k), v);
                break;
              }
              case "del":
                primary.delete(key(o.k));
                model.delete(key(o.k));
                break;
              case "range":
                primary.deleteRange(key(o.k), key(o.k + o.n));
                for (let i = o.k; i < o.k + o.n; i++) model.delete(key(i));
                break;
              case "flush":
                await primary.flush();
                break;
              case "compact":
                await primary.compactRange();
                break;
              case "reopen":
                await primary.close();
                primary = await DB.open("/db", options);
                break;
              case "catchUp":
                check();
                break;
            }
          }
          check();
        } finally {
          await secondary.close();
          await primary.close();
        }
      }),
      { numRuns: 30 },
    );
  });
});
