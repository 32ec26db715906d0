/**
 * The change feed (RocksDB's GetUpdatesSince and TransactionLogIterator): every write from
 * a sequence number on, batch by batch, in order, read back from the WALs — live ones in
 * the database directory and archived ones in `archive/` (write/wal-archive.ts).
 *
 * ```
 *   WALs by number:   archive/000007.log   archive/000009.log   000012.log (being written)
 *   batches (seq+count): 1+3 4+1 5+2      7+1 8+4               12+1 13+1 ...
 *   getUpdatesSince(6) ->     {5, [5,6]}  {7}  {8..11}          {12}  {13} ... then undefined
 * ```
 *
 * - Positioning (at the call): the newest WAL whose first batch starts at or before the
 *   sequence asked for; batches wholly before it are skipped; the batch containing it is
 *   returned whole (its `sequence` may be lower than the one asked for).
 * - Every batch after the first must start where the previous one ended (sequence + count).
 *   A hole is never skipped silently: it is `NotFound`, naming the sequence missing and the
 *   one available. Holes come from WALs pruned from the archive (or deleted, without
 *   `walTtlSeconds` / `walSizeLimitMb`), from writes with `disableWAL`, and from ingested
 *   files that took a sequence number.
 * - `read()` returns undefined once it has returned every batch written so far; a later
 *   call returns the batches written since (the WAL being written is read on from where
 *   the last read stopped). A WAL that got a successor is complete: it is read to its end
 *   once more before moving on. A WAL moved into the archive meanwhile is followed there.
 * - Damage in a complete WAL is Corruption; at the end of the newest WAL it ends the read
 *   (a write in flight, from another process) and the next call tries again.
 * - Batches holding two-phase commit markers (a TransactionDB's prepared transactions) are
 *   NotSupported: their operations take sequence numbers only at the commit, whose record
 *   does not carry them.
 *
 * Cost: one WAL file open while batches are being read from it; each batch is checked and
 * copied once (`WriteBatch.fromData`; the publisher of @shale/replication reads the bytes
 * without the WriteBatch, `readBatchData` in internal.ts).
 *
 * Threading: the database's thread.
 */
import { baseName, type FileSystem, type SequentialFile, ShaleError } from "@shale/base";
import { LogReader, WalRecoveryMode } from "@shale/wal";
import { WAL_DECOMPRESSOR } from "../core/wal-codecs.js";
import { isMissingFile } from "../secondary/manifest-tail.js";
import { WalArchive, type WalFile } from "../write/wal-archive.js";
import { WriteBatch, type WriteBatchHandler } from "../write/write-batch.js";

/** One write of the change feed: the batch and the sequence number of its first operation. */
export interface BatchWithSequence {
  /** The sequence number of the batch's first operation (operation i has sequence + i). */
  readonly sequence: number;
  /** The batch, as written (`batch.data()` is the WAL record's payload). */
  readonly batch: WriteBatch;
}

/** What the change feed needs from its database. */
export interface UpdatesHost {
  readonly dir: string;
  readonly fs: FileSystem;
  /** The sequence number of the last write. */
  lastSequence(): number;
  /** Throws Closed once the database is closed. */
  checkOpen(): void;
}

/** Finds two-phase commit markers in a batch. */
class MarkerCheck implements WriteBatchHandler {
  found = false;
  apply(): void {}
  marker(): void {
    this.found = true;
  }
}

/** The open WAL being read. */
interface OpenLog {
  readonly file: SequentialFile;
  readonly reader: LogReader;
  readonly newest: boolean;
}

/**
 * RocksDB's TransactionLogIterator: `read()` the next batch, or iterate (`for...of`, `for
 * await...of`: both end at the last batch written so far). Close it when done (`close()`,
 * or leaving a loop early does): it may hold a WAL file open.
 */
