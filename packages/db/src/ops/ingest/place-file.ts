/**
 * Putting one external file into the database directory under its new name: a hard link
 * (`moveFiles`; a copy where the file system cannot link) or a copy, synced either way. A
 * copy can carry a new global seqno in its properties block: the 8 bytes at the property's
 * offset are replaced on the way (the block's checksum is left as it was, computed over the
 * value the file was written with, 0: what RocksDB's `write_global_seqno` does, and what
 * readers expect: format/external-file.ts in @shale/sstable).
 *
 * Synchronous: the ingestion holds off writes meanwhile (ingest-external-file.ts).
 */
import { type FileSystem, putFixed64, ShaleError } from "@shale/base";
import type { ExternalFile } from "./inspect-file.js";

const CHUNK = 1 << 20;

/**
 * Links or copies `file` to `to` and syncs it. `link`: try a hard link first. `seqno` >= 0:
 * copy, with the global seqno property set to it. Returns how the file got there. A copy
 * that fails removes nothing (the caller removes `to`). Corruption naming the file if it
 * changed size since it was checked.
 */
export function placeFile(
  fs: FileSystem,
  file: ExternalFile,
  to: string,
  link: boolean,
  seqno: number,
): "linked" | "copied" {
  if (link && seqno < 0) {
    try {
      fs.link(file.path, to);
      syncExisting(fs, to);
      return "linked";
    } catch (e) {
      if (!ShaleError.isInstance(e) || e.code !== "IOError") throw e;
      if (fs.exists(to)) fs.remove(to);
    }
  }
  copy(fs, file, to, seqno);
  return "copied";
}

function copy(fs: FileSystem, file: ExternalFile, to: string, seqno: number): void {
  const src = fs.openRandomAccess(file.path);
  try {
    if (src.size !== file.size)
      throw ShaleError.corruption(
        `external file ${file.path} changed size during ingestion (${file.size} -> ${src.size} bytes)`,
        file.path,
      );
    const out = fs.openWritable(to, { bufferSize: 0 });
    try {
      const size = file.size;
      const buf = new Uint8Array(Math.min(CHUNK, Math.max(size, 1)));
      const patchAt = seqno >= 0 ? file.globalSeqnoOffset : -1;
      const patch = new Uint8Array(8);
      if (patchAt >= 0) putFixed64(patch, 0, seqno);
      for (let at = 0; at < size; ) {
        const want = Math.min(buf.length, size - at);
        const got = src.read(at, want, buf, 0);
        if (got !== want)
          throw ShaleError.corruption(`short read of ${want} bytes`, file.path, at + got);
        // The 8 bytes may straddle two chunks.
        for (let i = 0; i < 8 && patchAt >= 0; i++) {
          const p = patchAt + i - at;
          if (p >= 0 && p < got) buf[p] = patch[i]!;
        }
        out.append(buf, 0, got);
        at += got;
      }
      out.sync();
    } finally {
      out.close();
    }
  } finally {
    src.close();
  }
}

/** Syncs a file that exists (a hard link's data may not be on disk yet). */
function syncExisting(fs: FileSystem, path: string): void {
  const f = fs.openWritable(path, { append: true });
  try {
    f.sync();
  } finally {
    f.close();
  }
}
