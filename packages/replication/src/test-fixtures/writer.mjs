// A writer for the kill tests (imports the BUILT packages): opens the database in argv[2],
// publishes its feed to the stream argv[4] on the server argv[3], and puts key i (value
// "v<i>") for i = 0, 1, 2, ... until it is killed; every 25 writes it waits for JetStream to
// store them and prints "stored <sequence>" (the writes JetStream acknowledged).
import { DB } from "@shale/db";
import { publishChanges } from "@shale/replication";

const [dir, servers, stream] = process.argv.slice(2);
const db = await DB.open(dir, { walTtlSeconds: 3600, writeBufferSize: 256 * 1024 });
const pub = await publishChanges(db, { servers, stream });
const key = (i) => `k${String(i).padStart(8, "0")}`;
for (let i = db.latestSequence; ; i++) {
  db.put(key(i), `v${i}`);
  if (i % 25 === 24) {
    await pub.drain();
    process.stdout.write(`stored ${pub.storedSequence}\n`);
  }
}
