// Child process for secondary/multi-process.test.ts: the primary. Writes `batches` batches;
// batch b puts `b<b>-k<j>` (j < 3), overwrites `hot<b % 100>` with b, and deletes
// `b<b-50>-k0`. Every 4th batch (and the last) is synced and then reported as "synced <b>".
// Reopens the database half way (a new MANIFEST and WAL). Small memtables and an L0 trigger
// of 2 keep flushes and compactions running while the readers read.
import { DB, WriteBatch } from "@shale/db";

const [dir, count] = process.argv.slice(2);
const batches = Number(count);
const options = { writeBufferSize: 64 * 1024, level0FileNumCompactionTrigger: 2 };
let db = await DB.open(dir, options);
const pad = "p".repeat(200);
let compactions = 0;
process.stdout.write("ready\n");
for (let b = 0; b < batches; b++) {
  if (b === Math.floor(batches / 2)) {
    compactions += Number(db.getProperty("shale.num-compactions"));
    await db.close();
    db = await DB.open(dir, options);
  }
  const batch = new WriteBatch();
  for (let j = 0; j < 3; j++) batch.put(`b${b}-k${j}`, `v${b}-${j}-${pad}`);
  batch.put(`hot${b % 100}`, String(b));
  if (b >= 50) batch.delete(`b${b - 50}-k0`);
  const sync = b % 4 === 0 || b === batches - 1;
  db.write(batch, { sync });
  if (sync) process.stdout.write(`synced ${b}\n`);
  // Let background work land and the event loop turn now and then.
  if (b % 20 === 0) await new Promise((r) => setTimeout(r, 1));
}
await db.waitForCompactions();
compactions += Number(db.getProperty("shale.num-compactions"));
process.stdout.write(`done ${compactions}\n`);
// Stay open until the parent says so: the readers' last catch-ups run beside a live primary.
process.stdin.once("data", async () => {
  await db.close();
  process.exit(0);
});
