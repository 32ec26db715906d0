/**
 * Transactions across crashes: a bank whose transfers are transactions (each also records
 * itself as a `log-*` key), killed with SIGKILL in a child process, and cut by a power
 * failure (FaultInjectionFileSystem) in this one. After each reopen:
 *
 * - the total of the balances is what the accounts started with;
 * - every transfer acknowledged to the writer (SIGKILL), or committed with `sync` (power
 *   cut), is there;
 * - each account's balance is its start plus exactly the transfers whose log key is there:
 *   a transaction is whole or absent, never half-applied.
 *
 * The SIGKILL part runs against the BUILT package (the child imports "@shale/db" from
 * dist), alternating optimistic and pessimistic (`transactionDB`) writers. Rounds: 4 by
 * default, SHALE_STRESS=1 for 40.
 */
import { FaultInjectionFileSystem, MemoryFileSystem } from "@shale/base";
import { Random } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import {
  crashRounds,
  crashTestDir,
  fixturePath,
  runAndKill,
} from "../test-support/crash-runner.test-support.js";

const ACCOUNTS = 20;
const dec = new TextDecoder();

/** Checks the invariants; returns the number of logged transfers. */
function checkBank(db: DB): number {
  const balance = new Array<number>(ACCOUNTS).fill(1000);
  let transfers = 0;
  for (const [, v] of db.iterator({ gte: "log-", lt: "log." })) {
    const [from, to, amount] = dec.decode(v).split(",").map(Number) as [number, number, number];
    balance[from]! -= amount;
    balance[to]! += amount;
    transfers++;
  }
  let total = 0;
  for (let i = 0; i < ACCOUNTS; i++) {
    const got = Number(dec.decode(db.get(`acct${i}`)!));
    expect(got, `acct${i}`).toBe(balance[i]);
    total += got;
  }
  expect(total).toBe(ACCOUNTS * 1000);
  return transfers;
}

const fixture = fixturePath("crash-transaction-writer.mjs");
const rounds = crashRounds(4, 40);
const dir = crashTestDir("shale-crash-txn-");

describe("transactions across crashes", () => {
  it(
    `keep committed transfers whole over ${rounds} SIGKILLs`,
    async () => {
      const rnd = new Random(20261205);
      let logged = 0;
      for (let run = 0; run < rounds; run++) {
        const acked = new Set<number>();
        const mode = run % 2 === 0 ? "optimistic" : "pessimistic";
        await runAndKill(
          fixture,
          [dir, String(run), mode],
          200 + rnd.uniform(500),
          undefined,
          (n) => acked.add(n),
        );
        const db = await DB.open(dir);
        try {
          for (const n of acked)
            expect(db.get(`log-${run}-${n}`), `run ${run} transfer ${n}`).toBeDefined();
          const now = checkBank(db);
          expect(now).toBeGreaterThanOrEqual(logged + acked.size);
          logged = now;
        } finally {
          await db.close();
        }
      }
      expect(logged).toBeGreaterThan(0);
    },
    60_000 + rounds * 5_000,
  );

  it("keep synced transfers and no partial one after a power cut", async () => {
    const rnd = new Random(5);
    for (const transactionDB of [undefined, { lockTimeoutMs: 5000, deadlockDetect: true }]) {
      for (let round = 0; round < 5; round++) {
        const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
        const options = transactionDB === undefined ? { fs } : { fs, transactionDB };
        const db = await DB.open("/db", { ...options, writeBufferSize: 256 * 1024 });
        const setup = db.beginTransaction();
        for (let i = 0; i < ACCOUNTS; i++) await setup.put(`acct${i}`, "1000");
        setup.commit({ sync: true });
        const synced: number[] = [];
        let next = 0;
        let cut = false;
        const cutAt = 50 + rnd.uniform(400);
        const worker = async () => {
          while (!cut) {
            const n = next++;
            const from = rnd.uniform(ACCOUNTS);
            const to = (from + 1 + rnd.uniform(ACCOUNTS - 1)) % ACCOUNTS;
            const sync = n % 3 === 0;
            try {
              await db.transaction(
                async (txn) => {
                  const a = Number(dec.decode((await txn.getForUpdate(`acct${from}`))!));
                  await new Promise((r) => setImmediate(r));
                  const b = Number(dec.decode((await txn.getForUpdate(`acct${to}`))!));
                  await txn.put(`acct${from}`, String(a - 7));
                  await txn.put(`acct${to}`, String(b + 7));
                  await txn.put(`log-${String(n).padStart(6, "0")}`, `${from},${to},7`);
                },
                { retries: 1000, snapshot: true, sync },
              );
            } catch {
              return; // the database died under it
            }
            if (sync) synced.push(n);
            if (n === cutAt) {
              cut = true;
              fs.dropUnsyncedData();
            }
          }
        };
        await Promise.all(Array.from({ length: 6 }, worker));
        expect(cut).toBe(true);
        expect(synced.length).toBeGreaterThan(0);
        await db.close().catch(() => undefined);
        const again = await DB.open("/db", { fs });
        try {
          for (const n of synced)
            expect(again.get(`log-${String(n).padStart(6, "0")}`), `transfer ${n}`).toBeDefined();
          const kept = checkBank(again);
          expect(kept).toBeGreaterThanOrEqual(synced.length);
          expect(kept).toBeLessThan(next);
        } finally {
          await again.close();
        }
      }
    }
  });
});
