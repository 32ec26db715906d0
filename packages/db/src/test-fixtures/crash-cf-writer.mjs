// Child process for crash-column-families.test.ts: writes numbered batches across column
// families forever, each with sync, and reports each one on stdout once `write` has returned
// (acknowledged). The parent SIGKILLs it at a random moment. Batch b of run r puts
// `r<r>-b<b>` into "busy" (a 4 KiB value: its 64 KiB memtable flushes often), into "default",
// and into "idle" when b % 3 === 0 (its memtable rarely fills, so the WALs it needs must
// outlive busy's flushes). Every 16th batch yields so flushes install.
import { DB, WriteBatch } from "@shale/db";

const [dir, run] = process.argv.slice(2);
const db = await DB.open(dir, {
  createMissingColumnFamilies: true,
  columnFamilies: { busy: { writeBufferSize: 64 * 1024 }, idle: {} },
});
const busy = db.columnFamily("busy");
const idle = db.columnFamily("idle");
const big = "b".repeat(4096);
process.stdout.write("ready\n");
for (let b = 0; ; b++) {
  const key = `r${run}-b${b}`;
  const batch = new WriteBatch().put(key, `${big}${b}`, busy).put(key, `default ${b}`);
  if (b % 3 === 0) batch.put(key, `idle ${b}`, idle);
  db.write(batch, { sync: true });
  process.stdout.write(`ack ${b}\n`);
  if (b % 16 === 15) await new Promise((r) => setImmediate(r));
}
