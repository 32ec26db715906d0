/**
 * BlobSource: turns blob indexes into values (RocksDB's BlobSource + BlobFileCache). Keeps
 * one open BlobFileReader per blob file read so far and a small LRU of values (RocksDB's blob
 * cache), keyed by (file number, offset), charged by value size.
 *
 * A value returned is shared with the cache: callers treat it as read-only (the database's
 * API copies it, or hands it out as a read-only view — see DB.getView: a view of a blob is a
 * view of this cached copy, not of a file mapping or block). A blob index naming a file the
 * current version does not list is Corruption ("invalid blob file number"), as in RocksDB.
 */
import { baseName, type FileSystem, ShaleError } from "@shale/base";
import { blobFileName } from "../core/filenames.js";
import { BlobFileReader } from "./blob-file-reader.js";
import { decodeBlobIndex } from "./blob-format.js";

/** Resolves the value of a BlobIndex entry (the read path, iterators and compactions use it). */
export interface BlobResolver {
  /** The value the blob index `index` of `userKey` points at. Read-only; see BlobSource. */
  resolve(userKey: Uint8Array, index: Uint8Array): Uint8Array;
}

export interface BlobSourceOptions {
  fs: FileSystem;
  dir: string;
  columnFamilyId: number;
  /** True if blob file `number` is in the current version. Default: every file is. */
  isLive?: (number: number) => boolean;
  /** Bytes of values kept. Default: 8 MiB. 0: none. */
  cacheBytes?: number;
}

export class BlobSource implements BlobResolver {
  private readonly fs: FileSystem;
  private readonly dir: string;
  private readonly columnFamilyId: number;
  private readonly isLive: ((number: number) => boolean) | undefined;
  private readonly readers = new Map<number, BlobFileReader>();
  /** Insertion order is recency order (a hit moves the entry to the end). */
  private readonly cache = new Map<string, Uint8Array>();
  private readonly capacity: number;
  private charge = 0;

  constructor(options: BlobSourceOptions) {
    this.fs = options.fs;
    this.dir = options.dir;
    this.columnFamilyId = options.columnFamilyId;
    this.isLive = options.isLive;
    this.capacity = options.cacheBytes ?? 8 * 1024 * 1024;
  }

  resolve(userKey: Uint8Array, index: Uint8Array): Uint8Array {
    const ref = decodeBlobIndex(index);
    if (ref.fileNumber === 0 || (this.isLive !== undefined && !this.isLive(ref.fileNumber)))
      throw ShaleError.corruption(
        `invalid blob file number ${ref.fileNumber} (not in the current version)`,
        baseName(blobFileName(this.dir, ref.fileNumber)),
        ref.offset,
      );
    const key = `${ref.fileNumber}:${ref.offset}`;
    const hit = this.cache.get(key);
    if (hit !== undefined) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const value = this.reader(ref.fileNumber).getBlob(userKey, ref);
    if (value.length <= this.capacity) {
      this.cache.set(key, value);
      this.charge += value.length;
      for (const [k, v] of this.cache) {
        if (this.charge <= this.capacity) break;
        this.cache.delete(k);
        this.charge -= v.length;
      }
    }
    return value;
  }

  private reader(number: number): BlobFileReader {
    let r = this.readers.get(number);
    if (r === undefined) {
      r = BlobFileReader.open(this.fs, blobFileName(this.dir, number), number, this.columnFamilyId);
      this.readers.set(number, r);
    }
    return r;
  }

  /** Forgets blob file `number` (it became obsolete): closes its reader, drops its values. */
  evict(number: number): void {
    const r = this.readers.get(number);
    if (r !== undefined) {
      this.readers.delete(number);
      r.close();
    }
    const prefix = `${number}:`;
    for (const [k, v] of this.cache) {
      if (k.startsWith(prefix)) {
        this.cache.delete(k);
        this.charge -= v.length;
      }
    }
  }

  /** Closes every reader. Idempotent. */
  close(): void {
    for (const r of this.readers.values()) r.close();
    this.readers.clear();
    this.cache.clear();
    this.charge = 0;
  }
}
