/**
 * Copying files for checkpoints, backups and restores: in 1 MiB chunks, yielding to the
 * event loop between chunks so the database keeps serving (and taking writes) while a large
 * copy runs, with the CRC32C of the bytes copied computed on the way. A copy stops at a
 * given length: the prefix of a file that keeps growing (a WAL, a MANIFEST) as it was when
 * it was captured.
 */
import { crc32cExtend, type FileSystem, joinPath, ShaleError } from "@shale/base";

const CHUNK = 1 << 20;

/** The event loop turns (writes, timers, I/O callbacks run) before this resolves. */
export function yieldToEventLoop(): Promise<void> {
  // setImmediate where there is one (Node, Bun): it runs after pending I/O callbacks.
  const immediate = (globalThis as { setImmediate?: (f: () => void) => unknown }).setImmediate;
  return new Promise((resolve) =>
    immediate !== undefined ? immediate(resolve) : setTimeout(resolve, 0),
  );
}

export interface CopiedFile {
  /** Bytes copied. */
  readonly size: number;
  /** CRC32C of them. */
  readonly crc32c: number;
}

/**
 * Copies the first `length` bytes of `from` (Default: the whole file) to `to` (created or
 * truncated) and syncs it. Corruption naming `from` if it holds fewer than `length` bytes.
 */
export async function copyFile(
  fromFs: FileSystem,
  from: string,
  toFs: FileSystem,
  to: string,
  length?: number,
): Promise<CopiedFile> {
  const src = fromFs.openRandomAccess(from);
  try {
    const size = length ?? src.size;
    const out = toFs.openWritable(to, { bufferSize: 0 });
    try {
      const buf = new Uint8Array(Math.min(CHUNK, Math.max(size, 1)));
      let crc = 0;
      for (let at = 0; at < size; ) {
        const want = Math.min(buf.length, size - at);
        const got = src.read(at, want, buf, 0);
        if (got !== want)
          throw ShaleError.corruption(`file is shorter than ${size} bytes`, from, at + got);
        crc = crc32cExtend(crc, buf, 0, got);
        out.append(buf, 0, got);
        at += got;
        if (at < size) await yieldToEventLoop();
      }
      out.sync();
      return { size, crc32c: crc };
    } finally {
      out.close();
    }
  } finally {
    src.close();
  }
}

/** CRC32C and size of a whole file, read in chunks (yielding between them). */
export async function checksumFile(fs: FileSystem, path: string): Promise<CopiedFile> {
  const src = fs.openRandomAccess(path);
  try {
    const size = src.size;
    const buf = new Uint8Array(Math.min(CHUNK, Math.max(size, 1)));
    let crc = 0;
    for (let at = 0; at < size; ) {
      const got = src.read(at, Math.min(buf.length, size - at), buf, 0);
      if (got === 0) throw ShaleError.corruption(`short read at ${at} of ${size}`, path, at);
      crc = crc32cExtend(crc, buf, 0, got);
      at += got;
      if (at < size) await yieldToEventLoop();
    }
    return { size, crc32c: crc };
  } finally {
    src.close();
  }
}

/**
 * Makes `to` a hard link of `from` if the file system can (same device, links supported),
 * else copies it. Returns true if it linked. Only for files never written again (tables).
 */
export async function linkOrCopy(fs: FileSystem, from: string, to: string): Promise<boolean> {
  try {
    fs.link(from, to);
    return true;
  } catch (e) {
    const code = (e as { cause?: { code?: unknown } }).cause?.code;
    if (
      !ShaleError.isInstance(e) ||
      (code !== "EXDEV" &&
        code !== "EPERM" &&
        code !== "ENOTSUP" &&
        code !== "EMLINK" &&
        code !== "ENOSYS")
    )
      throw e;
  }
  await copyFile(fs, from, fs, to);
  return false;
}

/** Removes a directory and every file in it (one level of subdirectories). Missing: nothing. */
export function removeTree(fs: FileSystem, dir: string): void {
  if (!fs.exists(dir)) return;
  for (const name of fs.list(dir)) {
    const path = joinPath(dir, name);
    try {
      fs.remove(path);
    } catch (e) {
      const code = (e as { cause?: { code?: unknown } }).cause?.code;
      if (code !== "EISDIR" && code !== "EPERM") throw e;
      removeTree(fs, path);
    }
  }
  fs.removeDir(dir);
}
