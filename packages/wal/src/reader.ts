/**
 * LogReader: reads back the records of a log in RocksDB's log format, written by LogWriter
 * or by RocksDB (format: writer.ts and docs/formats/log.md), and decides what to do with
 * damage according to a WalRecoveryMode.
 *
 * RocksDB's record types beyond LevelDB's: recyclable fragments (5-8, an 11-byte header
 * whose log number must be the reader's `logNumber`; the first fragment of another log
 * number ends the log, as it is what a recycled file held before), block tails of up to 10
 * zero bytes (the recyclable trailer), and SetCompressionType (9): the first record of a log
 * whose records are compressed (RocksDB's `wal_compression`, zstd): each record's payload,
 * its fragments joined, is then one compressed stream, decompressed by the `decompressor`
 * option when the record is complete (a log naming a compression the decompressor lacks,
 * or read without one, is NotSupported). A record whose checksums verify but whose stream
 * does not decode is a misplaced fragment (below): its extent is known. RocksDB's reader
 * decompresses fragment by fragment; the records and the damage found are the same.
 *
 * Reading: the file is read CHUNK_SIZE bytes (whole blocks; the first read is one block)
 * at a time into one reusable buffer whose first byte is always at a block boundary of the
 * file, so every block lies wholly inside the buffer (only the file's last block may be
 * short). A FULL fragment is returned as a view into that buffer; the fragments of a longer
 * record are copied into a growable assembly buffer.
 *
 * Damage (see recovery-mode.ts for the policy of each mode):
 *
 *   torn tail    the file ends inside a header, or after FIRST/MIDDLE fragments;
 *                a payload runs past the end of file (and no valid record starts inside it);
 *                a zero header is followed by zero bytes only, up to the end of file
 *   untrusted    checksum mismatch, a length beyond its block, an unknown type with an
 *   header       unverified checksum, a zero header followed by non-zero bytes
 *                -> the length cannot be trusted: search forward, byte by byte, for the
 *                   next valid record start (a FULL, or a block-filling FIRST, whose
 *                   checksum verifies)
 *   misplaced    a verified fragment out of sequence: FULL/FIRST inside a record ("partial
 *   fragment     record without end"), MIDDLE/LAST outside one ("missing start of
 *                fragmented record"), or an unknown type below 128
 *                -> its extent is known: reading can go on right after it
 *
 * PointInTime uses the forward search to tell a torn tail (no valid record follows: drop
 * it) from damage in the middle of the log (one does: throw, since dropping it would lose
 * acknowledged writes). SkipAnyCorrupted resumes where the search stops.
 *
 * Not thread-safe: one reader per file, used from one thread.
 */

import { getFixed32, maskedCrc32c, type SequentialFile, ShaleError } from "@shale/base";
import { DropReports } from "./drop-reports.js";
import {
  BLOCK_SIZE,
  FIRST_IGNORABLE_TYPE,
  HEADER_SIZE,
  RECYCLABLE_HEADER_SIZE,
  RecordType,
} from "./format.js";
import { allZero, findRecordStart } from "./record-search.js";
import { type LogReaderOptions, type WalDecompressor, WalRecoveryMode } from "./recovery-mode.js";

/**
 * Bytes read from the file at a time: a whole number of blocks. The first read is of one
 * block only, so that short logs (a MANIFEST, a fresh WAL) cost little memory.
 */
const CHUNK_SIZE = 4 * BLOCK_SIZE;
const BLOCK_MASK = BLOCK_SIZE - 1;
const EMPTY = new Uint8Array(0);

/** RocksDB's CompressionType names (include/rocksdb/compression_type.h), for messages. */
const COMPRESSION_NAMES: Readonly<Record<number, string>> = {
  1: "snappy",
  2: "zlib",
  3: "bzip2",
  4: "lz4",
  5: "lz4hc",
  6: "xpress",
  7: "zstd",
};

