/**
 * LogWriter: appends records to a log in RocksDB's log format (`db/log_format.h`,
 * `db/log_writer.cc`; LevelDB's `doc/log_format.md`), checksums included, so RocksDB's
 * `ldb dump_wal` reads shale's WALs and shale reads RocksDB's. Long form: docs/formats/log.md.
 *
 * A log is a sequence of 32 KiB blocks; only the last block may be shorter.
 *
 *   log     := block* last-block?
 *   block   := fragment* trailer?          (exactly 32768 bytes)
 *   trailer := 0x00{1..header size - 1}    (a block tail too short for a header)
 *
 *   fragment (one physical record; never crosses a block boundary):
 *
 *   +----------------------+-----------------+--------------+--------------------+
 *   | checksum: fixed32 LE | length: fixed16 | type: u8     | payload            |
 *   | (masked CRC32C)      | LE              | 1..4         | `length` bytes     |
 *   +----------------------+-----------------+--------------+--------------------+
 *    0                      4                 6              7          7 + length
 *
 *   recyclable fragment (types 5..8, `recycleLogNumber` option; RocksDB's
 *   recycle_log_file_num): the header gains the log number's low 32 bits, and the checksum
 *   covers it too:
 *
 *   | checksum | length | type 5..8 | log number: fixed32 LE | payload |
 *    0          4        6           7                        11        11 + length
 *
 *   checksum = crc32c::Mask(crc32c(bytes [6, header size + length)))  — the type byte, the
 *              log number if any, and the payload, which are contiguous in the fragment
 *   mask(c)  = ((c >>> 15) | (c << 17)) + 0xa282ead8  (mod 2^32)
 *   type     = FULL 1 | FIRST 2 | MIDDLE 3 | LAST 4 (recyclable: 5..8); 0 is never a
 *              header (zero padding); 9 SetCompressionType (below).
 *
 * A record (any length, even 0) is cut into fragments: one FULL if it fits in what is left
 * of the current block, else FIRST, MIDDLE*, LAST. When fewer bytes than a header are left in
 * a block, they are zero-filled (the trailer) and the next fragment starts the next block.
 * With exactly a header's worth left, a record starts there with an empty FIRST fragment.
 *
 * Compressed logs (`compressor` option; RocksDB's wal_compression, zstd only): the log starts
 * with a SetCompressionType fragment, always with the 7-byte legacy header, and every record
 * after it is stored compressed: one zstd frame of the whole record, cut into fragments as
 * any payload (an empty record stays an empty FULL fragment, no frame). Readers join a
 * record's fragments and decode the frame (RocksDB streams it fragment by fragment).
 *
 *   +----------+-----------+---------+------------------------+
 *   | checksum | length: 4 | type: 9 | compression: fixed32 LE|   (7 = zstd)
 *   +----------+-----------+---------+------------------------+
 *   | checksum | length    | FULL/FIRST..LAST | zstd frame bytes of the record ...      |
 *
 *   record "hello" in a zstd log from offset 0: 00..06 header (length 04 00, type 09),
 *   07..0a 07 00 00 00, then at 11 a FULL fragment whose payload is the 14-byte frame
 *   28 b5 2f fd 20 05 29 00 00 68 65 6c 6c 6f (magic, header with content size 5, one raw
 *   block "hello"; a compressor may choose any valid frame).
 *
 * Worked example (bytes checked with RocksDB 7.8.3's `ldb dump_wal`, docs/formats/log.md):
 * records "hello" and "" from offset 0 are 19 bytes:
 *
 *   0  0b b9 57 58   checksum = mask(crc32c(01 68 65 6c 6c 6f) = 0x6719daea) = 0x5857b90b
 *   4  05 00         length 5
 *   6  01            FULL
 *   7  68 65 6c 6c 6f
 *  12  05 2b 28 43   checksum = mask(crc32c(01) = 0xa016d052) = 0x43282b05
 *  16  00 00 01      length 0, FULL
 *
 * Records A (100,000 bytes), B (31,034 bytes), C (5 bytes), from offset 0:
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

import { maskedCrc32c, putFixed32, ShaleError, type WritableFile } from "@shale/base";
import { BLOCK_SIZE, HEADER_SIZE, RECYCLABLE_HEADER_SIZE, RecordType } from "./format.js";

export interface LogWriterOptions {
  /**
   * The size of the file when the writer takes it over: continue a log that already has
   * this many bytes (open the file with `{ append: true }`). REQUIRES: the existing bytes
   * end with a whole record (a log whose tail was torn must be truncated to the end of its
   * last good record first, or readers will see a partial record followed by new ones).
   * Default: 0.
   */
  initialOffset?: number;
  /**
   * Write RocksDB's recyclable record format (types 5-8, 11-byte headers carrying this log
   * number's low 32 bits), as RocksDB does for a reused log file (`recycle_log_file_num`):
   * a reader then stops at the first record of an older log number instead of replaying
   * what the file held before. Readers must be given the same `logNumber`.
   * Default: none (the legacy format, types 1-4, as RocksDB writes without recycling).
   */
  recycleLogNumber?: number;
  /**
   * Compress every record (RocksDB's `wal_compression`): a new log (`initialOffset` 0)
   * starts with a SetCompressionType record naming `compressor.type`, and each record's
   * payload is `compressor.compress(record)` (for zstd, one zstd frame; an empty record
   * stays empty), fragmented as any payload. REQUIRES with `initialOffset` > 0: the log
   * already starts with that SetCompressionType record. Default: none (records as they are).
   */
  compressor?: WalCompressor;
}

