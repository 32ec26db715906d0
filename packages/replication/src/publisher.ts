/**
 * publishChanges: a database's change feed (`db.getUpdatesSince`) into a JetStream stream,
 * one message per run of consecutive batches (layout: stream.ts; packing: pack.ts).
 *
 * - Resumable: it starts after the last batch the stream holds (sequence + count of its
 *   last message), so a restarted publisher sends each batch once. The database's WALs must
 *   still hold that point: keep them with `walTtlSeconds` / `walSizeLimitMb` for as long
 *   as a publisher may be down, else the start is NotFound.
 * - Each batch once: `Nats-Msg-Id` is the batch's sequence (JetStream drops a duplicate
 *   within its duplicate window), and every publish expects the stream's last message to
 *   be the one before it (`expect.lastSequence`): a publish that failed makes every later
 *   one fail too, so the stream never has a hole. The publisher then stops with that error
 *   (`drain()` rejects with it); a new `publishChanges` resumes from what was stored.
 * - A new stream for a database whose WALs no longer hold sequence 1 starts with a
 *   checkpoint in the object store (bootstrap.ts) and the batches after it; `checkpoint()`
 *   uploads another one at any time (then older batches may leave the stream).
 * - Up to `maxInFlight` publishes wait for their acknowledgements at once; new writes are
 *   picked up every `pollMs` (at once while there is a backlog).
 * - Where the loop runs (publish-loop.ts): on the database's thread by default, between the
 *   application's operations — a writer that keeps the event loop busy (a synchronous loop
 *   of puts) holds the feed back until it yields. With `worker: true` it runs in a worker
 *   thread that reads the database's WAL files as they are appended
 *   (publisher-worker.ts), so such a writer is published while it writes.
 * - The batches the feed holds when a message goes out travel together, up to
 *   `maxMessageBytes` (a larger batch goes alone): a writer of many small batches costs
 *   JetStream one message per poll, not one per write. Nothing waits to fill a message.
 *
 * Threading: the database's thread (the event loop); with `worker: true` the reading and
 * publishing happen in a worker thread, and only `drain`, `checkpoint` and `close` on the
 * database's thread.
 */
import { NodeFileSystem, ShaleError } from "@shale/base";
import type { DB, TransactionLogIterator } from "@shale/db";
import { fileSystemOf } from "@shale/db/internal";
import { connect, type NatsConnection } from "nats";
import { uploadCheckpoint } from "./bootstrap.js";
import { feedIdentity } from "./identity.js";
import { type LoopListener, type LoopSettings, PublishLoop } from "./publish-loop.js";
import { startPublisherWorker } from "./publisher-worker-handle.js";
import { SequenceWaiters } from "./sequence-waiters.js";
import { checkStreamName, ensureStream, lastBatch } from "./stream.js";

export interface PublishOptions {
  /** NATS server URL(s), e.g. "nats://127.0.0.1:4222". */
  servers: string | string[];
  /** The JetStream stream (created if missing, with subject `<stream>.batches`). */
  stream: string;
  /** Replicas of a stream this call creates (JetStream's num_replicas). Default: 1. */
  replicas?: number;
  /** Publishes awaiting acknowledgement at most. Default: 256. */
  maxInFlight?: number;
  /** How often new writes are looked for when caught up, in ms. Default: 2. */
  pollMs?: number;
  /**
   * How long a publish may wait for JetStream's acknowledgement before the publisher stops
   * with TimedOut, in ms. Default: 10000.
   */
  ackTimeoutMs?: number;
  /**
   * The largest message of several batches, in bytes (JetStream refuses messages over the
   * server's `max_payload`, 1 MiB by default). Default: 262144. A batch larger than this
   * is published alone.
   */
  maxMessageBytes?: number;
  /**
   * Read the WALs and publish in a worker thread, so that a writer holding the event loop
   * (a synchronous loop of puts) is published while it writes. The database must be on the
   * node file system (the worker opens its WAL files by path); NotSupported otherwise.
   * Default: false (the loop runs on the database's thread, between its operations).
   */
  worker?: boolean;
}

export interface ChangePublisher {
  /** The feed's identity (the database's IDENTITY, or its source's for a promoted follower). */
  readonly identity: string;
  /** The last sequence JetStream acknowledged (every batch up to it is stored). */
  readonly storedSequence: number;
  /** Set once the publisher stopped on an error. */
  readonly error: Error | undefined;
  /**
   * Resolves once every write the database had acknowledged at the call is stored by
   * JetStream; rejects if the publisher stops on an error first.
   */
  drain(): Promise<void>;
  /**
   * Uploads a checkpoint of the database to the stream's object store bucket
   * (`<stream>-checkpoints`, bootstrap.ts): a new follower starts from the newest one when
   * the stream no longer holds the feed's beginning. Returns its sequence. After it, the
   * stream's batches up to that sequence may be dropped (JetStream retention or purge).
   */
  checkpoint(): Promise<number>;
  /** Stops publishing (waits for the acknowledgements in flight) and disconnects. */
  close(): Promise<void>;
}

const OPTION_NAMES = new Set([
  "servers",
  "stream",
  "replicas",
  "maxInFlight",
  "pollMs",
  "ackTimeoutMs",
  "maxMessageBytes",
  "worker",
]);

function positiveInteger(options: PublishOptions, name: keyof PublishOptions, fallback: number) {
  const v = options[name];
  if (v === undefined) return fallback;
  if (typeof v !== "number") throw new TypeError(`options.${name} must be a number`);
  if (!Number.isSafeInteger(v) || v < 1)
    throw ShaleError.invalidArgument(`options.${name} must be a positive integer, not ${v}`);
  return v;
}