/** The file ends in the damaged data (inside a header, or after FIRST/MIDDLE fragments). */
const TORN = 0;
/** A payload runs past the end of the file: torn, unless its length field is what is damaged. */
const TRUNCATED = 1;
/** A header that cannot be trusted (its length may be wrong): search onwards. */
const UNTRUSTED = 2;
/** The header of a zero-filled region: a torn tail if only zeros follow. */
const ZEROED = 3;
/** A verified fragment that does not belong where it is: its extent is known. */
const MISPLACED = 4;

type DamageKind =
  | typeof TORN
  | typeof TRUNCATED
  | typeof UNTRUSTED
  | typeof ZEROED
  | typeof MISPLACED;

/**
 * Reads the records of a log front to back.
 *
 * ```ts
 * const reader = new LogReader(fs.openSequential("000001.log"), { fileName: "000001.log" });
 * for (let r = reader.readRecord(); r !== undefined; r = reader.readRecord()) replay(r);
 * ```
 */
export class LogReader {
  private readonly file: SequentialFile;
  private readonly mode: WalRecoveryMode;
  private readonly fileName: string | undefined;
  private readonly verifyChecksums: boolean;

  private buffer = new Uint8Array(BLOCK_SIZE);
  /** File offset of `buffer[0]`: always a multiple of BLOCK_SIZE. */
  private bufferStart = 0;
  /** Valid bytes in `buffer`. */
  private bufferEnd = 0;
  /** Buffer index of the next header. */
  private pos = 0;
  /** The last read came up short: `buffer` holds the end of the file. */
  private eof = false;

  /** The fragments of the record being assembled. */
  private assembly: Uint8Array = EMPTY;
  private assemblyLength = 0;
  private inFragmentedRecord = false;
  private recordStart = 0;
  private lastOffset = 0;
  private lastEnd = 0;

  private finished = false;
  private failure: unknown;
  /** Set by `search` when it passes over a non-zero byte. */
  private sawNonZero = false;
  /**
   * Low 32 bits of the log number recyclable fragments must carry; -1 until known (the
   * `logNumber` option, else the number of the first recyclable fragment read).
   */
  private logNumber: number;
  /** The log's first fragment is recyclable: the file was reused. */
  private recycled = false;
  /** A recyclable fragment has been read: block tails of 7-10 zero bytes are padding. */
  private recyclableFormat = false;
  /** A record has been returned (SetCompressionType may only come before). */
  private returnedAny = false;

  private readonly drops: DropReports;
  private readonly decompressor: WalDecompressor | undefined;
  /** The log's compression (SetCompressionType), 0 for none. */
  private compression = 0;

  constructor(file: SequentialFile, options: LogReaderOptions = {}) {
    if (file === null || typeof file !== "object" || typeof file.read !== "function") {
      throw new TypeError("LogReader: file must be a SequentialFile");
    }
    const mode = options.mode ?? WalRecoveryMode.PointInTime;
    if (typeof mode !== "number") throw new TypeError("LogReader: mode must be a WalRecoveryMode");
    if (!(mode === 0 || mode === 1 || mode === 2 || mode === 3)) {
      throw ShaleError.invalidArgument(`LogReader: unknown recovery mode ${mode}`);
    }
    if (options.reporter !== undefined && typeof options.reporter !== "function") {
      throw new TypeError("LogReader: reporter must be a function");
    }
    if (options.fileName !== undefined && typeof options.fileName !== "string") {
      throw new TypeError("LogReader: fileName must be a string");
    }
    const logNumber = options.logNumber;
    if (logNumber !== undefined) {
      if (typeof logNumber !== "number")
        throw new TypeError("LogReader: logNumber must be a number");
      if (!Number.isSafeInteger(logNumber) || logNumber < 0) {
        throw ShaleError.invalidArgument(`LogReader: bad logNumber ${logNumber}`);
      }
    }
    this.logNumber = logNumber === undefined ? -1 : logNumber % 2 ** 32;
    this.file = file;
    this.mode = mode;
    this.fileName = options.fileName;
    this.drops = new DropReports(options.reporter);
    this.verifyChecksums = options.verifyChecksums !== false;
    const decompressor = options.decompressor;
    if (
      decompressor !== undefined &&
      (decompressor === null ||
        typeof decompressor.decompress !== "function" ||
        typeof decompressor.canDecompress !== "function")
    ) {
      throw new TypeError("LogReader: decompressor must be a WalDecompressor");
    }
    this.decompressor = decompressor;
    const start = options.startOffset ?? 0;
    if (typeof start !== "number") throw new TypeError("LogReader: startOffset must be a number");
    if (!Number.isSafeInteger(start) || start < 0)
      throw ShaleError.invalidArgument(`LogReader: bad startOffset ${start}`);
    if (start > 0) {
      // The buffer's first byte stays at a block boundary: skip whole blocks, then read the
      // block holding `start` and begin inside it.
      const blockStart = start - (start & BLOCK_MASK);
      if (blockStart > 0) file.skip(blockStart);
      this.bufferStart = blockStart;
      this.lastOffset = start;
      this.lastEnd = start;
      this.refill();
      this.bufferStart = blockStart;
      this.pos = Math.min(start - blockStart, this.bufferEnd);
      // Records before `start` were returned by an earlier reader: none here.
      this.returnedAny = true;
      const compression = options.startCompression ?? 0;
      if (!Number.isInteger(compression) || compression < 0 || compression > 255)
        throw new TypeError("LogReader: startCompression must be a compression type byte");
      if (compression !== 0 && decompressor?.canDecompress(compression) !== true)
        throw this.refuseCompression(compression, start);
      this.compression = compression;
    }
  }

