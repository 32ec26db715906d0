/**
 * The open files of `OpfsFileSystem`: each holds an id the I/O worker maps to a path (and,
 * while the pool keeps it open, a sync access handle). Reads and writes larger than the
 * channel's data area are split into several calls.
 *
 * A writable file buffers appends in user space (`BufferedWriter`, 64 KiB by default);
 * `flush` writes them through the sync access handle, which puts them in the browser's
 * file (they survive the tab or browser process dying), and `sync` then calls the handle's
 * `flush()`, which makes them durable.
 */
import {
  BufferedWriter,
  type ByteSink,
  checkCount,
  checkRange,
  type RandomAccessFile,
  type SequentialFile,
  ShaleError,
  type WritableFile,
} from "@shale/base";
import type { IoChannel } from "./channel.js";
import { clientErrno } from "./wire-error.js";

/** Reads up to `length` bytes at `offset` of file `id` into `dst[dstOffset...]`. */
function readAt(
  channel: IoChannel,
  id: number,
  offset: number,
  length: number,
  dst: Uint8Array,
  dstOffset: number,
): number {
  let done = 0;
  while (done < length) {
    const chunk = Math.min(length - done, channel.transferSize);
    const n = channel.call({ op: "read", id, at: offset + done, length: chunk });
    dst.set(channel.data.subarray(0, n), dstOffset + done);
    done += n;
    if (n < chunk) break;
  }
  return done;
}

export class OpfsWritableFile implements WritableFile {
  private readonly writer: BufferedWriter;
  private closed = false;
  private offset: number;

  constructor(
    private readonly channel: IoChannel,
    private readonly path: string,
    private readonly id: number,
    initialSize: number,
    bufferSize: number,
  ) {
    this.offset = initialSize;
    const sink: ByteSink = {
      write: (data, start, length) => {
        const n = Math.min(length, channel.transferSize);
        channel.data.set(data.subarray(start, start + n));
        const k = channel.call({ op: "write", id, at: this.offset, length: n });
        this.offset += k;
        return k;
      },
    };
    this.writer = new BufferedWriter(sink, bufferSize, initialSize, (err) =>
      ShaleError.isInstance(err)
        ? err
        : ShaleError.ioError(`write failed: ${String(err)}`, path, err),
    );
  }

  get size(): number {
    return this.writer.size;
  }

  append(data: Uint8Array, start = 0, end = data.length): void {
    checkRange("append", start, end, data.length);
    this.checkOpen("write");
    this.writer.append(data, start, end);
  }

  flush(): void {
    this.checkOpen("write");
    this.writer.flush();
  }

  sync(): void {
    this.flush();
    this.channel.call({ op: "flush", id: this.id });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.writer.error === undefined) this.writer.flush();
    } finally {
      this.channel.call({ op: "close", id: this.id });
    }
  }

  private checkOpen(syscall: string): void {
    if (this.closed) throw clientErrno("EBADF", syscall, this.path);
  }
}

export class OpfsRandomAccessFile implements RandomAccessFile {
  private closed = false;

  constructor(
    private readonly channel: IoChannel,
    private readonly path: string,
    private readonly id: number,
    readonly size: number,
  ) {}

  read(offset: number, length: number, dst: Uint8Array, dstOffset = 0): number {
    checkCount("read offset", offset);
    checkRange("read", dstOffset, dstOffset + length, dst.length);
    if (this.closed) throw clientErrno("EBADF", "read", this.path);
    return readAt(this.channel, this.id, offset, length, dst, dstOffset);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.channel.call({ op: "close", id: this.id });
  }
}

export class OpfsSequentialFile implements SequentialFile {
  private position = 0;
  private closed = false;

  constructor(
    private readonly channel: IoChannel,
    private readonly path: string,
    private readonly id: number,
  ) {}

  read(dst: Uint8Array, dstOffset = 0, length = dst.length - dstOffset): number {
    checkRange("read", dstOffset, dstOffset + length, dst.length);
    if (this.closed) throw clientErrno("EBADF", "read", this.path);
    const n = readAt(this.channel, this.id, this.position, length, dst, dstOffset);
    this.position += n;
    return n;
  }

  skip(n: number): void {
    checkCount("skip", n);
    if (this.closed) throw clientErrno("EBADF", "lseek", this.path);
    this.position += n;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.channel.call({ op: "close", id: this.id });
  }
}
