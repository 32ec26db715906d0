/**
 * transaction-overhead-bench: what a transaction of one put adds besides the write itself —
 * begin, put (with its lock, pessimistic), rollback — in CPU nanoseconds per transaction,
 * with no commit, so no memtable or WAL work blurs it (not a test; reports figures only).
 *
 *   cd packages/db && npx tsc -b && node dist/bench/transaction-overhead-bench.js
 *     [--txns=200000] [--rounds=7]
 *
 * Two databases on the in-memory file system, one optimistic and one opened with
 * `transactionDB`; each round runs `txns` transactions of each kind (begin + rollback, and
 * begin + put of a random 16-byte key and a 100-byte value + rollback); medians printed.
 */
import { MemoryFileSystem } from "@shale/base";
import { DB } from "../db.js";

function arg(name: string, fallback: string): number {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return Number(a === undefined ? fallback : a.slice(name.length + 3));
}

const TXNS = arg("txns", "200000");
const ROUNDS = arg("rounds", "7");

const key = new Uint8Array(16).fill(0x30);
const view = new DataView(key.buffer);
const value = new Uint8Array(100).fill(0x61);
const fs = new MemoryFileSystem();
const optimistic = await DB.open("/optimistic", { fs });
const pessimistic = await DB.open("/pessimistic", { fs, transactionDB: {} });

const cases: Record<string, () => void> = {
  "optimistic begin+rollback": () => optimistic.beginTransaction().rollback(),
  "optimistic begin+put+rollback": () => {
    const txn = optimistic.beginTransaction();
    txn.put(key, value);
    txn.rollback();
  },
  "pessimistic begin+rollback": () => pessimistic.beginTransaction().rollback(),
  "pessimistic begin+put+rollback": () => {
    const txn = pessimistic.beginTransaction();
    void txn.put(key, value);
    txn.rollback();
  },
};

const times: Record<string, number[]> = {};
for (let r = 0; r < ROUNDS + 1; r++) {
  for (const [name, run] of Object.entries(cases)) {
    let x = 12345;
    const c0 = process.cpuUsage();
    for (let i = 0; i < TXNS; i++) {
      x = (Math.imul(x, 1103515245) + 12345) & 0x7fffffff;
      view.setUint32(12, x % 50000);
      run();
    }
    const c = process.cpuUsage(c0);
    if (r > 0) (times[name] ??= []).push(((c.user + c.system) * 1000) / TXNS);
  }
}
await optimistic.close();
await pessimistic.close();
const median = (a: number[]) => [...a].sort((p, q) => p - q)[a.length >> 1]!;
console.log(`${TXNS} transactions x ${ROUNDS} rounds, CPU ns per transaction (median, min):`);
for (const [name, t] of Object.entries(times))
  console.log(
    `${name.padEnd(32)} ${median(t).toFixed(0).padStart(5)}  ${Math.min(...t).toFixed(0)}`,
  );
