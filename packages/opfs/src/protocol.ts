/**
 * The wire between `OpfsFileSystem` (synchronous, on the database's thread) and the OPFS I/O
 * worker (asynchronous, the only place OPFS handles exist).
 *
 * A call: the client stores REQUEST in the state word, posts `{ op, ...args }` and blocks in
 * `Atomics.wait` on the state word. The worker does the work (awaiting OPFS as it must),
 * fills the reply area and stores REPLY with `Atomics.notify`. Bytes travel through the data
 * area of the same SharedArrayBuffer: the client copies a write's bytes in before posting;
 * the worker copies a read's bytes in before replying. An error reply carries a JSON
 * `WireError` in the data area.
 *
 * ```
 * SharedArrayBuffer
 * offset  size  field
 *      0     4  state        int32: 0 idle, 1 REQUEST posted, 2 REPLY ready
 *      4     4  status       int32: 0 ok, 1 error (data area holds a WireError)
 *      8     8  result       float64: a count, a size or an id
 *     16     8  result2      float64: a second number (an opened file's size)
 *     24     4  dataLength   int32: bytes of the JSON reply (the data area holds its start;
 *                              `replyChunk` requests fetch the rest)
 *     64     n  data area    bytes of a read or write, or the reply's JSON
 * ```
 *
 * Each client has a buffer of its own: the first one sent with `init`, and one per client
 * connected later (`connect`, whose requests come on a MessagePort of their own); the
 * server answers whichever client asked, one request at a time.
 *
 * Part of this package only (both ends ship together); not a stable format.
 */

export const STATE_IDLE = 0;
export const STATE_REQUEST = 1;
export const STATE_REPLY = 2;

/** Int32 indexes of the header fields. */
export const I32_STATE = 0;
export const I32_STATUS = 1;
export const I32_DATA_LENGTH = 6;
/** Float64 indexes of the header fields. */
export const F64_RESULT = 1;
export const F64_RESULT2 = 2;

/** Byte offset of the data area. */
export const DATA_OFFSET = 64;

/** Default size of the data area: 1 MiB (larger reads and writes are split). */
export const DEFAULT_TRANSFER_SIZE = 1 << 20;

/** How an `open` request opens a file. */
export const OpenMode = {
  Read: 0,
  /** Create or truncate. */
  Write: 1,
  /** Create or keep, writes continue at the end. */
  Append: 2,
} as const;

/** A failure as it crosses the wire; the client turns it into a ShaleError. */
export interface WireError {
  /** The ShaleError code: "IOError", "Busy", "NotSupported", "InvalidArgument". */
  code: string;
  /** For IOError: the errno ("ENOENT", "ENOSPC", ...). */
  errno?: string;
  syscall?: string;
  path?: string;
  message: string;
}

/** The first message, posted (not waited for): the worker answers with a `ReadyMessage`. */
export interface InitMessage {
  op: "init";
  sab: SharedArrayBuffer;
  /** The directory of the OPFS root this file system lives in. */
  name: string;
  maxOpenHandles: number;
}

/**
 * A further client (`OpfsFileSystem.shareWithWorker`), posted by the first client with its
 * port transferred: not answered. The new client's requests arrive on `port`, its replies
 * in `sab` (the same layout as the first client's).
 */
export interface ConnectMessage {
  op: "connect";
  sab: SharedArrayBuffer;
  /** A MessagePort (the browser's or Node's). */
  port: unknown;
}

/** Posted on a connected client's port when it closes: not answered. */
export interface DisconnectMessage {
  op: "disconnect";
}

/** The worker's answer to `init`, posted. */
export interface ReadyMessage {
  type: "ready";
  /** Whether `FileSystemHandle.move()` exists (renames are atomic moves then). */
  move: boolean;
  error?: WireError;
}

/** A request a client waits for; `op` names the operation, the rest are its arguments. */
export type Request =
  | { op: "open"; path: string; mode: number }
  | { op: "close"; id: number }
  | { op: "read"; id: number; at: number; length: number }
  | { op: "write"; id: number; at: number; length: number }
  | { op: "flush"; id: number }
  | { op: "exists"; path: string }
  | { op: "size"; path: string }
  | { op: "rename"; from: string; to: string }
  | { op: "remove"; path: string }
  | { op: "truncate"; path: string; size: number }
  | { op: "list"; path: string }
  | { op: "mkdir"; path: string }
  | { op: "syncDir"; path: string }
  | { op: "lock"; path: string }
  | { op: "unlock"; id: number }
  | { op: "removeDir"; path: string }
  | { op: "stats" }
  /** The bytes of the last JSON reply from `at` (one that did not fit the data area). */
  | { op: "replyChunk"; at: number }
  | { op: "shutdown" };
