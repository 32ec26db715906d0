/**
 * The worker thread of `publishChanges(db, { worker: true })`: it reads the database's WALs
 * from the outside (`updatesSinceIn`, the same change feed as `db.getUpdatesSince`) and
 * runs the publish loop (publish-loop.ts) on its own NATS connection, so the database's
 * thread only writes. It reports what is stored and why it stopped to the database's thread
 * (publisher-worker-messages.ts), and stops when told to: acknowledgements in flight are
 * awaited, then it disconnects and ends.
 *
 * Threading: its own thread; it shares no memory with the database.
 */
import { parentPort, workerData } from "node:worker_threads";
import { NodeFileSystem } from "@shale/base";
import { updatesSinceIn } from "@shale/db/internal";
import { connect, type NatsConnection } from "nats";
import { PublishLoop } from "./publish-loop.js";
import {
  type FromWorker,
  type PublisherWorkerData,
  type ToWorker,
  toWire,
} from "./publisher-worker-messages.js";

const port = parentPort;
if (port === null) throw new Error("publisher-worker.js runs as a worker thread");
const data = workerData as PublisherWorkerData;
const post = (m: FromWorker) => port.postMessage(m);

let nc: NatsConnection | undefined;
let loop: PublishLoop | undefined;
let closing = false;

async function close(): Promise<void> {
  if (closing) return;
  closing = true;
  await loop?.close();
  if (nc !== undefined && !nc.isClosed()) await nc.drain().catch(() => {});
  post({ type: "closed" });
  port!.close();
}

port.on("message", (m: ToWorker) => {
  if (m.type === "kick") loop?.kick();
  else void close();
});

try {
  nc = await connect({ servers: data.servers, maxReconnectAttempts: -1 });
  const s = data.settings;
  const feed = updatesSinceIn(data.dir, new NodeFileSystem(), s.stored + 1, data.lastSequence);
  loop = new PublishLoop(nc.jetstream(), feed, s, {
    stored: (sequence) => post({ type: "stored", sequence }),
    failed: (error) => post({ type: "failed", error: toWire(error) }),
  });
  post({ type: "ready" });
} catch (e) {
  post({ type: "failed", error: toWire(e) });
  await close();
}
