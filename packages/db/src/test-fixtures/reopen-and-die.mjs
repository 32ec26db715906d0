// Child process for open/deferred-recovery-flush.test.ts: opens the database (replaying its
// WALs into memtables that go to the background flush), writes one more key, reports, and
// SIGKILLs itself at once: the flush of the replayed memtables can have been posted to the
// worker, but never installed (installs happen on this thread).
import { DB } from "@shale/db";

const [dir] = process.argv.slice(2);
const db = await DB.open(dir, { writeBufferSize: 64 * 1024 });
db.put("after-reopen", "yes");
process.stdout.write(`open l0=${db.getProperty("shale.num-files-at-level0")}\n`);
process.kill(process.pid, "SIGKILL");
