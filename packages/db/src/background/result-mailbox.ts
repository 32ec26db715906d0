/**
 * The result mailbox: how a nested background worker in a browser hands a job's result to
 * the database's worker so that the database can take it synchronously, without its event
 * loop turning (a writer stalled in `Atomics.wait` for a flush; executor.ts's header). Node
 * reads its ports with `receiveMessageOnPort`; browsers have nothing like it, so results
 * travel through shared memory instead: one mailbox (a SharedArrayBuffer) per worker.
 *
 * ```
 * SharedArrayBuffer (one per background worker)
 * offset  size  field
 *      0     4  state   int32: 0 empty (the worker may write a chunk), 1 a chunk is there
 *      4     4  length  int32: bytes of the chunk
 *      8     4  last    int32: 1 when the chunk ends the message, else 0
 *     16     n  chunk   bytes of the message, n = the mailbox's capacity
 * ```
 *
 * A message is the UTF-8 JSON of a result (protocol.ts), byte arrays written as
 * `{"$bytes": "<hex>"}`, e.g. `{"id":3,"ok":true,"type":"flush","file":{"number":12,
 * "smallest":{"$bytes":"6b0101000000000000"},...}}`. The worker waits for state 0, writes a
 * chunk, stores state 1 and notifies the state word; the database takes the chunk, stores
 * state 0 and notifies, and, if it was not the last, waits for the next one. One message at
 * a time: the worker's next result waits until the database took the whole previous one.
 *
 * Part of this package only (both ends ship together); not a stable format.
 */
import { ShaleError } from "@shale/base";

const I32_STATE = 0;
const I32_LENGTH = 1;
const I32_LAST = 2;
const STATE_EMPTY = 0;
const STATE_FULL = 1;
/** Byte offset of the chunk area. */
export const MAILBOX_HEADER = 16;
/** Default chunk area: results are small (a few hundred bytes a table file). */
export const DEFAULT_MAILBOX_CAPACITY = 4096;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const HEX = "0123456789abcdef";

function toHex(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    s += HEX[b >> 4]! + HEX[b & 15]!;
  }
  return s;
}

function fromHex(s: string): Uint8Array {
  const out = new Uint8Array(s.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** The message's bytes (see the header). */
export function encodeMailboxMessage(message: unknown): Uint8Array {
  return encoder.encode(
    JSON.stringify(message, (_key, value: unknown) =>
      value instanceof Uint8Array ? { $bytes: toHex(value) } : value,
    ),
  );
}

/** The message of `bytes` (see the header). */
export function decodeMailboxMessage(bytes: Uint8Array): unknown {
  return JSON.parse(decoder.decode(bytes), (_key, value: unknown) => {
    const hex = (value as { $bytes?: unknown } | null)?.$bytes;
    return typeof hex === "string" ? fromHex(hex) : value;
  });
}

/** A new mailbox with a chunk area of `capacity` bytes. */
export function newMailbox(capacity = DEFAULT_MAILBOX_CAPACITY): SharedArrayBuffer {
  return new SharedArrayBuffer(MAILBOX_HEADER + capacity);
}

/** The worker's end. */
export class MailboxWriter {
  private readonly i32: Int32Array;
  private readonly chunk: Uint8Array;

  constructor(sab: SharedArrayBuffer) {
    this.i32 = new Int32Array(sab, 0, 4);
    this.chunk = new Uint8Array(sab, MAILBOX_HEADER);
  }

  /**
   * Writes `message`, blocking (`Atomics.wait`) while the database has not taken the
   * previous chunk; calls `posted` once its first chunk is there.
   */
  post(message: unknown, posted: () => void): void {
    const bytes = encodeMailboxMessage(message);
    const capacity = this.chunk.length;
    let at = 0;
    do {
      while (Atomics.load(this.i32, I32_STATE) !== STATE_EMPTY)
        Atomics.wait(this.i32, I32_STATE, STATE_FULL);
      const n = Math.min(capacity, bytes.length - at);
      this.chunk.set(bytes.subarray(at, at + n));
      Atomics.store(this.i32, I32_LENGTH, n);
      Atomics.store(this.i32, I32_LAST, at + n === bytes.length ? 1 : 0);
      Atomics.store(this.i32, I32_STATE, STATE_FULL);
      Atomics.notify(this.i32, I32_STATE);
      if (at === 0) posted();
      at += n;
    } while (at < bytes.length);
  }
}

/** The database's end. */
export class MailboxReader {
  private readonly i32: Int32Array;
  private readonly chunk: Uint8Array;

  /** `timeoutMs`: how long to wait for the rest of a message whose first chunk arrived. */
  constructor(
    sab: SharedArrayBuffer,
    private readonly timeoutMs = 60_000,
  ) {
    this.i32 = new Int32Array(sab, 0, 4);
    this.chunk = new Uint8Array(sab, MAILBOX_HEADER);
  }

  /** The next whole message, or undefined when none is there (never blocks then). */
  take(): unknown {
    if (Atomics.load(this.i32, I32_STATE) !== STATE_FULL) return undefined;
    const parts: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const n = Atomics.load(this.i32, I32_LENGTH);
      const last = Atomics.load(this.i32, I32_LAST) === 1;
      parts.push(this.chunk.slice(0, n));
      total += n;
      Atomics.store(this.i32, I32_STATE, STATE_EMPTY);
      Atomics.notify(this.i32, I32_STATE);
      if (last) break;
      if (Atomics.wait(this.i32, I32_STATE, STATE_EMPTY, this.timeoutMs) === "timed-out") {
        throw ShaleError.ioError(
          `a background worker's result stopped after ${total} bytes (no chunk for ${this.timeoutMs} ms)`,
        );
      }
    }
    if (parts.length === 1) return decodeMailboxMessage(parts[0]!);
    const bytes = new Uint8Array(total);
    let at = 0;
    for (const p of parts) {
      bytes.set(p, at);
      at += p.length;
    }
    return decodeMailboxMessage(bytes);
  }
}
