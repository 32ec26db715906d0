/**
 * `openReader(handle, options?)`: the worker side of `db.readerHandle()` (reader.ts has
 * the design and the consistency guarantee). It checks the handle, then opens a secondary
 * instance of the handle's directory in this thread (secondary/: no LOCK, no secondary
 * directory, writes refused) and wraps it in a Reader.
 *
 * What each reader costs: its own table cache (up to `maxOpenFiles` open tables, each with
 * its index and filter, in the block cache when `cacheIndexAndFilterBlocks`), its own
 * block cache (`blockCacheSize`, default as a database's; or pass one `blockCache` per
 * thread — an LRUCache is not shared across threads), its own copy of the writer's unflushed
 * data (memtables rebuilt from the WALs: up to the writer's write buffers), and one
 * registration file in the database's `secondaries/` directory. A database opened with
 * `sharedBlockCache` puts that cache's buffers in its handles: every reader then takes the
 * data blocks of its point lookups from that one cache (and fills it), as the writer does,
 * instead of keeping its own copy of each (its `blockCache` still holds its index and filter
 * blocks and its iterators' blocks).
 *
 * Threading: the calling thread (any thread of the writer's process, the writer's own
 * included).
 */
import {
  bytewiseComparator,
  type Comparator,
  reverseBytewiseComparator,
  ShaleError,
  type Statistics,
} from "@shale/base";
import { type LRUCache, SharedBlockCache } from "@shale/block-cache";
import type { Block } from "@shale/sstable";
import { READER_HANDLE_KIND, type ReaderHandle } from "../column-family/reader-handle.js";
import type { MergeOperator } from "../core/merge-operator.js";
import { ControlWord, isWriterClosed, readerControlOf } from "../core/reader-control.js";
import { DB } from "../db.js";
import { Reader } from "./reader.js";

/** Options of `openReader`; each as in DbOptions, for this reader alone. */
export interface ReaderOptions {
  /** The database's comparator; required unless it is a built-in (bytewise, reverse). */
  comparator?: Comparator;
  /**
   * The database's merge operator (same `name`); required unless it is a built-in
   * (max, uint64add, stringappend with its default delimiter).
   */
  mergeOperator?: MergeOperator;
  /** This reader's block cache (one per thread). Default: a new one of `blockCacheSize`. */
  blockCache?: LRUCache<Block>;
  /** Bytes of this reader's block cache. Default: as DbOptions.blockCacheSize. */
  blockCacheSize?: number;
  /** As DbOptions.cacheIndexAndFilterBlocks. Default: true. */
  cacheIndexAndFilterBlocks?: boolean;
  /** Tables this reader keeps open. Default: as DbOptions.maxOpenFiles. */
  maxOpenFiles?: number;
  /** This reader's statistics. Default: none. */
  statistics?: Statistics;
  /**
   * Read through the database's `sharedBlockCache` (when its handle has one). Default: true.
   */
  sharedBlockCache?: boolean;
}

const OPTION_NAMES = new Set([
  "comparator",
  "mergeOperator",
  "blockCache",
  "blockCacheSize",
  "cacheIndexAndFilterBlocks",
  "maxOpenFiles",
  "statistics",
  "sharedBlockCache",
]);

type BuiltInMerge = "max" | "uint64add" | "stringappend";
const BUILT_IN_MERGE = new Set<string>(["max", "uint64add", "stringappend"]);

/** How long the writer keeps files after this reader's last sign of life (ms). */
const LEASE_MS = 60_000;

