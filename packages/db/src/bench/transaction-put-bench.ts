/**
 * transaction-put-bench: a transaction of one put against a plain `db.put`, in one process,
 * CPU time per op — steadier than db-bench's wall time on a loaded machine (not a test;
 * reports figures only).
 *
 *   cd packages/db && npx tsc -b && node dist/bench/transaction-put-bench.js [--puts=100000]
 *     [--rounds=7] [--value_size=100]
 *
 * Each round writes `puts` random 16-byte keys (value `value_size` bytes, WAL on, no sync)
 * into a fresh database on disk three ways — `db.put`; an optimistic transaction
 * (`beginTransaction`, `put`, `commit`); a pessimistic one (`transactionDB`, the put
 * awaited) — the order rotated every round; medians (and minimums) printed, with the ratio
 * to the plain put.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DB } from "../db.js";

function arg(name: string, fallback: string): number {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return Number(a === undefined ? fallback : a.slice(name.length + 3));
}

const PUTS = arg("puts", "100000");
const ROUNDS = arg("rounds", "7");
const VALUE_SIZE = arg("value_size", "100");

const KINDS = ["put", "optimistic", "pessimistic"] as const;
type Kind = (typeof KINDS)[number];

const key = new Uint8Array(16).fill(0x30);
const view = new DataView(key.buffer);
const value = new Uint8Array(VALUE_SIZE).fill(0x61);

/** CPU microseconds per op of one round of `kind`. */
async function round(kind: Kind): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "shale-txn-put-bench-"));
  const db = await DB.open(dir, kind === "pessimistic" ? { transactionDB: {} } : {});
  let x = 12345;
  const c0 = process.cpuUsage();
  if (kind === "put") {
    for (let i = 0; i < PUTS; i++) {
      x = (Math.imul(x, 1103515245) + 12345) & 0x7fffffff;
      view.setUint32(12, x % PUTS);
      db.put(key, value);
    }
  } else if (kind === "optimistic") {
    for (let i = 0; i < PUTS; i++) {
      x = (Math.imul(x, 1103515245) + 12345) & 0x7fffffff;
      view.setUint32(12, x % PUTS);
      const txn = db.beginTransaction();
      txn.put(key, value);
      txn.commit();
    }
  } else {
    for (let i = 0; i < PUTS; i++) {
      x = (Math.imul(x, 1103515245) + 12345) & 0x7fffffff;
      view.setUint32(12, x % PUTS);
      const txn = db.beginTransaction();
      await txn.put(key, value);
      txn.commit();
    }
  }
  const c = process.cpuUsage(c0);
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  return (c.user + c.system) / PUTS;
}

const times: Record<Kind, number[]> = { put: [], optimistic: [], pessimistic: [] };
for (const kind of KINDS) await round(kind); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  for (let i = 0; i < KINDS.length; i++) {
    const kind = KINDS[(i + r) % KINDS.length]!;
    times[kind].push(await round(kind));
  }
}
const median = (a: number[]) => [...a].sort((p, q) => p - q)[a.length >> 1]!;
const base = median(times.put);
console.log(`${PUTS} puts x ${ROUNDS} rounds, value ${VALUE_SIZE} B, CPU us/op (median, min):`);
for (const kind of KINDS) {
  const m = median(times[kind]);
  console.log(
    `${kind.padEnd(12)} ${m.toFixed(2)}  ${Math.min(...times[kind]).toFixed(2)}  ${(m / base).toFixed(2)}x`,
  );
}