/** Checks the options shared by publishChanges and followChanges. */
export function checkServers(servers: unknown): string | string[] {
  if (typeof servers === "string" && servers !== "") return servers;
  if (Array.isArray(servers) && servers.length > 0 && servers.every((s) => typeof s === "string"))
    return servers as string[];
  throw new TypeError("options.servers must be a server URL or an array of them");
}

/** Starts publishing `db`'s writes into `options.stream` (see the file comment). */
export async function publishChanges(db: DB, options: PublishOptions): Promise<ChangePublisher> {
  if (typeof db !== "object" || db === null || typeof db.getUpdatesSince !== "function")
    throw new TypeError("publishChanges takes a shale DB");
  if (typeof options !== "object" || options === null)
    throw new TypeError("publishChanges needs options { servers, stream }");
  for (const k of Object.keys(options))
    if (!OPTION_NAMES.has(k)) throw ShaleError.invalidArgument(`unknown option ${k}`);
  const servers = checkServers(options.servers);
  const stream = checkStreamName(options.stream);
  const replicas = positiveInteger(options, "replicas", 1);
  const maxInFlight = positiveInteger(options, "maxInFlight", 256);
  const pollMs = positiveInteger(options, "pollMs", 2);
  const ackTimeoutMs = positiveInteger(options, "ackTimeoutMs", 10_000);
  const maxMessageBytes = positiveInteger(options, "maxMessageBytes", 256 * 1024);
  if (options.worker !== undefined && typeof options.worker !== "boolean")
    throw new TypeError("options.worker must be a boolean");
  if (options.worker === true) checkWorkerFileSystem(db);
  const identity = feedIdentity(db.dir);
  const nc = await connect({ servers, maxReconnectAttempts: -1 });
  try {
    const jsm = await nc.jetstreamManager();
    const info = await ensureStream(jsm, stream, identity, replicas);
    const last = await lastBatch(jsm, info);
    const next = last === undefined ? 1 : last.sequence + last.count;
    if (db.latestSequence < next - 1)
      throw ShaleError.invalidArgument(
        `stream ${stream} holds batches up to sequence ${next - 1}, but the database's last sequence is ${db.latestSequence}: it is not the database that fed the stream, or it lost writes`,
      );
    let start = next;
    let feed: TransactionLogIterator;
    try {
      feed = db.getUpdatesSince(start);
    } catch (e) {
      // A new stream for a database whose WALs no longer hold its beginning: the followers
      // start from a checkpoint in the object store (bootstrap.ts), the stream after it.
      if (!(last === undefined && ShaleError.isInstance(e) && e.code === "NotFound")) throw e;
      start = (await uploadCheckpoint(nc, db, stream, identity)).sequence + 1;
      feed = db.getUpdatesSince(start);
    }
    const settings: LoopSettings = {
      stream,
      identity,
      streamSeq: info.state.last_seq,
      stored: start - 1,
      maxInFlight,
      pollMs,
      ackTimeoutMs,
      maxMessageBytes,
    };
    const publisher = new Publisher(nc, db, stream, identity, start - 1);
    if (options.worker !== true)
      return publisher.attach(new PublishLoop(nc.jetstream(), feed, settings, publisher));
    feed.close();
    const runner = await startPublisherWorker(
      { servers, dir: db.dir, lastSequence: db.latestSequence, settings },
      publisher,
    );
    return publisher.attach(runner);
  } catch (e) {
    await nc.close();
    throw e;
  }
}

/** For `worker: true`: the worker reaches the database's files by path. */
function checkWorkerFileSystem(db: DB): void {
  if (!(fileSystemOf(db) instanceof NodeFileSystem))
    throw ShaleError.notSupported(
      "options.worker needs a database on the node file system (the worker opens its WAL files by path)",
    );
}

/** What runs the publishing: a PublishLoop here, or one in a worker thread. */
interface LoopRunner {
  /** Looks at the feed at once. */
  kick(): void;
  /** Stops publishing once the acknowledgements in flight came back. */
  close(): Promise<void>;
}

/** The ChangePublisher: waiters over the stored sequence, whichever thread publishes. */
class Publisher implements ChangePublisher, LoopListener {
  private readonly waiters = new SequenceWaiters();
  private storedSeq: number;
  private failure: Error | undefined;
  private stopped = false;
  private runner: LoopRunner | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly db: DB,
    private readonly stream: string,
    readonly identity: string,
    stored: number,
  ) {
    this.storedSeq = stored;
  }

  /** Starts publishing through `runner`. */
  attach(runner: LoopRunner): this {
    this.runner = runner;
    return this;
  }

  get storedSequence(): number {
    return this.storedSeq;
  }

  get error(): Error | undefined {
    return this.failure;
  }

  stored(sequence: number): void {
    if (sequence > this.storedSeq) this.storedSeq = sequence;
    this.waiters.reach(this.storedSeq);
  }

  failed(error: Error): void {
    if (this.failure === undefined) this.failure = error;
    this.stopped = true;
    this.waiters.rejectAll(this.failure);
  }

  async checkpoint(): Promise<number> {
    if (this.failure !== undefined) throw this.failure;
    if (this.stopped) throw ShaleError.closed("the publisher is closed");
    return (await uploadCheckpoint(this.nc, this.db, this.stream, this.identity)).sequence;
  }

  drain(): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const target = this.db.latestSequence;
    if (target <= this.storedSeq) return Promise.resolve();
    if (this.stopped) return Promise.reject(ShaleError.closed("the publisher is closed"));
    const done = this.waiters.wait(target);
    this.runner?.kick();
    return done;
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.runner?.close();
    this.waiters.rejectAll(
      this.failure ?? ShaleError.closed("the publisher was closed before it got there"),
    );
    if (!this.nc.isClosed()) await this.nc.drain();
  }
}
