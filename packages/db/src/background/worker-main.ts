/**
 * The body of a background worker thread (loaded by worker.ts): runs flush (and later
 * compaction) jobs posted by the database and answers on its port. Uses the node file
 * system directly (the database only sends jobs here when it runs on NodeFileSystem).
 */
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { NodeFileSystem } from "@shale/base";
import { MemTable } from "@shale/memtable";
import { flushMemTable } from "./flush-job.js";
import {
  builtinComparator,
  type JobMessage,
  type ResultMessage,
  serializeError,
} from "./protocol.js";

const port = (workerData as { port: MessagePort } | undefined)?.port ?? parentPort;
if (port === null) throw new Error("the shale worker must run in a worker thread");
const fs = new NodeFileSystem();

port.on("message", (job: JobMessage) => {
  let reply: ResultMessage;
  try {
    const comparator = builtinComparator(job.comparator);
    if (comparator === undefined)
      throw new Error(`comparator ${job.comparator} cannot run in a worker`);
    const mem = MemTable.fromShared(job.memtable, { comparator });
    const file = flushMemTable(fs, job.dir, job.fileNumber, mem, { ...job.table, comparator });
    reply = { id: job.id, ok: true, file };
  } catch (e) {
    reply = { id: job.id, ok: false, error: serializeError(e) };
  }
  port.postMessage(reply);
});
