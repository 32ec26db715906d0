/**
 * Turning blob indexes into values (RocksDB's BlobSource + BlobFileCache).
 *
 * `BlobFileCache` is what a database shares between its column families: one open
 * BlobFileReader per blob file read so far (each file belongs to one family: its header says
 * which, and a read for another family is Corruption) and a small LRU of values (RocksDB's
 * blob cache), keyed by (file number, offset), charged by value size.
 *
 * `BlobSource` is one family's view of it: it resolves the blob indexes of that family,
 * checking that the file named is one of the family's live blob files (`isLive`: the
 * version the read uses). A blob index naming a file that is not live is Corruption
 * ("invalid blob file number"), as in RocksDB.
 *
 * A value returned is shared with the cache: callers treat it as read-only (the database's
 * API copies it, or hands it out as a read-only view — see DB.getView: a view of a blob is a
 * view of this cached copy, not of a file mapping or block).
 */
import { baseName, type FileSystem, ShaleError } from "@shale/base";
import { blobFileName } from "../core/filenames.js";
import { BlobFileReader } from "./blob-file-reader.js";
import { type BlobRef, decodeBlobIndex } from "./blob-format.js";

/** Resolves the value of a BlobIndex entry (the read path, iterators and compactions use it). */
export interface BlobResolver {
  /** The value the blob index `index` of `userKey` points at. Read-only; see BlobSource. */
  resolve(userKey: Uint8Array, index: Uint8Array): Uint8Array;
}

export interface BlobFileCacheOptions {
  fs: FileSystem;
  dir: string;
  /** Bytes of values kept. Default: 8 MiB. 0: none. */
  cacheBytes?: number;
}

/** The blob files of a database, open once for every column family (see the file comment). */
export class BlobFileCache {
  private readonly fs: FileSystem;
  readonly dir: string;
  private readonly readers = new Map<number, { reader: BlobFileReader; family: number }>();
  /** Insertion order is recency order (a hit moves the entry to the end). */
  private readonly values = new Map<string, Uint8Array>();
  private readonly capacity: number;
  private charge = 0;

  constructor(options: BlobFileCacheOptions) {
    this.fs = options.fs;
    this.dir = options.dir;
    this.capacity = options.cacheBytes ?? 8 * 1024 * 1024;
  }

  /**
   * The value `ref` (a blob index of `userKey` in column family `columnFamilyId`) points at.
   * Corruption naming the blob file for a file of another family, a damaged or missing file.
   */
  read(columnFamilyId: number, userKey: Uint8Array, ref: BlobRef): Uint8Array {
    const key = `${ref.fileNumber}:${ref.offset}`;
    const hit = this.values.get(key);
    const reader = this.reader(ref.fileNumber, columnFamilyId);
    if (hit !== undefined) {
      this.values.delete(key);
      this.values.set(key, hit);
      return hit;
    }
    const value = reader.getBlob(userKey, ref);
    if (value.length <= this.capacity) {
      this.values.set(key, value);
      this.charge += value.length;
      for (const [k, v] of this.values) {
        if (this.charge <= this.capacity) break;
        this.values.delete(k);
        this.charge -= v.length;
      }
    }
    return value;
  }

  private reader(number: number, columnFamilyId: number): BlobFileReader {
    const open = this.readers.get(number);
    if (open !== undefined) {
      if (open.family !== columnFamilyId)
        throw ShaleError.corruption(
          `blob file of column family ${open.family}, expected ${columnFamilyId}`,
          open.reader.name,
          8,
        );
      return open.reader;
    }
    const path = blobFileName(this.dir, number);
    const reader = BlobFileReader.open(this.fs, path, number, columnFamilyId);
    this.readers.set(number, { reader, family: columnFamilyId });
    return reader;
  }

  /** Forgets blob file `number` (it became obsolete): closes its reader, drops its values. */
  evict(number: number): void {
    const open = this.readers.get(number);
    if (open !== undefined) {
      this.readers.delete(number);
      open.reader.close();
    }
    const prefix = `${number}:`;
    for (const [k, v] of this.values) {
      if (k.startsWith(prefix)) {
        this.values.delete(k);
        this.charge -= v.length;
      }
    }
  }

  /** Closes every reader. Idempotent. */
  close(): void {
    for (const open of this.readers.values()) open.reader.close();
    this.readers.clear();
    this.values.clear();
    this.charge = 0;
  }
}

export interface BlobSourceOptions {
  /** The column family whose blob indexes are resolved. */
  columnFamilyId: number;
  /** True if blob file `number` is live for the read. Default: every file is. */
  isLive?: ((number: number) => boolean) | undefined;
  /** The shared cache to read through (not closed by `close`). */
  cache?: BlobFileCache;
  /** Without `cache`: the directory's file system ... */
  fs?: FileSystem;
  /** ... the directory ... */
  dir?: string;
  /** ... and the bytes of values its own cache keeps (default 8 MiB; 0: none). */
  cacheBytes?: number;
}

/** One column family's blob indexes resolved (see the file comment). */
export class BlobSource implements BlobResolver {
  private readonly cache: BlobFileCache;
  /** True when the cache is this source's own (closed with it). */
  private readonly owned: boolean;
  private readonly columnFamilyId: number;
  private readonly isLive: ((number: number) => boolean) | undefined;

  constructor(options: BlobSourceOptions) {
    this.columnFamilyId = options.columnFamilyId;
    this.isLive = options.isLive;
    if (options.cache !== undefined) {
      this.cache = options.cache;
      this.owned = false;
    } else {
      if (options.fs === undefined || options.dir === undefined)
        throw ShaleError.invalidArgument("a BlobSource needs a cache, or fs and dir");
      const cacheOptions: BlobFileCacheOptions = { fs: options.fs, dir: options.dir };
      if (options.cacheBytes !== undefined) cacheOptions.cacheBytes = options.cacheBytes;
      this.cache = new BlobFileCache(cacheOptions);
      this.owned = true;
    }
  }

  resolve(userKey: Uint8Array, index: Uint8Array): Uint8Array {
    const ref = decodeBlobIndex(index);
    if (ref.fileNumber === 0 || (this.isLive !== undefined && !this.isLive(ref.fileNumber)))
      throw ShaleError.corruption(
        `invalid blob file number ${ref.fileNumber} (not in the current version)`,
        baseName(blobFileName(this.cache.dir, ref.fileNumber)),
        ref.offset,
      );
    return this.cache.read(this.columnFamilyId, userKey, ref);
  }

  /** Forgets blob file `number` (see BlobFileCache.evict). */
  evict(number: number): void {
    this.cache.evict(number);
  }

  /** Closes the source's own cache (a shared one is its owner's to close). Idempotent. */
  close(): void {
    if (this.owned) this.cache.close();
  }
}
