// A follower for the kill tests (imports the BUILT packages): follows the stream argv[4] on
// the server argv[3] into the database in argv[2], printing "applied <sequence>" every
// 20 ms; on SIGTERM it closes and exits 0.
import { followChanges } from "@shale/replication";

const [dir, servers, stream] = process.argv.slice(2);
const f = await followChanges(dir, { servers, stream });
const timer = setInterval(() => {
  process.stdout.write(
    `applied ${f.appliedSequence}${f.error ? ` error ${f.error.message}` : ""}\n`,
  );
}, 20);
process.on("SIGTERM", async () => {
  clearInterval(timer);
  await f.close();
  process.stdout.write(`closed ${f.appliedSequence}\n`);
  process.exit(0);
});
