/**
 * The publisher's loop: batches read from a change feed go to JetStream, several to a
 * message, up to `maxInFlight` messages awaiting their acknowledgements (rules: the file
 * comment of publisher.ts; message layout: stream.ts and pack.ts).
 *
 * ```
 *   batch bytes ──> [held batch] ──> PackedBatch ──> js.publish ──> in flight (oldest first)
 *                                                                     │ acks, any order
 *   listener.stored(seq) <── stored = end of the acknowledged prefix <─┘
 * ```
 *
 * The same loop runs on the database's thread (publisher.ts) or in a worker thread that
 * reads the database's WALs from the outside (publisher-worker.ts); it tells its owner what
 * is stored, and why it stopped, through a `LoopListener`.
 *
 * Threading: one thread's event loop (the one it was made on).
 */
import { ShaleError } from "@shale/base";
import type { TransactionLogIterator } from "@shale/db";
import { readBatchData } from "@shale/db/internal";
import type { JetStreamClient, PubAck } from "nats";
import { PackedBatch } from "./pack.js";
import { batchHeaders, batchSubject } from "./stream.js";

export interface LoopSettings {
  readonly stream: string;
  readonly identity: string;
  /** The stream sequence of the last message stored before the loop started. */
  readonly streamSeq: number;
  /** The last batch sequence stored before the loop started. */
  readonly stored: number;
  readonly maxInFlight: number;
  readonly pollMs: number;
  readonly ackTimeoutMs: number;
  readonly maxMessageBytes: number;
}

export interface LoopListener {
  /** Every batch up to `sequence` is stored (called as the acknowledged prefix grows). */
  stored(sequence: number): void;
  /** The loop stopped on `error` (nothing after the failed message is stored). */
  failed(error: Error): void;
}

interface InFlight {
  /** The last batch sequence of the message. */
  readonly end: number;
  readonly ack: Promise<PubAck>;
  done: boolean;
  /** When it was published (Date.now()). */
  readonly at: number;
}

export class PublishLoop {
  private readonly subject: string;
  private readonly inFlight: InFlight[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private failure: Error | undefined;
  private streamSeq: number;
  private storedSeq: number;
  /** A batch read from the feed that did not fit in the last message (a copy). */
  private held: Uint8Array | undefined;
  /** The message being filled. */
  private readonly message = new PackedBatch();

  constructor(
    private readonly js: JetStreamClient,
    private readonly feed: TransactionLogIterator,
    private readonly settings: LoopSettings,
    private readonly listener: LoopListener,
  ) {
    this.subject = batchSubject(settings.stream);
    this.streamSeq = settings.streamSeq;
    this.storedSeq = settings.stored;
    this.schedule(0);
  }

  /** The last batch sequence stored. */
  get stored(): number {
    return this.storedSeq;
  }

  get error(): Error | undefined {
    return this.failure;
  }

  /** Looks at the feed at once (new writes are waited for). */
  kick(): void {
    this.schedule(0);
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
    const s = this.settings;
    let sent = 0;
    // An acknowledgement that never comes (a request lost while the cluster moves its
    // leader) must not hold drain() forever: the publisher stops, and a new one resumes.
    const head = this.inFlight[0];
    if (head !== undefined && Date.now() - head.at > s.ackTimeoutMs) {
      this.fail(
        ShaleError.timedOut(
          `JetStream did not acknowledge the batch ending at sequence ${head.end} within ${s.ackTimeoutMs} ms`,
        ),
      );
      return;
    }
    try {
      while (this.inFlight.length < s.maxInFlight) {
        const first = this.nextBatch();
        if (first === undefined) break;
        // The batches after it join the message while they fit (see pack.ts).
        const message = this.message;
        message.start(first);
        while (message.size < s.maxMessageBytes) {
          const u = this.nextBatch();
          if (u === undefined) break;
          if (!message.fits(u, s.maxMessageBytes)) {
            this.held = u.slice(); // the next message's first batch (the view would not last)
            break;
          }
          message.append(u);
        }
        const expected = this.streamSeq;
        this.streamSeq++;
        const sequence = message.sequence;
        const ack = this.js.publish(this.subject, message.finish(), {
          msgID: String(sequence),
          headers: batchHeaders(s.identity, sequence),
          expect: { lastSequence: expected, streamName: s.stream },
          timeout: s.ackTimeoutMs,
        });
        const entry: InFlight = { end: message.end, ack, done: false, at: Date.now() };
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
    this.schedule(sent > 0 ? 0 : s.pollMs);
  }

  /**
   * The batch held back from the last message, else the feed's next one (a view valid
   * until the next read of the feed).
   */
  private nextBatch(): Uint8Array | undefined {
    const held = this.held;
    if (held !== undefined) {
      this.held = undefined;
      return held;
    }
    return readBatchData(this.feed);
  }

  /**
   * Moves `stored` over the acknowledged prefix of the messages in flight (an
   * acknowledgement out of order waits for the ones before it).
   */
  private settlePrefix(): void {
    const before = this.storedSeq;
    while (this.inFlight.length > 0 && this.inFlight[0]!.done) {
      const head = this.inFlight.shift()!;
      if (head.end > this.storedSeq) this.storedSeq = head.end;
    }
    if (this.storedSeq > before) this.listener.stored(this.storedSeq);
  }

  private fail(e: Error): void {
    if (this.failure !== undefined) return;
    this.failure = e;
    this.halt();
    this.listener.failed(e);
  }

  private halt(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Stops publishing, waits for the acknowledgements in flight, closes the feed. */
  async close(): Promise<void> {
    this.halt();
    await Promise.allSettled(this.inFlight.map((f) => f.ack));
    this.settlePrefix();
    this.feed.close();
  }
}
