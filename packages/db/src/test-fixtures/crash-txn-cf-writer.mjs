// Child process for txn/crash-transactions-column-families.test.ts: a bank over three
// column families. Account i lives in "default" (i even) or "vault" (i odd); each transfer
// records itself in "ledger" (a small write buffer: it flushes often, so WALs are kept and
// released across families). Opens the database (with `transactionDB` when the mode is
// "pessimistic"; with `maxWriteBufferSizeToMaintain` on the account families), creates
// ACCOUNTS accounts of 1000 in one transaction if they are missing, prints "ready", then
// runs WORKERS concurrent async transfer loops forever. Transfer <run>-<n> moves an amount
// between two accounts (of the same family or not) and writes `log-<run>-<n>` =
// "<from>,<to>,<amount>" into "ledger", all in one transaction, with an await between its
// reads and its writes, and notes itself in `note<from>` of the from-account's family. In
// the pessimistic mode every 5th transfer is followed by a plain `put` of a random
// `note<i>` (a TransactionDB's plain write: it waits for the lock of a transaction writing
// that note; notes are outside the bank's invariants). Each transfer is acknowledged on stdout ("ack <n>") once its commit
// returned; every 4th commit is synced. Mode "two-phase" names and prepares each transfer
// (an await between its prepare and its commit), so a kill leaves prepared transactions.
import { DB } from "@shale/db";

const [dir, run, mode] = process.argv.slice(2);
const ACCOUNTS = 20;
const WORKERS = 8;
// "two-phase": pessimistic, and each transfer is named and prepared before its commit.
const twoPhase = mode === "two-phase";
const pessimistic = mode === "pessimistic" || twoPhase;
const db = await DB.open(dir, {
  columnFamilies: {
    vault: { maxWriteBufferSizeToMaintain: 4 << 20 },
    ledger: { writeBufferSize: 64 * 1024 },
  },
  createMissingColumnFamilies: true,
  maxWriteBufferSizeToMaintain: 4 << 20,
  ...(pessimistic
    ? { transactionDB: { lockTimeoutMs: 5000, defaultLockTimeoutMs: 5000, deadlockDetect: true } }
    : {}),
});
const vault = db.columnFamily("vault");
const ledger = db.columnFamily("ledger");
const familyOf = (i) => (i % 2 === 0 ? undefined : vault);
const dec = new TextDecoder();
if (db.get("acct0") === undefined) {
  const setup = db.beginTransaction();
  for (let i = 0; i < ACCOUNTS; i++) await setup.put(`acct${i}`, "1000", familyOf(i));
  setup.commit({ sync: true });
}
process.stdout.write("ready\n");
let next = 0;
let seed = Number(run) * 7919 + 29;
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
        const a = Number(dec.decode(await txn.getForUpdate(`acct${from}`, familyOf(from))));
        await new Promise((r) => setImmediate(r));
        const b = Number(dec.decode(await txn.getForUpdate(`acct${to}`, familyOf(to))));
        await txn.put(`acct${from}`, String(a - amount), familyOf(from));
        await txn.put(`acct${to}`, String(b + amount), familyOf(to));
        await txn.put(`note${from}`, `txn ${run}-${n}`, familyOf(from));
        await txn.put(`log-${run}-${n}`, `${from},${to},${amount}`, ledger);
        if (twoPhase) {
          txn.setName(`t-${run}-${n}`);
          txn.prepare({ sync: n % 4 === 0 });
          await new Promise((r) => setImmediate(r)); // a kill may find it prepared
        }
      },
      { retries: 1000, snapshot: true, sync: n % 4 === 0 },
    );
    process.stdout.write(`ack ${n}\n`);
    if (pessimistic && n % 5 === 0) {
      const i = rand(ACCOUNTS);
      await (familyOf(i) ?? db).put(`note${i}`, `plain ${run}-${n}`);
    }
  }
}
await Promise.all(Array.from({ length: WORKERS }, worker));