  /**
   * The log's compression (the type byte of its SetCompressionType record, RocksDB's
   * CompressionType), 0 for none or not seen yet. Hand it to a later reader that starts
   * past that record (`startCompression`).
   */
  get compressionType(): number {
    return this.compression;
  }

  /**
   * File offset where the last record returned by `readRecord` starts (the header of its
   * FULL or FIRST fragment). 0 before the first record.
   */
  get lastRecordOffset(): number {
    return this.lastOffset;
  }

  /**
   * File offset just past the last fragment of the last record returned by `readRecord`
   * (so `lastRecordEndOffset - lastRecordOffset` is the record's size in the file, headers
   * included). 0 before the first record (`startOffset` for a reader that started there, so
   * a tailing caller can always resume at `lastRecordEndOffset`).
   */
  get lastRecordEndOffset(): number {
    return this.lastEnd;
  }

  /**
   * The next whole record, or `undefined` at the end of the log (or where the recovery mode
   * stops reading). The result is a view into the reader's buffers, valid until the next
   * call: copy it to keep it. Throws `ShaleError` Corruption (with `fileName` and the
   * offset of the damage) as the mode dictates; after a throw, every later call rethrows.
   * Read errors of the file propagate as they are (IOError) and also end the reader.
   */
  readRecord(): Uint8Array | undefined {
    if (this.finished) {
      if (this.failure !== undefined) throw this.failure;
      return undefined;
    }
    for (;;) {
      // Re-read each time round: refill may replace the buffer.
      const buf = this.buffer;
      const pos = this.pos;
      const available = this.bufferEnd - pos;
      if (available === 0) {
        if (!this.eof) {
          this.refill();
          continue;
        }
        if (this.inFragmentedRecord) {
          this.damage(TORN, "truncated record", this.recordStart, pos);
          return undefined;
        }
        this.finish();
        return undefined;
      }
      const room = BLOCK_SIZE - (pos & BLOCK_MASK);
      if (room < HEADER_SIZE) {
        // The block's trailer (zeros); with the whole trailer present, skip it.
        if (available >= room) {
          this.pos = pos + room;
          continue;
        }
        this.damage(TORN, "truncated header", this.bufferStart + pos, pos);
        return undefined;
      }
      if (available < HEADER_SIZE) {
        this.damage(TORN, "truncated header", this.bufferStart + pos, pos);
        return undefined;
      }
      const length = buf[pos + 4]! | (buf[pos + 5]! << 8);
      let type = buf[pos + 6]!;
      const recyclable = type >= RecordType.RecyclableFull && type <= RecordType.RecyclableLast;
      const headerSize = recyclable ? RECYCLABLE_HEADER_SIZE : HEADER_SIZE;
      const end = pos + headerSize + length;
      const at = this.bufferStart + pos;
      if (type === RecordType.Zero && length === 0 && getFixed32(buf, pos) === 0) {
        // In a log of recyclable fragments, a block tail too short for their 11-byte header
        // is zero padding (RocksDB's writer fills up to 10 bytes): skip it, as a shorter
        // trailer is skipped above. (A legacy writer leaves no such tail: there, 7-10 zero
        // bytes are a zeroed record.)
        if (
          this.recyclableFormat &&
          room < RECYCLABLE_HEADER_SIZE &&
          available >= room &&
          allZero(buf, pos, pos + room)
        ) {
          this.pos = pos + room;
          continue;
        }
        if (this.damage(ZEROED, "zeroed region", at, pos)) continue;
        return undefined;
      }
      if (headerSize + length > room) {
        if (this.damage(UNTRUSTED, "bad record length", at, pos)) continue;
        return undefined;
      }
      if (end > this.bufferEnd) {
        // Only the file's last block can be cut short: the file ends inside this payload.
        if (this.damage(TRUNCATED, "truncated record", at, pos)) continue;
        return undefined;
      }
      if (this.verifyChecksums && getFixed32(buf, pos) !== maskedCrc32c(buf, pos + 6, end)) {
        if (this.damage(UNTRUSTED, "checksum mismatch", at, pos)) continue;
        return undefined;
      }
      if (recyclable) {
        const number = getFixed32(buf, pos + HEADER_SIZE);
        if (this.logNumber < 0) this.logNumber = number;
        else if (number !== this.logNumber) {
          this.oldRecord(at);
          return undefined;
        }
        if (at === 0) this.recycled = true;
        this.recyclableFormat = true;
        type -= RecordType.RecyclableFull - RecordType.Full;
      }
      const payload = pos + headerSize;
      switch (type) {
        case RecordType.Full:
          if (this.inFragmentedRecord) {
            if (this.damage(MISPLACED, "partial record without end", at, pos)) continue;
            return undefined;
          }
          if (this.compression !== 0 && end > payload) {
            const record = this.inflate(buf.subarray(payload, end));
            if (record === undefined) {
              if (this.damage(MISPLACED, "bad compressed record", at, end)) continue;
              return undefined;
            }
            this.pos = end;
            this.lastOffset = at;
            this.lastEnd = this.bufferStart + end;
            this.returnedAny = true;
            if (this.drops.pending) this.drops.flush();
            return record;
          }
          this.pos = end;
          this.lastOffset = at;
          this.lastEnd = this.bufferStart + end;
          this.returnedAny = true;
          if (this.drops.pending) this.drops.flush();
          return buf.subarray(payload, end);
        case RecordType.First:
          if (this.inFragmentedRecord) {
            if (this.damage(MISPLACED, "partial record without end", at, pos)) continue;
            return undefined;
          }
          this.inFragmentedRecord = true;
          this.recordStart = at;
          this.assemblyLength = 0;
          this.appendFragment(payload, end);
          this.pos = end;
          continue;
        case RecordType.Middle:
        case RecordType.Last: {
          if (!this.inFragmentedRecord) {
            if (this.damage(MISPLACED, "missing start of fragmented record", at, end)) continue;
            return undefined;
          }
          this.appendFragment(payload, end);
          this.pos = end;
          if (type === RecordType.Middle) continue;
          let record = this.assembly.subarray(0, this.assemblyLength);
          if (this.compression !== 0 && record.length > 0) {
            const inflated = this.inflate(record);
            if (inflated === undefined) {
              if (this.damage(MISPLACED, "bad compressed record", this.recordStart, end)) continue;
              return undefined;
            }
            record = inflated;
          }
          this.inFragmentedRecord = false;
          this.lastOffset = this.recordStart;
          this.lastEnd = this.bufferStart + end;
          this.returnedAny = true;
          if (this.drops.pending) this.drops.flush();
          return record;
        }
        case RecordType.SetCompressionType: {
          const misplaced = this.inFragmentedRecord
            ? "partial record without end"
            : this.returnedAny
              ? "SetCompressionType not the first record"
              : length !== 4
                ? "could not decode SetCompressionType record"
                : undefined;
          if (misplaced === undefined) {
            const compression = getFixed32(buf, payload);
            if (compression !== 0 && this.decompressor?.canDecompress(compression) !== true) {
              throw this.refuseCompression(compression, at);
            }
            this.compression = compression;
            this.pos = end;
            continue;
          }
          if (this.damage(MISPLACED, misplaced, at, end)) continue;
          return undefined;
        }
        default:
          if (type >= FIRST_IGNORABLE_TYPE) {
            this.pos = end;
            continue;
          }
          // With a verified checksum the fragment's extent is known; without, it is not.
          if (
            this.damage(
              this.verifyChecksums ? MISPLACED : UNTRUSTED,
              "unknown record type",
              at,
              this.verifyChecksums ? end : pos,
            )
          ) {
            continue;
          }
          return undefined;
      }
    }
  }