export class TransactionLogIterator
  implements Iterable<BatchWithSequence>, AsyncIterable<BatchWithSequence>
{
  private readonly host: UpdatesHost;
  /** The WAL being read, and the offset just past the last whole record read from it. */
  private logNumber: number;
  private offset = 0;
  /** The log's compression, seen at its start (for a reader that starts past it). */
  private compression = 0;
  private open: OpenLog | undefined;
  /** The next sequence number wanted: the first batch must contain it, later ones start at it. */
  private expected: number;
  private started = false;
  private isClosed = false;
  private readonly markers = new MarkerCheck();
  /** The file name (and the log number it is of) and offset of the last record read. */
  private recordFile = "";
  private recordFileOf = -1;
  private recordAt = 0;

  /** Use `db.getUpdatesSince(sequence)`. @internal */
  constructor(host: UpdatesHost, sequence: number) {
    this.host = host;
    host.checkOpen();
    const last = host.lastSequence();
    if (sequence > last + 1)
      throw ShaleError.notFound(
        `sequence ${sequence} is not written yet (the last sequence written is ${last})`,
      );
    this.expected = Math.max(sequence, 1);
    const files = WalArchive.all(host.fs, host.dir);
    let start: WalFile | undefined;
    let oldest: number | undefined;
    for (let i = files.length - 1; i >= 0; i--) {
      const first = this.firstSequence(files[i]!);
      if (first === undefined) continue;
      oldest = first;
      if (first <= this.expected) {
        start = files[i];
        break;
      }
    }
    if (start === undefined) {
      // Nothing in the WALs at or before the sequence asked for: fine only if nothing was
      // written before it either (no batch left out).
      const available = oldest ?? last + 1;
      if (this.expected < available)
        throw ShaleError.notFound(
          `sequence ${sequence} is no longer in the WALs: the oldest sequence available is ${available}${available > last ? " (none written since)" : ""}`,
        );
      start = files[0];
    }
    this.logNumber = start?.number ?? 0;
  }

  /**
   * The next batch, or undefined when every batch written so far was returned (call again
   * later for newer ones). NotFound on a hole in the sequence (see the file comment),
   * Corruption on a damaged WAL, Closed once the iterator or the database is closed.
   */
  read(): BatchWithSequence | undefined {
    const bytes = this.readData();
    if (bytes === undefined) return undefined;
    return { sequence: WriteBatch.sequence(bytes), batch: WriteBatch.fromData(bytes) };
  }

  /**
   * @internal `read()` without the WriteBatch: the next batch's representation (what
   * `batch.data()` would return), a view into the WAL reader's buffer valid until the next
   * read or close (copy it to keep it). The same checks and errors as `read()`.
   */
  readData(): Uint8Array | undefined {
    if (this.isClosed) throw ShaleError.closed("the change feed iterator is closed");
    this.host.checkOpen();
    for (;;) {
      const bytes = this.nextRecord();
      if (bytes === undefined) return undefined;
      const file = this.recordFile;
      const at = this.recordAt;
      const seq = WriteBatch.sequence(bytes);
      const count = WriteBatch.countOf(bytes);
      if (count === 0) continue;
      if (!this.started && seq + count <= this.expected) continue;
      if (seq > this.expected)
        throw ShaleError.notFound(
          `the WALs hold no batch with sequence ${this.expected} (the next one available starts at ${seq}, in ${file}): WALs pruned or deleted, writes with disableWAL, or ingested files leave such holes`,
        );
      if (this.started && seq < this.expected)
        throw ShaleError.corruption(
          `a batch at sequence ${seq} follows one that ended at ${this.expected - 1}`,
          file,
          at,
        );
      this.markers.found = false;
      WriteBatch.iterate(bytes, this.markers, file, at, true);
      if (this.markers.found)
        throw ShaleError.notSupported(
          `the change feed reached a two-phase commit (prepared transaction) record at sequence ${seq} (${file} @ ${at}), which it does not carry`,
        );
      this.started = true;
      this.expected = seq + count;
      return bytes;
    }
  }

  /** Yields the batches written so far (`read()` until undefined), then ends. */
  *[Symbol.iterator](): Generator<BatchWithSequence, void, undefined> {
    try {
      for (let b = this.read(); b !== undefined; b = this.read()) yield b;
    } finally {
      this.close();
    }
  }

  /** As the synchronous iteration, for `for await...of`. */
  async *[Symbol.asyncIterator](): AsyncGenerator<BatchWithSequence, void, undefined> {
    try {
      for (let b = this.read(); b !== undefined; b = this.read()) yield b;
    } finally {
      this.close();
    }
  }

  /** Closes the WAL held open, if any. Idempotent. */
  close(): void {
    this.isClosed = true;
    this.closeLog();
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /**
   * The next whole WAL record (a view into the reader's buffer, valid until the next call),
   * moving from WAL to WAL; undefined: none yet.
   */
  private nextRecord(): Uint8Array | undefined {
    for (;;) {
      if (this.open === undefined && !this.openLog()) return undefined;
      const log = this.open!;
      let rec: Uint8Array | undefined;
      try {
        rec = log.reader.readRecord();
      } catch (e) {
        if (!(log.newest && ShaleError.isInstance(e) && e.code === "Corruption")) throw e;
        rec = undefined;
      }
      if (rec !== undefined) {
        if (this.recordFileOf !== this.logNumber) {
          this.recordFile = logName(this.logNumber);
          this.recordFileOf = this.logNumber;
        }
        this.recordAt = log.reader.lastRecordOffset;
        if (rec.length < 12)
          throw ShaleError.corruption(
            "WAL record shorter than a write batch header",
            this.recordFile,
            this.recordAt,
          );
        this.offset = log.reader.lastRecordEndOffset;
        this.compression = log.reader.compressionType;
        return rec;
      }
      this.closeLog();
      if (log.newest) {
        // A successor may have appeared since the open: then this WAL is complete, and is
        // read to its end once more before moving on.
        if (this.successor() === undefined) return undefined;
        continue;
      }
      const next = this.successor();
      if (next === undefined) return undefined;
      this.logNumber = next.number;
      this.offset = 0;
      this.compression = 0;
    }
  }

  /** Opens the current WAL at `offset` (following it into the archive). False: none to read. */
  private openLog(): boolean {
    const files = WalArchive.all(this.host.fs, this.host.dir);
    if (files.length === 0) return false;
    const i = files.findIndex((f) => f.number === this.logNumber);
    if (i < 0) {
      // Pruned (or never there): go on at the next WAL; its first batch shows the hole.
      const next = files.find((f) => f.number > this.logNumber);
      if (next === undefined) return false;
      this.logNumber = next.number;
      this.offset = 0;
      this.compression = 0;
      return this.openLog();
    }
    const entry = files[i]!;
    const newest = i === files.length - 1;
    let file: SequentialFile;
    try {
      file = this.host.fs.openSequential(entry.path);
    } catch (e) {
      if (isMissingFile(e)) return this.openLog(); // moved into the archive just now
      throw e;
    }
    try {
      const reader = new LogReader(file, {
        mode: newest ? WalRecoveryMode.TolerateCorruptedTail : WalRecoveryMode.AbsoluteConsistency,
        fileName: baseName(entry.path),
        logNumber: entry.number,
        decompressor: WAL_DECOMPRESSOR,
        startOffset: this.offset,
        startCompression: this.offset > 0 ? this.compression : 0,
        reporter: () => {},
      });
      this.open = { file, reader, newest };
      return true;
    } catch (e) {
      file.close();
      throw e;
    }
  }

  private closeLog(): void {
    const log = this.open;
    if (log === undefined) return;
    this.open = undefined;
    log.file.close();
  }

  /** The WAL after the current one, if there is one yet. */
  private successor(): WalFile | undefined {
    return WalArchive.all(this.host.fs, this.host.dir).find((f) => f.number > this.logNumber);
  }

  /** The sequence of the first batch in `wal`; undefined when it holds no whole record. */
  private firstSequence(wal: WalFile): number | undefined {
    let file: SequentialFile;
    try {
      file = this.host.fs.openSequential(wal.path);
    } catch (e) {
      if (isMissingFile(e)) return undefined;
      throw e;
    }
    try {
      const reader = new LogReader(file, {
        mode: WalRecoveryMode.TolerateCorruptedTail,
        fileName: baseName(wal.path),
        logNumber: wal.number,
        decompressor: WAL_DECOMPRESSOR,
        reporter: () => {},
      });
      for (;;) {
        const rec = reader.readRecord();
        if (rec === undefined || rec.length < 12) return undefined;
        if (WriteBatch.countOf(rec) > 0) return WriteBatch.sequence(rec);
      }
    } catch (e) {
      if (ShaleError.isInstance(e) && e.code === "Corruption") return undefined;
      throw e;
    } finally {
      file.close();
    }
  }
}

const logName = (n: number): string => `${String(n).padStart(6, "0")}.log`;

/** `db.getUpdatesSince(sequence)`: checks the argument, then positions the iterator. */
export function getUpdatesSince(host: UpdatesHost, sequence: number): TransactionLogIterator {
  if (typeof sequence !== "number") throw new TypeError("sequence must be a number");
  if (!Number.isSafeInteger(sequence) || sequence < 0)
    throw ShaleError.invalidArgument(
      `sequence must be an integer from 0 to 2^53 - 1, not ${sequence}`,
    );
  return new TransactionLogIterator(host, sequence);
}
