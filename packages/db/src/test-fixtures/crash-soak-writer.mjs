// Child process for crash-soak.test.ts: writes numbered batches over four column families
// forever and reports each on stdout once `write` returned ("ack <b>"); the parent SIGKILLs
// it at a random moment. One write in four is synced (a SIGKILL loses nothing the OS has,
// synced or not). Batch b of run r: puts `r<r>-b<b>` into "busy" (a 2 KiB value: its 64 KiB
// memtable flushes often and L0 trigger 2 compacts), "default" and "wide" (merge operands,
// "stringappend"), "idle" every 5th batch (its data stays in the WALs across the others'
// flushes, until the live WALs pass `maxTotalWalSize`, 1 MiB, and it flushes), overwrites `r<r>-last` in "default" with b, and deletes `r<r>-b<b-3>` from
// "wide". Every 8th batch yields so flushes and compactions install; every 64th flushes
// "wide" and compacts a range of "busy" in the background (not waited for).
import { DB, WriteBatch } from "@shale/db";

const [dir, run] = process.argv.slice(2);
const db = await DB.open(dir, {
  mergeOperator: "stringappend",
  createMissingColumnFamilies: true,
  level0FileNumCompactionTrigger: 2,
  maxTotalWalSize: 1024 * 1024,
  columnFamilies: {
    busy: { writeBufferSize: 64 * 1024, level0FileNumCompactionTrigger: 2 },
    idle: {},
    wide: { writeBufferSize: 128 * 1024 },
  },
});
const busy = db.columnFamily("busy");
const idle = db.columnFamily("idle");
const wide = db.columnFamily("wide");
const big = "b".repeat(2048);
process.stdout.write("ready\n");
for (let b = 0; ; b++) {
  const key = `r${run}-b${b}`;
  const batch = new WriteBatch()
    .put(key, `${big}${b}`, busy)
    .put(key, `default ${b}`)
    .merge(key, `w${b}`, wide)
    .merge(key, `x${b}`, wide)
    .put(`r${run}-last`, String(b));
  if (b >= 3) batch.delete(`r${run}-b${b - 3}`, wide);
  if (b % 5 === 0) batch.put(key, `idle ${b}`, idle);
  db.write(batch, b % 4 === 0 ? { sync: true } : undefined);
  process.stdout.write(`ack ${b}\n`);
  if (b % 8 === 7) await new Promise((r) => setImmediate(r));
  if (b % 64 === 63) {
    wide.flush().catch(() => undefined);
    busy.compactRange(`r${run}-b`, `r${run}-c`).catch(() => undefined);
  }
}
