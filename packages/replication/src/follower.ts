/**
 * followChanges: a database that applies a change feed from JetStream (stream.ts), in
 * order, each batch once.
 *
 * Position, durably and atomically: the follower writes each message's batch B (sequence s,
 * count c; several of the source's batches packed into one, pack.ts) as one write of its own
 * database, which gives it the sequence numbers s .. s + c - 1 — the
 * same as at the source, since the follower's database took every batch before B and
 * nothing else. So the database's own last sequence IS the position: it is in the WAL
 * record of the batch itself, and a reopen recovers both together. A restart asks the
 * stream for the batch starting at `latestSequence + 1` (a binary search over the stream)
 * and goes on from there: nothing applied twice, nothing skipped.
 *
 * Refusals and stops:
 * - the directory records the feed it follows (identity.ts, REPLICA): a stream of another
 *   database's feed is InvalidArgument, and so is a directory holding a database that is
 *   not a follower;
 * - a batch that does not start at `latestSequence + 1` (a hole in the stream; an earlier
 *   duplicate is skipped) stops the follower with NotFound naming the missing sequence;
 *   nothing after it is applied. `waitFor` then rejects with that error.
 *
 * A new follower (an empty directory) of a stream whose first batch is not sequence 1
 * starts from the newest checkpoint in the stream's object store bucket that reaches it
 * (bootstrap.ts), then follows from the batch after the checkpoint.
 *
 * The application reads `f.db`, a read-only view (read-only.ts); `promote()` ends the
 * following and hands back the writable database, which `publishChanges` then continues
 * the same stream from (docs in the README: failover).
 *
 * The consumer and its recovery after a lost node: feed-consumer.ts.
 *
 * Threading: the event loop; batches are applied as JetStream delivers them.
 */
import { readdirSync } from "node:fs";
import { ShaleError } from "@shale/base";
import { DB, type DbOptions, WriteBatch } from "@shale/db";
import { connect, type JetStreamManager, type NatsConnection } from "nats";
import { newestCheckpoint, restoreCheckpoint } from "./bootstrap.js";
import { FeedConsumer } from "./feed-consumer.js";
import { readReplicaRecord, writeReplicaRecord } from "./identity.js";
import { batchSuffix } from "./pack.js";
import { checkServers } from "./publisher.js";
import { readOnlyView } from "./read-only.js";
import { SequenceWaiters } from "./sequence-waiters.js";
import {
  batchAt,
  checkStreamName,
  findBatch,
  lastBatch,
  streamIdentity,
  streamInfo,
} from "./stream.js";

export interface FollowOptions {
  /** NATS server URL(s). */
  servers: string | string[];
  /** The JetStream stream of the feed (publishChanges' `stream`). */
  stream: string;
  /** Options of the follower's database (its merge operator, for one). Default: none. */
  dbOptions?: DbOptions;
  /** Sync each applied batch to disk (WriteOptions.sync). Default: false. */
  sync?: boolean;
}

export interface ChangeFollower {
  /** The follower's database, read-only (see read-only.ts). */
  readonly db: DB;
  /** The last sequence applied (the database's latest sequence). */
  readonly appliedSequence: number;
  /** The feed's identity (the source database's IDENTITY). */
  readonly source: string;
  /** Set once the follower stopped on an error (a hole in the stream, say). */
  readonly error: Error | undefined;
  /** Resolves once `appliedSequence >= sequence`; rejects if the follower stops first. */
  waitFor(sequence: number): Promise<void>;
  /**
   * Applies the stream up to its last batch, stops following and returns the writable
   * database (the caller owns it: close it), to publish on with `publishChanges`.
   */
  promote(): Promise<DB>;
  /** Stops following and closes the database. */
  close(): Promise<void>;
}

const OPTION_NAMES = new Set(["servers", "stream", "dbOptions", "sync"]);

/** Opens (or creates) the follower database in `dir` and starts applying the feed. */
export async function followChanges(dir: string, options: FollowOptions): Promise<ChangeFollower> {
  if (typeof dir !== "string" || dir === "") throw new TypeError("dir must be a non-empty string");
  if (typeof options !== "object" || options === null)
    throw new TypeError("followChanges needs options { servers, stream }");
  for (const k of Object.keys(options))
    if (!OPTION_NAMES.has(k)) throw ShaleError.invalidArgument(`unknown option ${k}`);
  const servers = checkServers(options.servers);
  const stream = checkStreamName(options.stream);
  if (options.sync !== undefined && typeof options.sync !== "boolean")
    throw new TypeError("options.sync must be a boolean");
  const nc = await connect({ servers, maxReconnectAttempts: -1 });
  let db: DB | undefined;
  try {
    const jsm = await nc.jetstreamManager();
    const info = await streamInfo(jsm, stream);
    if (info === undefined) throw ShaleError.notFound(`stream ${stream} does not exist`);
    const source = streamIdentity(info);
    if (source === undefined)
      throw ShaleError.invalidArgument(`stream ${stream} is not a shale change feed`);
    if (readReplicaRecord(dir) === undefined && isEmptyDir(dir)) {
      // A new follower: from a checkpoint when the stream lacks the feed's beginning.
      const first =
        info.state.messages === 0 ? undefined : await batchAt(jsm, stream, info.state.first_seq);
      if (first === undefined || first.sequence > 1) {
        const checkpoint = await newestCheckpoint(nc, stream);
        if (
          checkpoint !== undefined &&
          checkpoint.source === source &&
          (first === undefined || checkpoint.sequence + 1 >= first.sequence)
        ) {
          await restoreCheckpoint(nc, stream, checkpoint, dir);
          writeReplicaRecord(dir, { stream, source });
        }
      }
    }
    db = await DB.open(dir, options.dbOptions);
    const record = readReplicaRecord(dir);
    if (record === undefined) {
      if (db.latestSequence !== 0)
        throw ShaleError.invalidArgument(
          `${dir} holds a database (last sequence ${db.latestSequence}) that is not a follower of stream ${stream}`,
        );
      writeReplicaRecord(dir, { stream, source });
    } else if (record.source !== source) {
      throw ShaleError.invalidArgument(
        `${dir} follows database ${record.source}; stream ${stream} is the change feed of database ${source}`,
      );
    }
    const start = await findBatch(jsm, info, db.latestSequence + 1);
    const follower = new Follower(nc, db, source, stream, options.sync === true);
    await follower.start(jsm, start);
    return follower;
  } catch (e) {
    await db?.close();
    await nc.close();
    throw e;
  }
}