/** Compresses WAL records: the type byte of RocksDB's CompressionType (7 zstd) and the codec. */
export interface WalCompressor {
  readonly type: number;
  /** The compressed form of `record` (not empty): fresh memory or valid until the next call. */
  compress(record: Uint8Array): Uint8Array;
}

/** Zero bytes for block trailers (at most RECYCLABLE_HEADER_SIZE - 1 of them). */
const TRAILER_ZEROS = new Uint8Array(RECYCLABLE_HEADER_SIZE - 1);

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
  /** HEADER_SIZE, or RECYCLABLE_HEADER_SIZE with `recycleLogNumber`. */
  private readonly headerSize: number;
  /** Added to a legacy type (1-4) to make it recyclable (5-8): 0 or 4. */
  private readonly typeOffset: number;
  private readonly compressorOption: WalCompressor | undefined;

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
    const recycle = options.recycleLogNumber;
    if (recycle !== undefined) {
      if (typeof recycle !== "number") {
        throw new TypeError("LogWriter: recycleLogNumber must be a number");
      }
      if (!Number.isSafeInteger(recycle) || recycle < 0) {
        throw ShaleError.invalidArgument(`LogWriter: bad recycleLogNumber ${recycle}`);
      }
    }
    this.file = file;
    this.written = initialOffset;
    this.blockOffset = initialOffset % BLOCK_SIZE;
    this.headerSize = recycle === undefined ? HEADER_SIZE : RECYCLABLE_HEADER_SIZE;
    this.typeOffset = recycle === undefined ? 0 : RecordType.RecyclableFull - RecordType.Full;
    const compressor = options.compressor;
    if (compressor !== undefined) {
      if (
        compressor === null ||
        typeof compressor !== "object" ||
        typeof compressor.compress !== "function" ||
        typeof compressor.type !== "number"
      ) {
        throw new TypeError("LogWriter: compressor must be a WalCompressor");
      }
      if (initialOffset === 0) {
        // RocksDB's AddCompressionTypeRecord: the first fragment, a legacy header even in
        // the recyclable format (type 9), payload fixed32 the compression type.
        const payload = new Uint8Array(4);
        putFixed32(payload, 0, compressor.type);
        this.emitFragment(RecordType.SetCompressionType, payload, 0, 4, HEADER_SIZE);
      }
    }
    this.compressorOption = compressor;
    // After the SetCompressionType fragment, whose payload used these bytes of `scratch`.
    if (recycle !== undefined) putFixed32(this.scratch, 7, recycle % 2 ** 32);
  }

  /** The `compressor` option: a log that follows this one is compressed alike. */
  get compressor(): WalCompressor | undefined {
    return this.compressorOption;
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
      let record = data;
      let from = start;
      let to = end;
      const compressor = this.compressorOption;
      if (compressor !== undefined && to > from) {
        record = compressor.compress(data.subarray(from, to));
        from = 0;
        to = record.length;
      }
      let left = to - from;
      let pos = from;
      let first = true;
      // A do-while so that an empty record still emits one (empty) FULL fragment.
      do {
        const headerSize = this.headerSize;
        let room = BLOCK_SIZE - this.blockOffset;
        if (room < headerSize) {
          if (room > 0) {
            this.file.append(TRAILER_ZEROS, 0, room);
            this.written += room;
          }
          this.blockOffset = 0;
          room = BLOCK_SIZE;
        }
        const available = room - headerSize;
        const length = left < available ? left : available;
        const last = length === left;
        const type = first
          ? last
            ? RecordType.Full
            : RecordType.First
          : last
            ? RecordType.Last
            : RecordType.Middle;
        this.emitFragment(type + this.typeOffset, record, pos, length);
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

  /**
   * The in-place path for a small record: when `length` bytes fit as one FULL fragment in
   * what is left of the current block of an uncompressed log, returns the offset in
   * `recordScratch` where the caller writes the record, then calls `commitRecord(length)`
   * (no other call in between); else -1, and the record takes `addRecord`. Saves the copy
   * of the record into the scratch, where `addRecord` assembles every fragment anyway.
   */
  reserveRecord(length: number): number {
    if (this.state !== OPEN || this.compressorOption !== undefined) return -1;
    const headerSize = this.headerSize;
    return headerSize + length <= BLOCK_SIZE - this.blockOffset ? headerSize : -1;
  }

  /**
   * Where `reserveRecord`'s caller writes the record (at the offset it returned). A view
   * owned by the writer, valid until `commitRecord`.
   */
  get recordScratch(): Uint8Array {
    return this.scratch;
  }

  /**
   * Appends the record of `length` bytes written at `recordScratch[reserveRecord(length))`
   * as one FULL fragment, as `addRecord` would. REQUIRES: `reserveRecord(length)` returned
   * an offset and nothing else was called since.
   */
  commitRecord(length: number): void {
    try {
      this.emitAssembled(RecordType.Full + this.typeOffset, length, this.headerSize);
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

  /**
   * One fragment: header and payload assembled in `scratch` (the log number, for recyclable
   * records, is already at [7, 11)), checksummed over [6, end) in one pass, then one append.
   */
  private emitFragment(
    type: number,
    data: Uint8Array,
    pos: number,
    length: number,
    headerSize = this.headerSize,
  ): void {
    this.scratch.set(
      pos === 0 && length === data.length ? data : data.subarray(pos, pos + length),
      headerSize,
    );
    this.emitAssembled(type, length, headerSize);
  }

  /** The fragment whose payload is in `scratch` after the header: header, checksum, append. */
  private emitAssembled(type: number, length: number, headerSize: number): void {
    const s = this.scratch;
    const end = headerSize + length;
    s[4] = length & 0xff;
    s[5] = length >>> 8;
    s[6] = type;
    putFixed32(s, 0, maskedCrc32c(s, 6, end));
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
