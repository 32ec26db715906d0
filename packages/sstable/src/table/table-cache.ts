/**
 * TableCache: open TableReaders by file number, at most `capacity` of them (least recently
 * used closed first), like RocksDB's table cache bounded by `max_open_files`.
 *
 * A reader closed by the LRU bound keeps serving the iterators already open on it (its file
 * closes when the last one closes); the next `get` opens the table again. Each file number
 * keeps one block-cache id for as long as the TableCache knows it, so a reopened table finds
 * its blocks still cached; `evict` forgets the file and erases its blocks.
 *
 * Thread-safety: one thread.
 */
import { type Comparator, type FileSystem, ShaleError, type Statistics } from "@shale/base";
import type { LRUCache, SharedBlockCache } from "@shale/block-cache";
import type { Block } from "../block/block.js";
import { TableReader } from "./table-reader.js";

export interface TableCacheOptions {
  /** Where tables live. */
  fs: FileSystem;
  /** The path of table `fileNumber` (e.g. `n => \`${dir}/${String(n).padStart(6, "0")}.sst\``). */
  path: (fileNumber: number) => string;
  /** Most tables open at once. Default: 1000. */
  capacity?: number;
  /** Order of user keys. Default: `bytewiseComparator`. */
  comparator?: Comparator;
  /** Block cache shared by the tables. Default: none. */
  blockCache?: LRUCache<Block>;
  /**
   * A cache shared across threads for point lookups' data blocks (TableReaderOptions
   * `sharedBlockCache`), keyed by file number: the tables' numbers must be unique among its
   * users (one database). A deleted table's blocks are not erased: its number is never
   * used again, and they leave by eviction. Default: none.
   */
  sharedBlockCache?: SharedBlockCache;
  /** Verify block checksums. Default: true. */
  verifyChecksums?: boolean;
  /** Keep index and filter blocks in the block cache. Default: true. */
  cacheIndexAndFilterBlocks?: boolean;
  /** Pin them there while a table is open. Default: true. */
  pinIndexAndFilterBlocks?: boolean;
  /** Counters for every reader. Default: none. */
  statistics?: Statistics;
}

interface OpenReader {
  readonly reader: TableReader;
  lastUse: number;
}

export class TableCache {
  private readonly options: TableCacheOptions;
  private readonly capacity: number;
  /** Open readers by file number, each with when `get` last returned it (a tick of `clock`). */
  private readonly readers = new Map<number, OpenReader>();
  private clock = 0;
  /** Block-cache id per known file number. */
  private readonly cacheIds = new Map<number, number>();
  private closed = false;

  constructor(options: TableCacheOptions) {
    if (typeof options !== "object" || options === null || typeof options.path !== "function") {
      throw new TypeError("TableCache needs options { fs, path }");
    }
    const capacity = options.capacity ?? 1000;
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw ShaleError.invalidArgument(`capacity must be an integer >= 1; got ${capacity}`);
    }
    this.options = options;
    this.capacity = capacity;
  }

  /** Number of open readers. */
  get size(): number {
    return this.readers.size;
  }

  /**
   * The reader of table `fileNumber` (opened if needed; `fileSize` is its size in bytes,
   * `largestSeqno` its largest sequence number as the MANIFEST records it, which an ingested
   * file's global seqno may come from: `TableReaderOptions.largestSeqno`; Default: unknown).
   * The reader belongs to the cache: do not close it. Throws what `TableReader.open` throws
   * (Corruption, IOError), and Closed after `close()`.
   */
  get(fileNumber: number, fileSize: number, largestSeqno?: number): TableReader {
    if (this.closed) throw ShaleError.closed("table cache is closed");
    const found = this.readers.get(fileNumber);
    if (found !== undefined) {
      // A hit only stamps the reader: the LRU order is worked out when a table must close.
      found.lastUse = ++this.clock;
      return found.reader;
    }
    const o = this.options;
    const fileName = o.path(fileNumber);
    const file = o.fs.openRandomAccess(fileName);
    let cacheId = this.cacheIds.get(fileNumber);
    if (cacheId === undefined && o.blockCache !== undefined) {
      cacheId = o.blockCache.newId();
      this.cacheIds.set(fileNumber, cacheId);
    }
    let reader: TableReader;
    try {
      reader = TableReader.open(file, {
        fileSize,
        fileName,
        fileNumber,
        ...(largestSeqno !== undefined ? { largestSeqno } : {}),
        ...(o.comparator !== undefined ? { comparator: o.comparator } : {}),
        ...(o.blockCache !== undefined ? { blockCache: o.blockCache } : {}),
        ...(cacheId !== undefined ? { cacheId } : {}),
        ...(o.sharedBlockCache !== undefined ? { sharedBlockCache: o.sharedBlockCache } : {}),
        ...(o.verifyChecksums !== undefined ? { verifyChecksums: o.verifyChecksums } : {}),
        ...(o.cacheIndexAndFilterBlocks !== undefined
          ? { cacheIndexAndFilterBlocks: o.cacheIndexAndFilterBlocks }
          : {}),
        ...(o.pinIndexAndFilterBlocks !== undefined
          ? { pinIndexAndFilterBlocks: o.pinIndexAndFilterBlocks }
          : {}),
        ...(o.statistics !== undefined ? { statistics: o.statistics } : {}),
      });
    } catch (e) {
      file.close();
      throw e;
    }
    this.readers.set(fileNumber, { reader, lastUse: ++this.clock });
    if (this.readers.size > this.capacity) this.closeLeastRecentlyUsed();
    return reader;
  }

  /** Closes the reader used longest ago: a scan, paid only when a table opens over capacity. */
  private closeLeastRecentlyUsed(): void {
    let oldest = -1;
    let oldestUse = Number.POSITIVE_INFINITY;
    for (const [n, open] of this.readers) {
      if (open.lastUse < oldestUse) {
        oldest = n;
        oldestUse = open.lastUse;
      }
    }
    const r = this.readers.get(oldest)!;
    this.readers.delete(oldest);
    r.reader.close();
  }

  /**
   * Forgets table `fileNumber` (e.g. deleted by compaction): closes its reader, and its blocks
   * leave the block cache in the next macrotasks, a bounded step each (`eraseIdSoon`): a
   * compaction's inputs can hold thousands of cached blocks (~1-2 µs each to erase: 40-65
   * ms at once for four 45 MB tables), and a synchronous loop of reads would pause for
   * them. Until then they only take room (nothing can look them up: the id is not reused).
   * Unknown numbers are ignored.
   */
  evict(fileNumber: number): void {
    const open = this.readers.get(fileNumber);
    if (open !== undefined) {
      this.readers.delete(fileNumber);
      open.reader.close();
    }
    const cacheId = this.cacheIds.get(fileNumber);
    if (cacheId !== undefined) {
      this.cacheIds.delete(fileNumber);
      this.options.blockCache?.eraseIdSoon(cacheId);
    }
  }

  /**
   * Erases the blocks of `fileNumber` from the block cache now, and leaves its reader open:
   * for a table just replaced by a compaction, which iterators made before may still read
   * (`evict` is for a table no version holds any more).
   */
  eraseBlocks(fileNumber: number): void {
    const cacheId = this.cacheIds.get(fileNumber);
    if (cacheId !== undefined) this.options.blockCache?.eraseId(cacheId);
  }

  /** Closes every reader. Idempotent; later `get` calls throw Closed. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const r of this.readers.values()) r.reader.close();
    this.readers.clear();
  }
}
