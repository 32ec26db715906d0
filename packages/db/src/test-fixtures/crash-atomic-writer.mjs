// Child process for crash-atomic-flush.test.ts: a database with atomicFlush and three
// families besides "default" — "busy" (a 64 KiB memtable that fills every ~15 batches),
// "idle" (every third batch) and "other" (never written: it must stay out of every group).
// Writes numbered batches forever and reports each on stdout once `write` returned ("ack
// <b>"). Batch b of run r puts `r<r>-b<b>` into busy (a 4 KiB value), default, and idle when
// b % 3 === 0. Mode "wal" (the third argument) writes with sync: every acknowledged batch is
// durable. Mode "nowal" writes with disableWAL: only flushes make data durable, so what a
// crash leaves is exactly what the atomic groups installed. Every 16th batch yields so
// flushes install.
import { DB, WriteBatch } from "@shale/db";

const [dir, run, mode] = process.argv.slice(2);
const db = await DB.open(dir, {
  atomicFlush: true,
  createMissingColumnFamilies: true,
  columnFamilies: { busy: { writeBufferSize: 64 * 1024 }, idle: {}, other: {} },
});
const busy = db.columnFamily("busy");
const idle = db.columnFamily("idle");
const big = "b".repeat(4096);
const options = mode === "nowal" ? { disableWAL: true } : { sync: true };
process.stdout.write("ready\n");
for (let b = 0; ; b++) {
  const key = `r${run}-b${b}`;
  const batch = new WriteBatch().put(key, `${big}${b}`, busy).put(key, `default ${b}`);
  if (b % 3 === 0) batch.put(key, `idle ${b}`, idle);
  db.write(batch, options);
  process.stdout.write(`ack ${b}\n`);
  if (b % 16 === 15) await new Promise((r) => setImmediate(r));
}
