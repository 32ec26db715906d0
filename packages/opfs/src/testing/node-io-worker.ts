/**
 * A Node `worker_threads` I/O worker over `FakeOpfs`: what `openFakeOpfsFileSystem` starts,
 * so the Node tests run the real client, wire and server against the fake.
 * `workerData` is the `FakeOpfsOptions`.
 */
import { parentPort, workerData } from "node:worker_threads";
import { OpfsIoServer } from "../io-server.js";
import { FakeOpfs, type FakeOpfsOptions } from "./fake-opfs.js";

if (parentPort !== null) {
  const port = parentPort;
  const fake = new FakeOpfs(workerData as FakeOpfsOptions);
  const server = new OpfsIoServer(fake.environment(), { postMessage: (m) => port.postMessage(m) });
  port.on("message", (m: unknown) => server.onMessage(m));
}
