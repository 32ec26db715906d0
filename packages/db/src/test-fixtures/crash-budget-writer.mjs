// Child process for write-budget.test.ts: four column families under one write-buffer budget
// (dbWriteBufferSize 256 KiB, each family's writeBufferSize too), so the budget, not a full
// memtable, decides every flush. Puts key `r<run>-<i>` (a 1 KiB value) into family i mod 4
// with sync and reports each on stdout once the put returned (acknowledged); yields every
// 32nd put so flushes install. The parent SIGKILLs it at a random moment. Prints "flush
// <family>" for each flush the budget started, once installed.
import { DB } from "@shale/db";

const [dir, run] = process.argv.slice(2);
const KIB = 1024;
const names = ["default", "cf1", "cf2", "cf3"];
const db = await DB.open(dir, {
  createMissingColumnFamilies: true,
  writeBufferSize: 256 * KIB,
  dbWriteBufferSize: 256 * KIB,
  columnFamilies: { cf1: {}, cf2: {}, cf3: {} },
  listeners: [
    {
      onFlushCompleted: (info) => {
        if (info.flushReason === "WriteBufferManager")
          process.stdout.write(`flush ${info.cfName}\n`);
      },
    },
  ],
});
const handles = names.map((n) => db.columnFamily(n));
const value = "v".repeat(KIB);
process.stdout.write("ready\n");
for (let i = 0; ; i++) {
  handles[i % 4].put(`r${run}-${i}`, `${value}${i}`, { sync: true });
  process.stdout.write(`ack ${i}\n`);
  if (i % 32 === 31) await new Promise((r) => setImmediate(r));
}
