/**
 * `BufferedWriter`: the user-space write buffer of a WritableFile, shared by `NodeFileSystem`
 * and `FaultInjectionFileSystem`, and the one place that turns `write(2)`'s partial writes
 * into whole ones.
 *
 * The OS may accept fewer bytes than it was handed (a signal, a nearly full disk, a pipe):
 * `write(fd, buf, n)` returns k < n and the caller must send `buf[k, n)` next. So a sink
 * call (`ByteSink.write`) is made again from where the previous one stopped, never for
 * the whole range again:
 *
 * ```
 *   buffer:  [ a a a a a b b b b b ]      pending = 10
 *   write(0, 10) -> 4  ->  OS has "aaaa"
 *   write(4, 6)  -> 6  ->  OS has "aaaaabbbbb"      (done: the buffer is empty)
 * ```
 *
 * A sink call that throws (ENOSPC once the disk is full, EIO) after earlier calls of the
 * same flush landed a prefix leaves exactly that prefix in the file:
 *
 * ```
 *   write(0, 10) -> 4       OS has "aaaa"
 *   write(4, 6)  -> ENOSPC  the file ends "aaaa"; `size` = bytes before + 4
 * ```
 *
 * After a failed write the handle is failed (as RocksDB's WritableFileWriter after an error:
 * "Writer has previous error"): the bytes not accepted are dropped, never re-sent by a later
 * flush (re-sending the whole buffer wrote the accepted prefix twice and left a WAL the
 * default recovery refused); every later `append`/`flush` throws an IOError whose `cause`
 * is the first failure's (`cause.code` the errno); `size` is the bytes the OS accepted; closing releases the
 * descriptor without writing and does not throw that error again. The caller that met the
 * failure got it once; what it does next (the database stops taking writes) is its call.
 *
 * Not thread-safe: one handle, one thread.
 */
import { ShaleError } from "../errors.js";

/** Where a BufferedWriter's bytes go: one `write(2)`. */
/** Default user-space write buffer of a WritableFile: 64 KiB. */
export const DEFAULT_WRITE_BUFFER_SIZE = 64 * 1024;

export interface ByteSink {
  /**
   * Hands `data[start, start + length)` (length >= 1) to the OS in one call and returns
   * how many bytes it accepted, from `start`: at least 1, at most `length`. Throws on
   * failure, having accepted nothing in that call.
   */
  write(data: Uint8Array, start: number, length: number): number;
}

export class BufferedWriter {
  private readonly buffer: Uint8Array;
  private pending = 0;
  /** Bytes the OS accepted, plus the bytes it had before we took the file over. */
  private accepted: number;
  private failure: ShaleError | undefined;

  /**
   * `initialSize`: bytes already in the file. `bufferSize` 0 writes straight through.
   * `wrapError` turns a sink's exception into the IOError the caller sees.
   */
  constructor(
    private readonly sink: ByteSink,
    bufferSize: number,
    initialSize: number,
    private readonly wrapError: (err: unknown) => ShaleError,
  ) {
    this.buffer = new Uint8Array(bufferSize);
    this.accepted = initialSize;
  }

  /** Bytes appended so far that the OS accepted or that wait in the buffer. */
  get size(): number {
    return this.accepted + this.pending;
  }

  /** Buffered bytes not yet handed to the OS. */
  get buffered(): number {
    return this.pending;
  }

  /** The first failed write, once there was one (the handle is failed, see the file comment). */
  get error(): ShaleError | undefined {
    return this.failure;
  }

  /** Appends `data[start, end)`; REQUIRES: a valid range (the caller checked it). */
  append(data: Uint8Array, start: number, end: number): void {
    if (this.failure !== undefined) throw this.failedError();
    const n = end - start;
    const capacity = this.buffer.length;
    if (this.pending + n <= capacity) {
      this.buffer.set(data.subarray(start, end), this.pending);
      this.pending += n;
      return;
    }
    this.flush();
    if (n >= capacity) {
      this.writeOut(data, start, n);
    } else {
      this.buffer.set(data.subarray(start, end), 0);
      this.pending = n;
    }
  }

  /** Hands the buffered bytes to the OS, completing short writes; see the file comment. */
  flush(): void {
    if (this.failure !== undefined) throw this.failedError();
    const n = this.pending;
    if (n === 0) return;
    // The buffer is emptied first: whatever happens, these bytes are never sent again.
    this.pending = 0;
    this.writeOut(this.buffer, 0, n);
  }

  /** Drops the buffered bytes without writing them (a dead handle, a power cut). */
  discard(): void {
    this.pending = 0;
  }

  /** Writes `data[start, start + length)` through the sink; on failure the handle fails. */
  private writeOut(data: Uint8Array, start: number, length: number): void {
    let done = 0;
    try {
      while (done < length) {
        const k = this.sink.write(data, start + done, length - done);
        if (!(k >= 1 && k <= length - done)) {
          throw new Error(`write accepted ${k} of ${length - done} bytes`);
        }
        done += k;
        this.accepted += k;
      }
    } catch (err) {
      this.failure = this.wrapError(err);
      throw this.failure;
    }
  }

  private failedError(): ShaleError {
    const first = this.failure!;
    return ShaleError.ioError(
      `an earlier write failed; the file ends after the ${this.accepted} bytes the OS accepted: ${first.message}`,
      first.file,
      first.cause ?? first,
    );
  }
}
