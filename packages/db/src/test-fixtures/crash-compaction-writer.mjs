// Child process for crash-compaction.test.ts: like crash-writer.mjs, but opened with the
// options the test passes as JSON (sizes so small that flushes and compactions, in worker
// threads, run all the time). Batch b of run r puts 1 + (b % 5) keys `r<r>-b<b>-k<j>` and
// overwrites `hot<b % 50>` with "<r>:<b>"; even batches are synced. Each batch is
// acknowledged on stdout once `write` returned.
import { DB, WriteBatch } from "@shale/db";

const [dir, run, options] = process.argv.slice(2);
const db = await DB.open(dir, JSON.parse(options));
const value = "v".repeat(120);
process.stdout.write("ready\n");
for (let b = 0; ; b++) {
  const batch = new WriteBatch();
  const n = 1 + (b % 5);
  for (let j = 0; j < n; j++) batch.put(`r${run}-b${b}-k${j}`, `${value}${b}`);
  batch.put(`hot${b % 50}`, `${run}:${b}`);
  db.write(batch, { sync: b % 2 === 0 });
  process.stdout.write(`ack ${b}\n`);
}
