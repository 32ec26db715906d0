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
 * - The batches the feed holds when a message goes out travel together, up to
 *   `maxMessageBytes` (a larger batch goes alone): a writer of many small batches costs
 *   JetStream one message per poll, not one per write. Nothing waits to fill a message.
 *
 * Threading: the database's thread (the event loop); the publisher reads the WALs between
 * the application's operations.
 */
import { ShaleError } from "@shale/base";
import type { DB, TransactionLogIterator } from "@shale/db";
import { connect, type JetStreamClient, type NatsConnection, type PubAck } from "nats";
import { uploadCheckpoint } from "./bootstrap.js";
import { feedIdentity } from "./identity.js";
import { BATCH_HEADER, packBatches } from "./pack.js";
import { batchHeaders, batchSubject, checkStreamName, ensureStream, lastBatch } from "./stream.js";

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
    return new Publisher(nc, nc.jetstream(), feed, {
      db,
      stream,
      identity,
      streamSeq: info.state.last_seq,
      stored: start - 1,
      maxInFlight,
      pollMs,
      ackTimeoutMs,
      maxMessageBytes,
    });
  } catch (e) {
    await nc.close();
    throw e;
  }
}

interface PublisherState {
  readonly db: DB;
  readonly stream: string;
  readonly identity: string;
  /** The stream sequence of the last message published (or stored before we started). */
  streamSeq: number;
  /** The last batch sequence stored. */
  stored: number;
  readonly maxInFlight: number;
  readonly pollMs: number;
  readonly ackTimeoutMs: number;
  readonly maxMessageBytes: number;
}

/** A batch read from the feed and not published yet. */
interface FeedBatch {
  readonly sequence: number;
  readonly count: number;
  /** WriteBatch.data(). */
  readonly data: Uint8Array;
}

interface Waiter {
  readonly sequence: number;
  resolve(): void;
  reject(e: Error): void;
}

class Publisher implements ChangePublisher {
  private readonly subject: string;
  /** Batches published and not yet acknowledged, oldest first: the sequence each ends at. */
  private readonly inFlight: { end: number; ack: Promise<PubAck>; done: boolean; at: number }[] =
    [];
  private waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;
  private failure: Error | undefined;
  private stopped = false;
  /** A batch read from the feed that did not fit in the last message. */
  private pending: FeedBatch | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly feed: TransactionLogIterator,
    private readonly state: PublisherState,
  ) {
    this.subject = batchSubject(state.stream);
    this.schedule(0);
  }

  get identity(): string {
    return this.state.identity;
  }

  get storedSequence(): number {
    return this.state.stored;
  }

  get error(): Error | undefined {
    return this.failure;
  }

  private schedule(ms: number): void {
    if (this.stopped || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, ms);
  }

  /** Publishes what the feed holds, up to maxInFlight awaiting acknowledgement. */
  private pump(): void {
    if (this.stopped) return;
    const { state } = this;
    let sent = 0;
    // An acknowledgement that never comes (a request lost while the cluster moves its
    // leader) must not hold drain() forever: the publisher stops, and a new one resumes.
    const head = this.inFlight[0];
    if (head !== undefined && Date.now() - head.at > state.ackTimeoutMs) {
      this.fail(
        ShaleError.timedOut(
          `JetStream did not acknowledge the batch ending at sequence ${head.end} within ${state.ackTimeoutMs} ms`,
        ),
      );
      return;
    }
    try {
      while (this.inFlight.length < state.maxInFlight) {
        const first = this.nextBatch();
        if (first === undefined) break;
        // The batches after it join the message while they fit (see pack.ts).
        const parts = [first.data];
        let bytes = first.data.length;
        let end = first.sequence + first.count;
        while (bytes < state.maxMessageBytes) {
          const u = this.nextBatch();
          if (u === undefined) break;
          if (u.sequence !== end || bytes + u.data.length - BATCH_HEADER > state.maxMessageBytes) {
            this.pending = u;
            break;
          }
          parts.push(u.data);
          bytes += u.data.length - BATCH_HEADER;
          end += u.count;
        }
        const expected = state.streamSeq;
        state.streamSeq++;
        const ack = this.js.publish(
          this.subject,
          packBatches(parts, first.sequence, end - first.sequence),
          {
            msgID: String(first.sequence),
            headers: batchHeaders(state.identity, first.sequence),
            expect: { lastSequence: expected, streamName: state.stream },
            timeout: state.ackTimeoutMs,
          },
        );
        const entry = { end: end - 1, ack, done: false, at: Date.now() };
        this.inFlight.push(entry);
        ack.then(
          () => {
            entry.done = true;
            this.settlePrefix();
          },
          (e: unknown) => this.fail(e instanceof Error ? e : new Error(String(e))),
        );
        sent++;
      }
    } catch (e) {
      this.fail(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    this.schedule(sent > 0 ? 0 : state.pollMs);
  }

  /** The batch held back from the last message, else the feed's next one. */
  private nextBatch(): FeedBatch | undefined {
    const held = this.pending;
    if (held !== undefined) {
      this.pending = undefined;
      return held;
    }
    const u = this.feed.read();
    if (u === undefined) return undefined;
    return { sequence: u.sequence, count: u.batch.count, data: u.batch.data() };
  }

  /**
   * Moves `stored` over the acknowledged prefix of the batches in flight (an
   * acknowledgement out of order waits for the ones before it).
   */
  private settlePrefix(): void {
    while (this.inFlight.length > 0 && this.inFlight[0]!.done) {
      const head = this.inFlight.shift()!;
      if (head.end > this.state.stored) this.state.stored = head.end;
    }
    this.wake();
  }

  private wake(): void {
    const stored = this.state.stored;
    if (this.waiters.length === 0) return;
    const left: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.sequence <= stored) w.resolve();
      else left.push(w);
    }
    this.waiters = left;
    // A waiter for a sequence not published yet gets it at the next pump.
  }

  private fail(e: Error): void {
    if (this.failure === undefined) this.failure = e;
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    for (const w of this.waiters.splice(0)) w.reject(this.failure);
  }

  async checkpoint(): Promise<number> {
    if (this.failure !== undefined) throw this.failure;
    if (this.stopped) throw ShaleError.closed("the publisher is closed");
    return (await uploadCheckpoint(this.nc, this.state.db, this.state.stream, this.state.identity))
      .sequence;
  }

  drain(): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const target = this.state.db.latestSequence;
    if (target <= this.state.stored) return Promise.resolve();
    if (this.stopped) return Promise.reject(ShaleError.closed("the publisher is closed"));
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ sequence: target, resolve, reject });
      this.schedule(0);
    });
  }

  async close(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      if (this.timer !== undefined) clearTimeout(this.timer);
      this.timer = undefined;
    }
    await Promise.allSettled(this.inFlight.map((f) => f.ack));
    this.settlePrefix();
    for (const w of this.waiters.splice(0))
      w.reject(this.failure ?? ShaleError.closed("the publisher was closed before it got there"));
    this.feed.close();
    if (!this.nc.isClosed()) await this.nc.drain();
  }
}