/** True when `dir` does not exist or holds nothing. */
function isEmptyDir(dir: string): boolean {
  try {
    return readdirSync(dir).length === 0;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw e;
  }
}

class Follower implements ChangeFollower {
  readonly db: DB;
  private feed: FeedConsumer | undefined;
  private readonly waiters = new SequenceWaiters();
  private failure: Error | undefined;
  private closed = false;
  private readonly writeOptions: { sync: boolean };

  constructor(
    private readonly nc: NatsConnection,
    private readonly raw: DB,
    readonly source: string,
    private readonly stream: string,
    sync: boolean,
  ) {
    this.db = readOnlyView(raw);
    this.writeOptions = { sync };
  }

  get appliedSequence(): number {
    return this.raw.latestSequence;
  }

  get error(): Error | undefined {
    return this.failure;
  }

  /** Starts following at stream sequence `streamSeq` (feed-consumer.ts). */
  async start(jsm: JetStreamManager, streamSeq: number): Promise<void> {
    this.feed = new FeedConsumer(this.nc, jsm, this.stream, streamSeq, (data, identity) => {
      this.apply(data, identity);
      return this.failure === undefined;
    });
    await this.feed.start();
  }

  /** Applies one batch message (or stops on a hole, or skips a duplicate). */
  private apply(data: Uint8Array, identity: string | undefined): void {
    if (this.failure !== undefined || this.closed) return;
    try {
      if (identity !== undefined && identity !== "" && identity !== this.source)
        throw ShaleError.invalidArgument(
          `stream ${this.stream} holds a batch of database ${identity}, not of ${this.source}`,
        );
      const batch = WriteBatch.fromData(data);
      const seq = batch.sequence;
      const end = seq + batch.count - 1;
      const applied = this.raw.latestSequence;
      if (batch.count === 0 || end <= applied) return; // already applied
      if (seq > applied + 1)
        throw ShaleError.notFound(
          `stream ${this.stream} has no batch with sequence ${applied + 1} (the next one holds ${seq}): the follower stopped before it`,
        );
      // A message of several batches that the database holds the first of (a checkpoint
      // taken between them): the rest of it (pack.ts).
      this.raw.write(
        seq > applied ? batch : batchSuffix(batch, applied + 1 - seq),
        this.writeOptions,
      );
      if (this.raw.latestSequence !== end)
        throw ShaleError.assertionFailed(
          `the follower applied batch ${seq} (+${batch.count}) but its last sequence is ${this.raw.latestSequence}`,
        );
      this.wake();
    } catch (e) {
      this.stop(e instanceof Error ? e : new Error(String(e)));
    }
  }

  private wake(): void {
    if (this.waiters.size > 0) this.waiters.reach(this.raw.latestSequence);
  }

  private stop(e: Error): void {
    if (this.failure === undefined) this.failure = e;
    void this.feed?.stop();
    this.waiters.rejectAll(this.failure);
  }

  waitFor(sequence: number): Promise<void> {
    if (typeof sequence !== "number")
      return Promise.reject(new TypeError("sequence must be a number"));
    if (this.raw.latestSequence >= sequence) return Promise.resolve();
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(ShaleError.closed("the follower is closed"));
    return this.waiters.wait(sequence);
  }

  async promote(): Promise<DB> {
    if (this.closed) throw ShaleError.closed("the follower is closed");
    const jsm = await this.nc.jetstreamManager();
    const info = await streamInfo(jsm, this.stream);
    const last = info === undefined ? undefined : await lastBatch(jsm, info);
    if (last !== undefined) await this.waitFor(last.sequence + last.count - 1);
    await this.detach();
    return this.raw;
  }

  /** Stops the consumer and disconnects; the database stays open. */
  private async detach(): Promise<void> {
    this.closed = true;
    await this.feed?.stop();
    this.waiters.rejectAll(
      this.failure ?? ShaleError.closed("the follower was closed before it got there"),
    );
    if (!this.nc.isClosed()) await this.nc.close();
  }

  async close(): Promise<void> {
    if (this.raw.isClosed) return;
    await this.detach();
    await this.raw.close();
  }
}
