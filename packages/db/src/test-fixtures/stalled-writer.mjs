// Child process for worker-start.test.ts: writes until the memtables are full, so the writer
// stalls in a synchronous wait for a flush (two 64 KiB memtables), then closes and reports.
import { DB } from "@shale/db";

const [dir] = process.argv.slice(2);
const db = await DB.open(dir, { writeBufferSize: 64 * 1024, maxWriteBufferNumber: 2 });
const value = "x".repeat(1000);
for (let i = 0; i < 1000; i++) db.put(`k${i}`, `${i}:${value}`);
process.stdout.write(`wrote 1000 l0=${db.getProperty("shale.num-files-at-level0")}\n`);
await db.close();
process.stdout.write("closed\n");
