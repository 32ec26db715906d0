// Child process for crash-ingest.test.ts: opens the database in argv[2] on a file system that
// SIGKILLs this process at its `killAt`-th step (argv[4]; each file opened for writing, each
// sync of a file, each directory sync, each hard link counts one) once armed, puts keys
// `old-k<j>` (j < 100, flushed to a table) for the ingestion to overlap, writes two external
// files in argv[3] — `old-k<j>` = "a<j>" and `new-k<j>` = "b<j>" — arms the file system and
// ingests both (with moveFiles when argv[5] is "move"). Prints "ready" before the ingestion,
// "ack 0" once it returned and "steps <n>" with the steps it took; then waits to be killed.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { NodeFileSystem } from "@shale/base";
import { DB } from "@shale/db";
import { SstFileWriter } from "@shale/sstable";

const [dir, extDir, killAtArg, mode] = process.argv.slice(2);
const killAt = Number(killAtArg);

class KillingFileSystem extends NodeFileSystem {
  armed = false;
  steps = 0;
  step() {
    if (this.armed && ++this.steps === killAt) process.kill(process.pid, "SIGKILL");
  }
  openWritable(path, options) {
    this.step();
    const file = super.openWritable(path, options);
    const sync = file.sync.bind(file);
    file.sync = () => {
      this.step();
      sync();
    };
    return file;
  }
  syncDir(path) {
    this.step();
    super.syncDir(path);
  }
  link(existing, newPath) {
    this.step();
    super.link(existing, newPath);
  }
  remove(path) {
    this.step();
    super.remove(path);
  }
}

const fs = new KillingFileSystem();
const db = await DB.open(dir, { fs, disableAutoCompactions: true });
const key = (prefix, j) => `${prefix}-k${String(j).padStart(3, "0")}`;
for (let j = 0; j < 100; j++) db.put(key("old", j), `o${j}`);
await db.flush();
db.put(key("old", 200), "in the memtable");
mkdirSync(extDir, { recursive: true });
const files = [];
for (const [name, prefix, tag] of [
  ["a.sst", "old", "a"],
  ["b.sst", "new", "b"],
]) {
  const path = join(extDir, name);
  const w = new SstFileWriter();
  w.open(path);
  for (let j = 0; j < 100; j++) w.put(key(prefix, j), `${tag}${j}`);
  w.finish();
  files.push(path);
}
process.stdout.write("ready\n");
fs.armed = true;
await db.ingestExternalFile(files, { moveFiles: mode === "move" });
fs.armed = false;
process.stdout.write(`ack 0\nsteps ${fs.steps}\n`);
setInterval(() => {}, 1000);
