/**
 * LogWriter: appends records to a log in the format of LevelDB/RocksDB's write-ahead log,
 * with XXH32 in place of crc32c. Long form: docs/formats/log.md.
 *
 * A log is a sequence of 32 KiB blocks; only the last block may be shorter.
 *
 *   log     := block* last-block?
 *   block   := fragment* trailer?          (exactly 32768 bytes)
 *   trailer := 0x00{1..6}                  (a block tail too short for a header)
 *
 *   fragment (one physical record; never crosses a block boundary):
 *
 *   +----------------------+-----------------+--------------+--------------------+
 *   | checksum: fixed32 LE | length: fixed16 | type: u8     | payload            |
 *   | (masked)             | LE              | 1..4         | `length` bytes     |
 *   +----------------------+-----------------+--------------+--------------------+
 *    0                      4                 6              7          7 + length
 *
 *   checksum = maskChecksum(XXH32(type byte ‖ payload))   (seed 0; the type byte and the
 *              payload are the contiguous bytes [6, 7 + length) of the fragment)
 *   mask(c)  = ((c >>> 15) | (c << 17)) + 0xa282ead8  (mod 2^32)
 *   type     = FULL 1 | FIRST 2 | MIDDLE 3 | LAST 4; 0 is never a header (zero padding);
 *              types >= 128 are reserved for fragments a reader may skip.
 *
 * A record (any length, even 0) is cut into fragments: one FULL if it fits in what is left
 * of the current block, else FIRST, MIDDLE*, LAST. When fewer than 7 bytes are left in a
 * block, they are zero-filled (the trailer) and the next fragment starts the next block.
 * With exactly 7 bytes left, a record starts there with an empty FIRST fragment.
 *
 * Worked example: records A (100,000 bytes), B (31,034 bytes), C (5 bytes), from offset 0:
 *
 *   offset   block  fragment
 *        0   0      A: FIRST  len 32761   fills block 0 (7 + 32761 = 32768)
 *    32768   1      A: MIDDLE len 32761   fills block 1
 *    65536   2      A: MIDDLE len 32761   fills block 2
 *    98304   3      A: LAST   len  1717   100000 = 3 * 32761 + 1717; ends at 100028
 *   100028   3      B: FULL   len 31034   ends at 131069: 3 bytes left in block 3
 *   131069   3      trailer 00 00 00      too short for a header
 *   131072   4      C: FULL   len     5   ends at 131084 (the file's size)
 */

import { checksum32, maskChecksum, putFixed32, ShaleError, type WritableFile } from "@shale/base";
import { BLOCK_SIZE, HEADER_SIZE, RecordType } from "./format.js";

export interface LogWriterOptions {
  /**
   * The size of the file when the writer takes it over: continue a log that already has
   * this many bytes (open the file with `{ append: true }`). REQUIRES: the existing bytes
   * end with a whole record (a log whose tail was torn must be truncated to the end of its
   * last good record first, or readers will see a partial record followed by new ones).
   * Default: 0.
   */
  initialOffset?: number;
}

/** Zero bytes for block trailers (at most HEADER_SIZE - 1 of them). */
const TRAILER_ZEROS = new Uint8Array(HEADER_SIZE - 1);

const OPEN = 0;
const CLOSED = 1;
const FAILED = 2;

/**
 * Appends records to a log file. Not thread-safe: one writer per file, used from one thread.
 *
 * ```ts
 * const log = new LogWriter(fs.openWritable("000001.log"));
 * log.addRecord(batch);
 * log.flush(); // in the OS: survives a process crash; log.sync() also survives a power cut
 * ```
 */
export class LogWriter {
  private readonly file: WritableFile;
  /** Header + payload of one fragment, assembled so the checksum covers one region. */
  private readonly scratch = new Uint8Array(BLOCK_SIZE);
  /** Position in the current block (0..BLOCK_SIZE). */
  private blockOffset: number;
  private written: number;
  private state = OPEN;
  private failure: unknown;

