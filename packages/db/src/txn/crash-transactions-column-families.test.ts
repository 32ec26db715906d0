/**
 * Transactions over column families across SIGKILLs: a bank whose accounts live in two
 * families ("default" and "vault") and whose transfers record themselves in a third
 * ("ledger", with a small write buffer so it flushes and releases WALs often), run by a child
 * process (test-fixtures/crash-txn-cf-writer.mjs) that is killed at a random moment, many
 * times over the same directory: optimistic and pessimistic (`transactionDB`, with plain
 * writes waiting for locks) writers, then pessimistic and two-phase (named, prepared, then
 * committed) ones.
 * After each reopen (as a TransactionDB; the prepared transfers a kill left are committed
 * first — each must come back whole):
 *
 * - every transfer acknowledged to the writer is there (its ledger entry);
 * - each account's balance, in whichever family it lives, is its start plus exactly the
 *   transfers in the ledger, and the total is unchanged: a transaction is whole in every
 *   family or absent from all of them;
 * - every note a transaction wrote beside its transfer names a transfer in the ledger.
 *
 * Runs against the BUILT package (the child imports "@shale/db" from dist). Rounds: 6 by
 * default, SHALE_STRESS=1 for 60.
 */
import { Random } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import type { ColumnFamilyHandle } from "../column-family/handle.js";
import { DB } from "../db.js";
import {
  crashRounds,
  crashTestDir,
  fixturePath,
  runAndKill,
} from "../test-support/crash-runner.test-support.js";

const ACCOUNTS = 20;
const dec = new TextDecoder();

/** Checks the invariants; returns the number of transfers in the ledger. */
/** What the check reads of the database or a family (a TransactionDB's handles are not DB-typed). */
type Store = Pick<ColumnFamilyHandle, "get" | "iterator">;

function checkBank(db: Store, vault: Store, ledger: Store): number {
  const balance = new Array<number>(ACCOUNTS).fill(1000);
  const logged = new Set<string>();
  for (const [k, v] of ledger.iterator({ gte: "log-", lt: "log." })) {
    const [from, to, amount] = dec.decode(v).split(",").map(Number) as [number, number, number];
    balance[from]! -= amount;
    balance[to]! += amount;
    logged.add(dec.decode(k).slice("log-".length));
  }
  let total = 0;
  for (let i = 0; i < ACCOUNTS; i++) {
    const store = i % 2 === 0 ? db : vault;
    const got = Number(dec.decode(store.get(`acct${i}`)!));
    expect(got, `acct${i}`).toBe(balance[i]);
    total += got;
    const note = store.get(`note${i}`);
    if (note !== undefined && dec.decode(note).startsWith("txn ")) {
      const id = dec.decode(note).slice("txn ".length);
      expect(logged.has(id), `note${i} names transfer ${id}`).toBe(true);
    }
  }
  expect(total).toBe(ACCOUNTS * 1000);
  // the other family holds no account of this one
  for (let i = 0; i < ACCOUNTS; i++)
    expect((i % 2 === 0 ? vault : db).get(`acct${i}`), `acct${i} elsewhere`).toBeUndefined();
  return logged.size;
}

const fixture = fixturePath("crash-txn-cf-writer.mjs");
const rounds = crashRounds(6, 60);
const dir = crashTestDir("shale-crash-txn-cf-");

describe("transactions over column families across crashes", () => {
  it(
    `keep committed transfers whole in every family over ${rounds} SIGKILLs`,
    async () => {
      const rnd = new Random(20261206);
      let logged = 0;
      let recovered = 0;
      for (let run = 0; run < rounds; run++) {
        const acked = new Set<number>();
        // Once a WAL holds prepare records only a TransactionDB opens it (as in RocksDB):
        // the first half alternates optimistic and pessimistic, the second half pessimistic
        // and two-phase.
        const mode =
          run < rounds / 2
            ? run % 2 === 0
              ? "pessimistic"
              : "optimistic"
            : run % 2 === 0
              ? "pessimistic"
              : "two-phase";
        await runAndKill(
          fixture,
          [dir, String(run), mode],
          300 + rnd.uniform(600),
          undefined,
          (n) => acked.add(n),
        );
        // A TransactionDB open: prepared transfers come back; each is committed (whole).
        const db = await DB.open(dir, { transactionDB: {} });
        try {
          const prepared = db.getPreparedTransactions();
          if (mode !== "two-phase") expect(prepared).toEqual([]);
          for (const t of prepared) {
            expect(t.name).toMatch(new RegExp(`^t-${run}-\\d+$`));
            t.commit();
            recovered++;
          }
          expect(db.listColumnFamilies()).toEqual(["default", "vault", "ledger"]);
          const vault = db.columnFamily("vault");
          const ledger = db.columnFamily("ledger");
          for (const n of acked)
            expect(ledger.get(`log-${run}-${n}`), `run ${run} transfer ${n}`).toBeDefined();
          const now = checkBank(db, vault, ledger);
          expect(now).toBeGreaterThanOrEqual(logged + acked.size);
          logged = now;
        } finally {
          await db.close();
        }
      }
      expect(logged, `${recovered} prepared transfers recovered and committed`).toBeGreaterThan(0);
    },
    60_000 + rounds * 6_000,
  );
});