  /**
   * Applies the recovery mode to damage found at file offset `at`. `index` is a buffer
   * index: for TRUNCATED/UNTRUSTED/ZEROED the damaged header (the search for valid data
   * starts after it), for MISPLACED where SkipAnyCorrupted resumes. Returns true to go on
   * reading from `this.pos`, false when the reader has finished; or throws.
   */
  private damage(kind: DamageKind, reason: string, at: number, index: number): boolean {
    const mode = this.mode;
    const dropFrom = this.inFragmentedRecord ? this.recordStart : at;
    this.inFragmentedRecord = false;
    this.assemblyLength = 0;
    if (kind === TORN) return this.tornTail(reason, at, dropFrom);
    if (kind === MISPLACED) {
      if (mode !== WalRecoveryMode.SkipAnyCorrupted) throw this.fail(reason, at);
      this.pos = index;
      this.drops.add(dropFrom, this.bufferStart + index, reason);
      return true;
    }
    // A reused (recycled) file holds the previous log's bytes after this log's end, so in
    // TolerateCorruptedTail RocksDB ends such a log at a bad checksum or length: so do we
    // (reported, as every drop is).
    if (
      this.recycled &&
      mode === WalRecoveryMode.TolerateCorruptedTail &&
      (kind === UNTRUSTED || kind === TRUNCATED)
    ) {
      return this.tornTail(reason, at, dropFrom);
    }
    const strict =
      mode === WalRecoveryMode.AbsoluteConsistency ||
      mode === WalRecoveryMode.TolerateCorruptedTail;
    if (
      (mode === WalRecoveryMode.AbsoluteConsistency && kind !== ZEROED) ||
      (strict && kind === UNTRUSTED)
    ) {
      throw this.fail(reason, at);
    }
    // Is anything valid left after the damage?
    this.sawNonZero = false;
    if (this.search(index + 1, kind === ZEROED)) {
      const next = this.bufferStart + this.pos;
      // A payload that runs past the end of file although valid data follows: its length
      // field is what was damaged.
      if (kind === TRUNCATED) reason = "bad record length";
      if (mode !== WalRecoveryMode.SkipAnyCorrupted) {
        throw this.fail(
          `${reason}; a valid record follows at offset ${next}, so the log is damaged before its end`,
          at,
        );
      }
      this.drops.add(dropFrom, next, reason);
      return true;
    }
    if (kind === TRUNCATED) return this.tornTail(reason, at, dropFrom);
    if (kind === ZEROED && !this.sawNonZero) return this.tornTail("zeroed tail", at, dropFrom);
    if (strict) throw this.fail(reason, at);
    this.drops.add(dropFrom, this.bufferStart + this.bufferEnd, reason);
    this.finish();
    return false;
  }