  constructor(file: WritableFile, options: LogWriterOptions = {}) {
    if (file === null || typeof file !== "object" || typeof file.append !== "function") {
      throw new TypeError("LogWriter: file must be a WritableFile");
    }
    const initialOffset = options.initialOffset ?? 0;
    if (typeof initialOffset !== "number") {
      throw new TypeError("LogWriter: initialOffset must be a number");
    }
    if (!Number.isSafeInteger(initialOffset) || initialOffset < 0) {
      throw ShaleError.invalidArgument(`LogWriter: bad initialOffset ${initialOffset}`);
    }
    this.file = file;
    this.written = initialOffset;
    this.blockOffset = initialOffset % BLOCK_SIZE;
  }

  /** Bytes in the log so far: `initialOffset` plus every byte this writer appended. */
  get size(): number {
    return this.written;
  }

  /**
   * Appends `data[start, end)` as one record, fragmented into the file's buffer. Does not
   * flush: the record reaches the OS on `flush`/`sync` (or when the file's buffer fills).
   * The bytes are copied; the caller keeps ownership of `data`.
   * REQUIRES: not closed. If an append to the file fails, the writer is unusable afterwards
   * (the log may end in a partial record) and every later call rethrows that error.
   * `start` Default: 0. `end` Default: `data.length`.
   */
  addRecord(data: Uint8Array, start = 0, end: number = data?.length): void {
    if (!(data instanceof Uint8Array)) throw new TypeError("addRecord: data must be a Uint8Array");
    if (
      !(
        start >= 0 &&
        start <= end &&
        end <= data.length &&
        Number.isInteger(start) &&
        Number.isInteger(end)
      )
    ) {
      checkRange(data, start, end);
    }
    if (this.state !== OPEN) this.throwUnusable();
    try {
      let left = end - start;
      let pos = start;
      let first = true;
      // A do-while so that an empty record still emits one (empty) FULL fragment.
      do {
        let room = BLOCK_SIZE - this.blockOffset;
        if (room < HEADER_SIZE) {
          if (room > 0) {
            this.file.append(TRAILER_ZEROS, 0, room);
            this.written += room;
          }
          this.blockOffset = 0;
          room = BLOCK_SIZE;
        }
        const available = room - HEADER_SIZE;
        const length = left < available ? left : available;
        const last = length === left;
        const type = first
          ? last
            ? RecordType.Full
            : RecordType.First
          : last
            ? RecordType.Last
            : RecordType.Middle;
        this.emitFragment(type, data, pos, length);
        pos += length;
        left -= length;
        first = false;
      } while (left > 0);
    } catch (err) {
      this.state = FAILED;
      this.failure = err;
      throw err;
    }
  }

  /** Hands every appended byte to the operating system (`file.flush`). REQUIRES: not closed. */
  flush(): void {
    if (this.state !== OPEN) this.throwUnusable();
    this.file.flush();
  }

  /** `flush`, then fsync (`file.sync`): the log survives a power cut. REQUIRES: not closed. */
  sync(): void {
    if (this.state !== OPEN) this.throwUnusable();
    this.file.sync();
  }

  /** Flushes and closes the file (it does not sync). Idempotent. */
  close(): void {
    if (this.state === CLOSED) return;
    this.state = CLOSED;
    this.file.close();
  }

  /** One fragment: header and payload assembled in `scratch`, then a single append. */
  private emitFragment(type: number, data: Uint8Array, pos: number, length: number): void {
    const s = this.scratch;
    const end = HEADER_SIZE + length;
    s.set(
      pos === 0 && length === data.length ? data : data.subarray(pos, pos + length),
      HEADER_SIZE,
    );
    s[4] = length & 0xff;
    s[5] = length >>> 8;
    s[6] = type;
    putFixed32(s, 0, maskChecksum(checksum32(s, HEADER_SIZE - 1, end)));
    this.file.append(s, 0, end);
    this.blockOffset += end;
    this.written += end;
  }

  private throwUnusable(): never {
    if (this.state === FAILED) throw this.failure;
    throw ShaleError.closed("log writer is closed");
  }
}

/** Throws the right error for a bad `[start, end)` of `data` (the caller found it bad). */
function checkRange(data: Uint8Array, start: unknown, end: unknown): void {
  if (typeof start !== "number" || typeof end !== "number") {
    throw new TypeError("addRecord: start and end must be numbers");
  }
  throw ShaleError.invalidArgument(
    `addRecord: range [${start}, ${end}) outside [0, ${data.length}]`,
  );
}
