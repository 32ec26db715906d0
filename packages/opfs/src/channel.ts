/**
 * `IoChannel`: the client's end of the wire (protocol.ts). `call` posts one request to the
 * I/O worker and blocks in `Atomics.wait` until the reply is in the shared buffer; bytes
 * go through `data`, the shared data area.
 *
 * Not thread-safe: one channel, one thread, one call at a time.
 */
import { ShaleError } from "@shale/base";
import {
  DATA_OFFSET,
  F64_RESULT,
  F64_RESULT2,
  I32_DATA_LENGTH,
  I32_STATE,
  I32_STATUS,
  type Request,
  STATE_IDLE,
  STATE_REQUEST,
  type WireError,
} from "./protocol.js";
import { fromWire } from "./wire-error.js";

const decoder = new TextDecoder();

export class IoChannel {
  readonly i32: Int32Array;
  readonly f64: Float64Array;
  /** The shared data area: a write's bytes go here before `call`, a read's come back here. */
  readonly data: Uint8Array;
  private failure: ShaleError | undefined;

  constructor(
    readonly sab: SharedArrayBuffer,
    private readonly post: (request: Request) => void,
    private readonly timeoutMs: number,
  ) {
    this.i32 = new Int32Array(sab, 0, 16);
    this.f64 = new Float64Array(sab, 0, 8);
    this.data = new Uint8Array(sab, DATA_OFFSET);
  }

  /** Bytes one call can carry. */
  get transferSize(): number {
    return this.data.length;
  }

  /** Sends `request`, waits for the reply and returns its result; throws its error. */
  call(request: Request): number {
    if (this.failure !== undefined) throw this.failure;
    Atomics.store(this.i32, I32_STATE, STATE_REQUEST);
    this.post(request);
    while (Atomics.load(this.i32, I32_STATE) === STATE_REQUEST) {
      if (Atomics.wait(this.i32, I32_STATE, STATE_REQUEST, this.timeoutMs) === "timed-out") {
        this.failure = ShaleError.ioError(
          `the OPFS I/O worker did not answer "${request.op}" within ${this.timeoutMs} ms; ` +
            "the file system is unusable (reopen it)",
        );
        throw this.failure;
      }
    }
    const status = Atomics.load(this.i32, I32_STATUS);
    Atomics.store(this.i32, I32_STATE, STATE_IDLE);
    if (status !== 0) throw fromWire(this.replyJson() as WireError);
    return this.f64[F64_RESULT]!;
  }

  /** The reply's second number. */
  get result2(): number {
    return this.f64[F64_RESULT2]!;
  }

  /** The JSON value the last reply left in the data area. */
  replyJson(): unknown {
    const total = Atomics.load(this.i32, I32_DATA_LENGTH);
    if (total <= this.data.length) return JSON.parse(decoder.decode(this.data.slice(0, total)));
    const bytes = new Uint8Array(total);
    bytes.set(this.data);
    for (let at = this.data.length; at < total; ) {
      const n = this.call({ op: "replyChunk", at });
      if (n <= 0) throw ShaleError.ioError("the OPFS I/O worker's reply ended early");
      bytes.set(this.data.subarray(0, n), at);
      at += n;
    }
    return JSON.parse(decoder.decode(bytes));
  }

  /** After this every call throws `error` (the worker is gone). */
  fail(error: ShaleError): void {
    this.failure ??= error;
  }
}