  /**
   * A verified recyclable fragment of another log number at `at`: what the reused file held
   * before this log. The log ends there, without a report (nothing of this log is lost),
   * except a record left open by this log's last fragments: that is a torn write, dropped
   * and reported (thrown in AbsoluteConsistency).
   */
  private oldRecord(at: number): void {
    if (this.inFragmentedRecord) {
      const from = this.recordStart;
      this.inFragmentedRecord = false;
      this.assemblyLength = 0;
      if (this.mode === WalRecoveryMode.AbsoluteConsistency) {
        throw this.fail("truncated record (a record of an older log follows)", from);
      }
      this.drops.add(from, at, "truncated record");
    }
    this.finish();
  }

  /** The record a compressed payload holds, or undefined if it does not decode. */
  private inflate(compressed: Uint8Array): Uint8Array | undefined {
    try {
      return this.decompressor!.decompress(this.compression, compressed);
    } catch {
      return undefined;
    }
  }

  /** A SetCompressionType record naming a compression this reader cannot decompress. */
  private refuseCompression(compression: number, at: number): ShaleError {
    const name = COMPRESSION_NAMES[compression] ?? `compression type ${compression}`;
    const err = ShaleError.notSupported(
      `${this.fileName ?? "log"} @ ${at}: the log's records are compressed (${name}, RocksDB's ` +
        `wal_compression), which ${this.decompressor === undefined ? "needs a decompressor (LogReader option decompressor)" : "this reader's decompressor does not read"}`,
    );
    this.finished = true;
    this.failure = err;
    return err;
  }