/** Checks `handle`: TypeError for the wrong shape, InvalidArgument for bad contents. */
function checkHandle(handle: unknown): ReaderHandle {
  if (typeof handle !== "object" || handle === null)
    throw new TypeError("openReader takes the handle of db.readerHandle()");
  const h = handle as Partial<ReaderHandle>;
  if (h.kind !== READER_HANDLE_KIND)
    throw new TypeError("openReader takes the handle of db.readerHandle() (no handle kind)");
  if (typeof h.dir !== "string" || h.dir === "")
    throw new TypeError("reader handle: dir must be a non-empty string");
  if (typeof h.comparatorName !== "string")
    throw new TypeError("reader handle: comparatorName must be a string");
  if (h.mergeOperatorName !== null && typeof h.mergeOperatorName !== "string")
    throw new TypeError("reader handle: mergeOperatorName must be a string or null");
  if (
    h.sharedBlockCache !== null &&
    (typeof h.sharedBlockCache !== "object" || h.sharedBlockCache === undefined)
  )
    throw new TypeError("reader handle: sharedBlockCache must be a cache's buffers or null");
  return h as ReaderHandle;
}

function comparatorFor(handle: ReaderHandle, given: Comparator | undefined): Comparator {
  const name = handle.comparatorName;
  const c =
    given ??
    (name === bytewiseComparator.name
      ? bytewiseComparator
      : name === reverseBytewiseComparator.name
        ? reverseBytewiseComparator
        : undefined);
  if (c === undefined)
    throw ShaleError.invalidArgument(
      `the database orders keys with comparator "${name}": pass it as options.comparator`,
    );
  if (c.name !== name)
    throw ShaleError.invalidArgument(
      `options.comparator is "${c.name}"; the database's is "${name}"`,
    );
  return c;
}

function mergeOperatorFor(
  handle: ReaderHandle,
  given: MergeOperator | undefined,
): MergeOperator | BuiltInMerge | undefined {
  const name = handle.mergeOperatorName;
  if (given !== undefined) {
    if (name !== given.name)
      throw ShaleError.invalidArgument(
        `options.mergeOperator is "${given.name}"; the database's is ${name === null ? "none" : `"${name}"`}`,
      );
    return given;
  }
  if (name === null) return undefined;
  if (BUILT_IN_MERGE.has(name)) return name as BuiltInMerge;
  throw ShaleError.invalidArgument(
    `the database merges with "${name}": pass it as options.mergeOperator`,
  );
}

/**
 * Opens a read-only reader of the database `handle` (from `db.readerHandle()`, posted to
 * this thread) names. Bad handle: TypeError or InvalidArgument; the database closed:
 * Closed; an unknown option: InvalidArgument.
 */
export async function openReader(handle: ReaderHandle, options?: ReaderOptions): Promise<Reader> {
  const h = checkHandle(handle);
  const control = readerControlOf(h.control);
  if (options !== undefined && (typeof options !== "object" || options === null))
    throw new TypeError("openReader options must be an object");
  for (const key of Object.keys(options ?? {}))
    if (!OPTION_NAMES.has(key)) throw ShaleError.invalidArgument(`unknown option "${key}"`);
  const { comparator, mergeOperator, sharedBlockCache, ...rest } = options ?? {};
  if (sharedBlockCache !== undefined && typeof sharedBlockCache !== "boolean")
    throw new TypeError("options.sharedBlockCache must be a boolean");
  const shared =
    h.sharedBlockCache !== null && sharedBlockCache !== false
      ? SharedBlockCache.attach(h.sharedBlockCache)
      : undefined;
  const cmp = comparatorFor(h, comparator);
  const merge = mergeOperatorFor(h, mergeOperator);
  if (isWriterClosed(control)) throw ShaleError.closed("the database was closed by its writer");
  // Loaded before the open's catch-up: everything acknowledged before it is read there.
  const seen = Atomics.load(control, ControlWord.Changes);
  const db = await DB.openAsSecondary(h.dir, undefined, {
    ...rest,
    comparator: cmp,
    ...(merge !== undefined ? { mergeOperator: merge } : {}),
    createIfMissing: false,
    secondaryLeaseMs: LEASE_MS,
    ...(shared !== undefined ? { sharedBlockCache: shared } : {}),
  });
  if (isWriterClosed(control)) {
    await db.close();
    throw ShaleError.closed("the database was closed by its writer");
  }
  return new Reader(db, control, cmp, LEASE_MS, seen);
}
