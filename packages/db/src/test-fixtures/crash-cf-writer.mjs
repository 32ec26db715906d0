// Child process for crash-column-families.test.ts: writes numbered batches across column
// families forever, each with sync, and reports each one on stdout once `write` has returned
// (acknowledged). The parent SIGKILLs it at a random moment. Batch b of run r puts
// `r<r>-b<b>` into "busy" (a 4 KiB value: its 64 KiB memtable flushes often), into "default",
// and into "idle" when b % 3 === 0 (its memtable rarely fills, so the WALs it needs must
// outlive busy's flushes). Every 16th batch yields so flushes install; after batch 31 it
// waits for a flush of busy. With "churn" as the
// third argument, before every 10th batch b > 0 it creates family `g<r>-<b>` (printing
// "created <name>" once that returned) and drops the one it created before ("dropped
// <name>"), and every batch also puts its key into the newest family created.
import { DB, WriteBatch } from "@shale/db";

const [dir, run, mode] = process.argv.slice(2);
const db = await DB.open(dir, {
  createMissingColumnFamilies: true,
  columnFamilies: { busy: { writeBufferSize: 64 * 1024 }, idle: {} },
});
const busy = db.columnFamily("busy");
const idle = db.columnFamily("idle");
const big = "b".repeat(4096);
process.stdout.write("ready\n");
let gen;
for (let b = 0; ; b++) {
  if (mode === "churn" && b > 0 && b % 10 === 0) {
    const previous = gen;
    gen = await db.createColumnFamily(`g${run}-${b}`);
    process.stdout.write(`created ${gen.name}\n`);
    if (previous !== undefined) {
      await db.dropColumnFamily(previous.name);
      process.stdout.write(`dropped ${previous.name}\n`);
    }
  }
  const key = `r${run}-b${b}`;
  const batch = new WriteBatch().put(key, `${big}${b}`, busy).put(key, `default ${b}`);
  if (b % 3 === 0) batch.put(key, `idle ${b}`, idle);
  if (gen !== undefined) batch.put(key, `gen ${b}`, gen);
  db.write(batch, { sync: true });
  process.stdout.write(`ack ${b}\n`);
  // One flush of busy that returns before its ack, so a run killed after ack 32 has left a
  // table of busy whatever the machine's load, with idle's writes still in the WALs.
  if (b === 31) await busy.flush();
  if (b % 16 === 15) await new Promise((r) => setImmediate(r));
}