  /** The file ends in damage starting at `at`: drop [dropFrom, end of file), or throw. */
  private tornTail(reason: string, at: number, dropFrom: number): false {
    if (this.mode === WalRecoveryMode.AbsoluteConsistency) throw this.fail(reason, at);
    this.drops.add(dropFrom, this.bufferStart + this.bufferEnd, reason);
    this.finish();
    return false;
  }

  /**
   * Moves `pos` to the first buffer index >= `from` (reading on through the file) where a
   * valid record starts (see record-search.ts). Returns false, with `pos` at the end of the
   * file, if there is none. With `trackZeros`, sets `sawNonZero` if any byte passed over is
   * not zero.
   */
  private search(from: number, trackZeros: boolean): boolean {
    let q = from;
    for (;;) {
      const found = findRecordStart(this.buffer, q, this.bufferEnd, this.logNumber);
      const scanned = found < 0 ? this.bufferEnd : found;
      if (trackZeros && !this.sawNonZero && !allZero(this.buffer, q, scanned))
        this.sawNonZero = true;
      if (found >= 0) {
        this.pos = found;
        return true;
      }
      if (this.eof) {
        this.pos = this.bufferEnd;
        return false;
      }
      this.refill();
      q = 0;
    }
  }

  /** Copies `buffer[from, to)` onto the record being assembled, growing it as needed. */
  private appendFragment(from: number, to: number): void {
    const needed = this.assemblyLength + (to - from);
    if (needed > this.assembly.length) {
      const grown = new Uint8Array(Math.max(needed, 2 * this.assembly.length, 2 * BLOCK_SIZE));
      grown.set(this.assembly.subarray(0, this.assemblyLength));
      this.assembly = grown;
    }
    this.assembly.set(this.buffer.subarray(from, to), this.assemblyLength);
    this.assemblyLength = needed;
  }

  /** Reads the next chunk. REQUIRES: !eof and the whole buffer consumed (pos = bufferEnd). */
  private refill(): void {
    if (this.bufferEnd === BLOCK_SIZE && this.buffer.length < CHUNK_SIZE) {
      this.buffer = new Uint8Array(CHUNK_SIZE);
    }
    const buf = this.buffer;
    this.bufferStart += this.bufferEnd;
    this.bufferEnd = 0;
    this.pos = 0;
    let n = 0;
    try {
      while (n < buf.length) {
        const got = this.file.read(buf, n, buf.length - n);
        if (!(got > 0)) break;
        n += got;
      }
    } catch (err) {
      this.finished = true;
      this.failure = err;
      throw err;
    }
    this.bufferEnd = n;
    if (n < buf.length) this.eof = true;
  }

  private finish(): void {
    this.finished = true;
    this.drops.flush();
  }

  private fail(reason: string, at: number): ShaleError {
    const err = ShaleError.corruption(reason, this.fileName, at);
    this.finished = true;
    this.failure = err;
    return err;
  }
}
