// Child process for txn/crash-transactions.test.ts: a bank. Opens the database (with
// `transactionDB` when the mode is "pessimistic"), creates ACCOUNTS accounts of 1000 in one
// batch if they are missing, prints "ready", then runs WORKERS concurrent async transfer
// loops forever. Transfer <run>-<n> moves an amount from one account to another (balances
// may go negative) and records itself as key `log-<run>-<n>` = "<from>,<to>,<amount>" in
// the same transaction, with an await between its reads and its writes. Each transfer is
// acknowledged on stdout ("ack <n>") once its commit returned; every 4th commit is synced.
import { DB } from "@shale/db";

const [dir, run, mode] = process.argv.slice(2);
const ACCOUNTS = 20;
const WORKERS = 8;
const db = await DB.open(
  dir,
  mode === "pessimistic" ? { transactionDB: { lockTimeoutMs: 5000, deadlockDetect: true } } : {},
);
if (db.get("acct0") === undefined) {
  const batch = db.beginTransaction();
  for (let i = 0; i < ACCOUNTS; i++) await batch.put(`acct${i}`, "1000");
  batch.commit({ sync: true });
}
process.stdout.write("ready\n");
let next = 0;
let seed = Number(run) * 7919 + 17;
const rand = (n) => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
};
async function worker() {
  for (;;) {
    const n = next++;
    const from = rand(ACCOUNTS);
    const to = (from + 1 + rand(ACCOUNTS - 1)) % ACCOUNTS;
    const amount = 1 + rand(50);
    await db.transaction(
      async (txn) => {
        const a = Number(new TextDecoder().decode(await txn.getForUpdate(`acct${from}`)));
        await new Promise((r) => setImmediate(r));
        const b = Number(new TextDecoder().decode(await txn.getForUpdate(`acct${to}`)));
        await txn.put(`acct${from}`, String(a - amount));
        await txn.put(`acct${to}`, String(b + amount));
        await txn.put(`log-${run}-${n}`, `${from},${to},${amount}`);
      },
      { retries: 1000, snapshot: true, sync: n % 4 === 0 },
    );
    process.stdout.write(`ack ${n}\n`);
  }
}
await Promise.all(Array.from({ length: WORKERS }, worker));
