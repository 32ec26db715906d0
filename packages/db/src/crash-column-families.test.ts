/**
 * Crash test with column families: a child process writes synced batches that span two or
 * three families ("busy", whose small memtable flushes often; "default"; "idle", written by
 * every third batch) and acknowledges each on stdout; it is killed with SIGKILL at a random
 * moment, many times over the same directory. After each crash every family must hold every
 * acknowledged batch of every run so far, and no batch may be in some families and not in
 * others (one WAL record per batch; a WAL is kept while any family still needs it).
 *
 * Runs against the BUILT package (the child imports "@shale/db" from dist). Rounds: 8 by
 * default, SHALE_STRESS=1 for 150.
 */
import { Random } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import { DB } from "./db.js";
import {
  crashRounds,
  crashTestDir,
  fixturePath,
  runAndKill,
} from "./test-support/crash-runner.test-support.js";

const fixture = fixturePath("crash-cf-writer.mjs");
const rounds = crashRounds(8, 150);
const dir = crashTestDir("shale-crash-cf-");

/** The families batch b wrote into, with the value each holds. */
function batchWrites(b: number): Array<[string, string]> {
  const out: Array<[string, string]> = [
    ["busy", `${"b".repeat(4096)}${b}`],
    ["default", `default ${b}`],
  ];
  if (b % 3 === 0) out.push(["idle", `idle ${b}`]);
  return out;
}

const str = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : new TextDecoder().decode(v);

describe("crash recovery with column families (SIGKILL)", () => {
  it(
    `keeps every acknowledged cross-family batch whole over ${rounds} kills`,
    async () => {
      const rnd = new Random(20261205);
      const acks: number[] = [];
      for (let run = 0; run < rounds; run++) {
        const lastAck = await runAndKill(fixture, [dir, String(run)], 100 + rnd.uniform(500));
        acks.push(lastAck);
        const db = await DB.open(dir, {});
        try {
          expect(db.listColumnFamilies()).toEqual(["default", "busy", "idle"]);
          const families = new Map(
            ["default", "busy", "idle"].map((cf) => [cf, db.columnFamily(cf)] as const),
          );
          for (let r = 0; r <= run; r++) {
            const last = acks[r]!;
            // Every acknowledged batch of every run, and (this run only) the one in flight.
            const upTo = r === run ? last + 1 : last;
            for (let b = 0; b <= upTo; b++) {
              const key = `r${r}-b${b}`;
              const writes = batchWrites(b);
              const got = writes.map(([cf]) => str(families.get(cf)!.get(key)));
              const present = got.filter((v) => v !== undefined).length;
              if (b <= last) {
                expect(got, `run ${r} batch ${b} was acknowledged`).toEqual(
                  writes.map(([, v]) => v),
                );
              } else {
                expect([0, writes.length], `run ${r} batch ${b} is torn: ${got}`).toContain(
                  present,
                );
                if (present > 0) expect(got).toEqual(writes.map(([, v]) => v));
              }
            }
            if (r === run) {
              for (const h of families.values())
                expect(h.get(`r${r}-b${last + 2}`)).toBeUndefined();
            }
          }
        } finally {
          await db.close();
        }
      }
      const acknowledged = acks.reduce((a, n) => a + n + 1, 0);
      expect(acknowledged).toBeGreaterThan(rounds * 10);
      // busy flushed to tables while idle's writes were in the WALs only: the retention rule
      // was exercised, not bypassed.
      const db = await DB.open(dir, {});
      try {
        const files = (cf: string) => {
          let n = 0;
          for (let level = 0; level < 7; level++)
            n += Number(db.columnFamily(cf).getProperty(`shale.num-files-at-level${level}`));
          return n;
        };
        console.log(
          `crash cf: acks ${acks.join(",")}; busy tables ${files("busy")}, idle ${files("idle")}`,
        );
        expect(files("busy")).toBeGreaterThan(0);
      } finally {
        await db.close();
      }
    },
    20_000 + rounds * 3_000,
  ); // ~1.5 s a round here; SHALE_STRESS runs 150
});
