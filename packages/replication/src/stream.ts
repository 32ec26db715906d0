/**
 * The JetStream side of a change feed: one stream per database lineage, one message per
 * run of consecutive write batches (packed into one batch: pack.ts), in sequence order.
 *
 * ```
 * stream  <name>             description "shale change feed of database <identity>"
 * subject <name>.batches     one message per run of batches, stream sequence 1, 2, 3, ...
 * message data               a batch (WriteBatch.data()): fixed64 sequence ‖ fixed32 count ‖
 *                            records; the batches of a run packed into one (pack.ts)
 *         header Shale-Database   the feed's identity (the first writer's IDENTITY)
 *         header Shale-Sequence   the message's first sequence (decimal; also in the data)
 *         Nats-Msg-Id             the message's first sequence (JetStream drops a duplicate)
 * ```
 *
 * Batch sequences in the stream are contiguous: each message's batch starts where the one
 * before it ended (sequence + count). The publisher keeps it so by publishing with
 * `expect.lastSequence` (a publish lands only right after the stream message it expects,
 * so a lost publish stops the ones behind it instead of leaving a hole), and followers
 * check it anyway.
 *
 * Worked example: a put of k=v at sequence 7 -> data `07 00 00 00 00 00 00 00 | 01 00 00 00 |
 * 01 01 6b 01 76`, Nats-Msg-Id "7". With a put of k=w at sequence 8 in the feed when it
 * goes out, both travel in it: `07 00 00 00 00 00 00 00 | 02 00 00 00 | 01 01 6b 01 76 |
 * 01 01 6b 01 77`.
 */
import { ShaleError } from "@shale/base";
import { WriteBatch } from "@shale/db";
import {
  type JetStreamManager,
  type MsgHdrs,
  headers as natsHeaders,
  StorageType,
  type StreamInfo,
} from "nats";

export const IDENTITY_HEADER = "Shale-Database";
export const SEQUENCE_HEADER = "Shale-Sequence";
const DESCRIPTION_PREFIX = "shale change feed of database ";

/** The subject of a stream's batches. */
export const batchSubject = (stream: string): string => `${stream}.batches`;

/** Checks a stream name: JetStream's rules (no dots, wildcards, spaces or path characters). */
export function checkStreamName(stream: unknown): string {
  if (typeof stream !== "string") throw new TypeError("options.stream must be a string");
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(stream))
    throw ShaleError.invalidArgument(
      `options.stream must be 1-200 letters, digits, "-" or "_", not ${JSON.stringify(stream)}`,
    );
  return stream;
}

/** The identity a stream records (undefined: the stream is not a shale change feed). */
export function streamIdentity(info: StreamInfo): string | undefined {
  const d = info.config.description;
  return d?.startsWith(DESCRIPTION_PREFIX) ? d.slice(DESCRIPTION_PREFIX.length) : undefined;
}

/** The stream's info, or undefined when there is no such stream. */
export async function streamInfo(
  jsm: JetStreamManager,
  stream: string,
): Promise<StreamInfo | undefined> {
  try {
    return await jsm.streams.info(stream);
  } catch (e) {
    if (/stream not found/i.test(String((e as Error).message))) return undefined;
    throw e;
  }
}

/** The stream of `identity`'s feed: created if missing; InvalidArgument if another's. */
export async function ensureStream(
  jsm: JetStreamManager,
  stream: string,
  identity: string,
  replicas: number,
): Promise<StreamInfo> {
  let info = await streamInfo(jsm, stream);
  if (info === undefined) {
    try {
      info = await jsm.streams.add({
        name: stream,
        subjects: [batchSubject(stream)],
        description: DESCRIPTION_PREFIX + identity,
        storage: StorageType.File,
        num_replicas: replicas,
      });
    } catch (e) {
      info = await streamInfo(jsm, stream); // created meanwhile by another publisher
      if (info === undefined) throw e;
    }
  }
  checkIdentity(info, stream, identity);
  return info;
}

/** InvalidArgument unless `info` is the change feed of `identity`. */
export function checkIdentity(info: StreamInfo, stream: string, identity: string): void {
  const recorded = streamIdentity(info);
  if (recorded === undefined)
    throw ShaleError.invalidArgument(`stream ${stream} is not a shale change feed`);
  if (recorded !== identity)
    throw ShaleError.invalidArgument(
      `stream ${stream} is the change feed of database ${recorded}, not of ${identity}`,
    );
}

/** A batch as stored: its stream sequence, its first sequence and count. */
export interface StoredBatch {
  readonly streamSeq: number;
  readonly sequence: number;
  readonly count: number;
}

/** The batch in stream message `streamSeq`. */
export async function batchAt(
  jsm: JetStreamManager,
  stream: string,
  streamSeq: number,
): Promise<StoredBatch> {
  const m = await jsm.streams.getMessage(stream, { seq: streamSeq });
  let batch: WriteBatch;
  try {
    batch = WriteBatch.fromData(m.data);
  } catch (e) {
    throw ShaleError.corruption(
      `stream ${stream} message ${streamSeq} is not a write batch: ${(e as Error).message}`,
    );
  }
  return { streamSeq, sequence: batch.sequence, count: batch.count };
}

/** The last batch of the stream, or undefined when it holds none. */
export async function lastBatch(
  jsm: JetStreamManager,
  info: StreamInfo,
): Promise<StoredBatch | undefined> {
  if (info.state.messages === 0) return undefined;
  return batchAt(jsm, info.config.name, info.state.last_seq);
}

/**
 * The stream sequence of the first message whose batch ends at or after `sequence`
 * (binary search: batch sequences grow with stream sequences); `last_seq + 1` when none.
 */
export async function findBatch(
  jsm: JetStreamManager,
  info: StreamInfo,
  sequence: number,
): Promise<number> {
  let lo = info.state.first_seq;
  let hi = info.state.last_seq + 1;
  if (info.state.messages === 0) return hi;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const b = await batchAt(jsm, info.config.name, mid);
    if (b.sequence + b.count - 1 >= sequence) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The headers of a batch message. */
export function batchHeaders(identity: string, sequence: number): MsgHdrs {
  const h = natsHeaders();
  h.set(IDENTITY_HEADER, identity);
  h.set(SEQUENCE_HEADER, String(sequence));
  return h;
}
