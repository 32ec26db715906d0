// Child process for crash.test.ts: writes numbered batches forever and reports each one
// on stdout once `write` has returned (acknowledged). The parent SIGKILLs it at a random
// moment. Batch b of run r holds 1 + (b % 5) keys `r<r>-b<b>-k<j>`; even batches are synced.
import { DB, WriteBatch } from "@shale/db";

const [dir, run] = process.argv.slice(2);
const db = await DB.open(dir, { writeBufferSize: 128 * 1024 });
const value = "v".repeat(120);
process.stdout.write("ready\n");
for (let b = 0; ; b++) {
  const batch = new WriteBatch();
  const n = 1 + (b % 5);
  for (let j = 0; j < n; j++) batch.put(`r${run}-b${b}-k${j}`, `${value}${b}`);
  db.write(batch, { sync: b % 2 === 0 });
  process.stdout.write(`ack ${b}\n`);
}
