// Child process for crash.test.ts: writes numbered batches forever and reports each one
// on stdout once `write` has returned (acknowledged). The parent SIGKILLs it at a random
// moment. Batch b of run r holds 1 + (b % 5) keys `r<r>-b<b>-k<j>`; even batches are synced.
// With "families" as the third argument the database has column families "busy" and "idle"
// too, and key j of batch b goes to the family `familyOf(b, j)` names (idle: the first key of
// every 7th batch, so its data stays in the WALs across busy's flushes).
import { DB, WriteBatch } from "@shale/db";

const [dir, run, mode] = process.argv.slice(2);
const families = mode === "families";
const db = await DB.open(dir, {
  writeBufferSize: 128 * 1024,
  ...(families
    ? { createMissingColumnFamilies: true, columnFamilies: { busy: {}, idle: {} } }
    : {}),
});
/** The family of key j of batch b (crash.test.ts has the same). */
const familyOf = (b, j) =>
  !families ? "default" : b % 7 === 0 && j === 0 ? "idle" : j % 2 === 0 ? "busy" : "default";
const handles = families ? { busy: db.columnFamily("busy"), idle: db.columnFamily("idle") } : {};
const value = "v".repeat(120);
process.stdout.write("ready\n");
for (let b = 0; ; b++) {
  const batch = new WriteBatch();
  const n = 1 + (b % 5);
  for (let j = 0; j < n; j++)
    batch.put(`r${run}-b${b}-k${j}`, `${value}${b}`, handles[familyOf(b, j)]);
  db.write(batch, { sync: b % 2 === 0 });
  process.stdout.write(`ack ${b}\n`);
}
