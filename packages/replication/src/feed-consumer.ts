/**
 * The follower's JetStream consumer, kept alive by the follower itself.
 *
 * Why not the client's ordered consumer alone: it is a one-replica, in-memory consumer that
 * lives on one node of the stream. When that node dies, the cluster still holds the
 * consumer's assignment, so the client's check (`CONSUMER.INFO`) gets no answer or
 * "temporarily unavailable" instead of "consumer not found". The client (nats 2.29.3)
 * re-creates an ordered consumer only on "not found" or a delivery gap. On any other error
 * it retries the check forever, 30 s apart, and no message comes again. Its own re-creation
 * also retries under the same consumer name. A name first assigned to the dead node keeps
 * timing out.
 *
 * So here the follower owns the consumer:
 * - each consumer is created with a new name (`<prefix>_<generation>`), starting at the
 *   next stream sequence to apply: one replica, in memory, no acks, removed by the server
 *   after INACTIVE_MS unused;
 * - deliveries must come in delivery sequence 1, 2, 3, ...; a gap (a message lost on the
 *   way) replaces the consumer, as the ordered consumer would;
 * - a watchdog: when nothing came for STALL_MS while the stream holds messages past the
 *   last one delivered, or the consumer failed or could not be made, a new consumer
 *   replaces it. Each attempt is one create request with a new name; a failed one is tried
 *   again at the next check (CHECK_MS), never under the old name.
 * Messages of a replaced consumer that still arrive are dropped (generation check).
 *
 * Threading: the event loop.
 */
import {
  AckPolicy,
  type ConsumerMessages,
  DeliverPolicy,
  type JetStreamManager,
  type NatsConnection,
  nanos,
  nuid,
} from "nats";
import { batchSubject, IDENTITY_HEADER } from "./stream.js";

/** How often the watchdog looks. */
export const CHECK_MS = 1000;
/** How long a consumer may deliver nothing while the stream holds newer messages. */
export const STALL_MS = 3000;
/** The server removes a consumer unused for this long (a replaced one on a dead node). */
const INACTIVE_MS = 5 * 60 * 1000;

/** Takes one message's data; false: stop delivering (the follower stopped). */
export type Deliver = (data: Uint8Array, identity: string | undefined) => boolean;

export class FeedConsumer {
  private readonly prefix = nuid.next();
  private generation = 0;
  private messages: ConsumerMessages | undefined;
  private name: string | undefined;
  private loop: Promise<void> | undefined;
  private nextStreamSeq: number;
  private lastProgress = Date.now();
  private replacing = false;
  private stopped = false;
  private readonly timer: NodeJS.Timeout;
  /** How many consumers were made (the first included); for tests. */
  created = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    streamSeq: number,
    private readonly deliver: Deliver,
  ) {
    this.nextStreamSeq = streamSeq;
    this.timer = setInterval(() => void this.check(), CHECK_MS);
    this.timer.unref();
  }

  /** The stream sequence of the next message to deliver. */
  get next(): number {
    return this.nextStreamSeq;
  }

  /** Makes the first consumer (its error, if any, is the caller's). */
  async start(): Promise<void> {
    await this.open();
  }

  /** Stops delivering; the current consumer's loop ends. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.generation++;
    this.messages?.stop();
    await this.loop;
  }

  /** Replaces the current consumer by one that starts at the next stream sequence. */
  private async open(): Promise<void> {
    const generation = ++this.generation;
    const old = this.name;
    this.messages?.stop();
    this.messages = undefined;
    this.name = undefined;
    if (old !== undefined) void this.jsm.consumers.delete(this.stream, old).catch(() => {});
    const name = `${this.prefix}_${generation}`;
    const info = await this.jsm.consumers.add(this.stream, {
      name,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: this.nextStreamSeq,
      ack_policy: AckPolicy.None,
      max_deliver: 1,
      mem_storage: true,
      num_replicas: 1,
      inactive_threshold: nanos(INACTIVE_MS),
      filter_subject: batchSubject(this.stream),
    });
    const consumer = await this.nc.jetstream().consumers.get(this.stream, info.name);
    if (generation !== this.generation) return; // stopped or replaced meanwhile
    const messages = await consumer.consume({ max_messages: 1024 });
    if (generation !== this.generation) {
      messages.stop();
      return;
    }
    this.created++;
    this.messages = messages;
    this.name = name;
    this.lastProgress = Date.now();
    this.loop = this.run(messages, generation);
  }

  private async run(messages: ConsumerMessages, generation: number): Promise<void> {
    let expected = 1;
    try {
      for await (const m of messages) {
        if (generation !== this.generation) return;
        this.lastProgress = Date.now();
        if (m.info.deliverySequence !== expected) {
          this.lastProgress = 0; // a message lost on the way: the next check replaces it
          break;
        }
        expected++;
        if (!this.deliver(m.data, m.headers?.get(IDENTITY_HEADER))) return;
        this.nextStreamSeq = m.seq + 1;
      }
    } catch {
      // The consumer failed: the next check replaces it.
    }
    if (generation === this.generation) {
      this.messages = undefined;
      this.lastProgress = 0;
    }
  }

  /** The watchdog (see the header). */
  private async check(): Promise<void> {
    if (this.stopped || this.replacing) return;
    if (Date.now() - this.lastProgress < STALL_MS) return;
    this.replacing = true;
    try {
      if (this.messages !== undefined) {
        const info = await this.jsm.streams.info(this.stream);
        if (info.state.last_seq < this.nextStreamSeq) {
          this.lastProgress = Date.now(); // idle and caught up
          return;
        }
      }
      if (!this.stopped) await this.open();
    } catch {
      // The cluster is electing or the connection is down: the next check tries again.
    } finally {
      this.replacing = false;
    }
  }
}
