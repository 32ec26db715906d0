/**
 * A FileSystem whose writable files ask a `RateLimiter` (core/rate-limiter.ts) before they
 * take bytes: what a flush or compaction job writes (tables, blob files) goes through it, as
 * RocksDB's `WritableFileWriter` asks its rate limiter before each write to the OS.
 *
 * Appends are charged in chunks of `CHARGE_BYTES` (and what is left on flush, sync and close),
 * before the bytes are handed on, so a compaction sleeps before its data reaches the OS and
 * one lock round trip covers many small block appends. Everything else (reads, renames,
 * removals) passes straight through.
 *
 * Used by the worker threads (`"low"` priority for compactions, which sleep; `"high"` for
 * flushes, charged only) and by the inline executor (everything `"high"`: it runs on the
 * thread that answers reads, which must never sleep). Not thread-safe: one file, one thread.
 */
import type { FileSystem, OpenWritableOptions, WritableFile } from "@shale/base";
import type { IoPriority, RateLimiter, RateLimiterAccount } from "../core/rate-limiter.js";

/** Bytes appended before they are charged to the limiter. */
export const CHARGE_BYTES = 64 * 1024;

class RateLimitedWritableFile implements WritableFile {
  private uncharged = 0;

  constructor(
    private readonly inner: WritableFile,
    private readonly limiter: RateLimiter,
    private readonly priority: IoPriority,
    private readonly account: RateLimiterAccount | undefined,
  ) {}

  append(data: Uint8Array, start = 0, end: number = data.length): void {
    this.uncharged += end - start;
    if (this.uncharged >= CHARGE_BYTES) this.charge();
    this.inner.append(data, start, end);
  }

  flush(): void {
    this.charge();
    this.inner.flush();
  }

  sync(): void {
    this.charge();
    this.inner.sync();
  }

  close(): void {
    this.charge();
    this.inner.close();
  }

  get size(): number {
    return this.inner.size;
  }

  private charge(): void {
    const n = this.uncharged;
    if (n <= 0) return;
    this.uncharged = 0;
    this.limiter.request(n, this.priority, this.account);
  }
}

/** `fs` with every writable file charged to `limiter` at `priority` (see the header). */
export function rateLimitedFileSystem(
  fs: FileSystem,
  limiter: RateLimiter,
  priority: IoPriority,
  account?: RateLimiterAccount,
): FileSystem {
  const limited: FileSystem = Object.create(fs);
  limited.openWritable = (path: string, options?: OpenWritableOptions): WritableFile =>
    new RateLimitedWritableFile(fs.openWritable(path, options), limiter, priority, account);
  return limited;
}
