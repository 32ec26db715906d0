/**
 * ShaleLevel: the shale engine (@shale/db) as an abstract-level 3 database, so the Level
 * ecosystem (sublevels, encodings, hooks, events, level-read-stream, many-level...) runs on
 * it. abstract-level does the public API (argument checks, encodings, deferred open,
 * sublevels, hooks, events, `limit`); this class implements its private API with the
 * engine's synchronous calls — a `get` or `put` is done before its promise is even
 * returned, with no thread-pool hop (classic-level's cost).
 *
 * Contract with abstract-level (its README, "Private API For Implementors"):
 * - formats: `view`, `buffer` and `utf8` are native; every value handed out is
 *   caller-owned memory: the engine's `get`/`getMany` copies, or (iterators) copies made
 *   here (encodings.ts).
 * - snapshots: implicit (an iterator reads at its creation) and explicit (`db.snapshot()`
 *   is an engine snapshot, released by `snapshot.close()`).
 * - writes: `put`/`del` are one engine write each; `batch([...])` and the chained batch are
 *   one WriteBatch: atomic, one WAL record. `sync: true` fsyncs the WAL.
 * - `clear(range)` is the engine's `clear`: one atomic batch, a range tombstone (constant
 *   cost whatever the range's size) or, with a `limit`, that many point deletes; with an
 *   explicit `snapshot` the keys of the snapshot are deleted one by one in one batch (keys
 *   written since stay).
 * - errors: ShaleErrors become Level codes (errors.ts).
 *
 * Threading: everything runs on the caller's thread; flushes and compactions run in the
 * engine's worker threads.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ShaleError } from "@shale/base";
import {
  type ClearOptions,
  type ColumnFamilyHandle,
  DB,
  type DbOptions,
  type ReadOptions,
  type Snapshot,
  WriteBatch,
  type WriteOptions,
} from "@shale/db";
import {
  type AbstractBatchOperation,
  type AbstractBatchOptions,
  type AbstractChainedBatch,
  type AbstractDatabaseOptions,
  type AbstractDelOptions,
  AbstractLevel,
  type AbstractOpenOptions,
  type AbstractPutOptions,
  AbstractSnapshot,
} from "abstract-level";
import { type BatchTarget, ShaleChainedBatch } from "./chained-batch.js";
import { decodeUtf8, ownedAs, resolveEncoding, withEncodings } from "./encodings.js";
import { levelError, ShaleLevelError } from "./errors.js";
import {
  type PrivateIteratorOptions,
  ShaleCursor,
  ShaleIterator,
  ShaleKeyIterator,
  ShaleValueIterator,
} from "./iterator.js";
import { levelEngineOptions } from "./open-options.js";
import type {
  PrivateClearOptions as CommonClearOptions,
  PrivateReadOptions as CommonReadOptions,
  PrivateBatchOperation,
  PrivateWriteOptions,
} from "./private-api.js";
import { engineRange } from "./range.js";
import { ShaleSublevel } from "./sublevel.js";

export { ShaleSublevel } from "./sublevel.js";

type Format = Buffer | Uint8Array | string;
type Key = Uint8Array | string;

/** Engine options a ShaleLevel does not take: Level's order is always bytewise. */
type EngineOptions = Omit<DbOptions, "createIfMissing" | "errorIfExists" | "comparator">;

/**
 * Options of `new ShaleLevel(location, options)` and `db.open(options)`: abstract-level's
 * (`keyEncoding`, `valueEncoding`, `createIfMissing`, `errorIfExists`, `passive`),
 * classic-level's tuning names, and any other engine option under `shale`.
 */
export interface ShaleLevelOptions<K = string, V = string> extends AbstractDatabaseOptions<K, V> {
  /**
   * Block cache bytes (classic-level's name; the engine's `blockCacheSize`). Default: the
   * engine's, sized to the machine (1/16 of its memory, 32 MiB to 1 GiB).
   */
  cacheSize?: number;
  /** Uncompressed bytes per data block. Default: 4096. */
  blockSize?: number;
  /** Bytes of memtable before it is flushed to a table. Default: 64 MiB. */
  writeBufferSize?: number;
  /** Snappy-compress data blocks (classic-level's boolean). Default: true. */
  compression?: boolean;
  /** Most table files kept open at once. Default: 1000. */
  maxOpenFiles?: number;
  /**
   * The column family this database reads and writes: other families of the directory are
   * opened and left as they are. Created if missing (unless `createIfMissing` is false, then
   * InvalidArgument naming it). Its own engine options: `shale.columnFamilies[name]`.
   * Default: "default".
   */
  columnFamily?: string;
  /**
   * Any other engine option (@shale/db `DbOptions`: bloom bits, compaction triggers,
   * statistics, file system, merge operator...). The named options above win over these.
   * Default: none.
   */
  shale?: EngineOptions;
}

/** Private-API options of reads: formats, and the read options Level has. */
interface PrivateReadOptions extends CommonReadOptions {
  snapshot?: ShaleLevelSnapshot | null;
  fillCache?: unknown;
}

interface PrivateClearOptions extends CommonClearOptions {
  snapshot?: ShaleLevelSnapshot | null;
}

const SYNC: WriteOptions = Object.freeze({ sync: true });

function writeOptions(options: PrivateWriteOptions | undefined): WriteOptions | undefined {
  return options !== undefined && options.sync === true ? SYNC : undefined;
}

/** The engine's read options of a private-API read; undefined (the fast path) when none. */
function readOptions(options: PrivateReadOptions): ReadOptions | undefined {
  const snapshot = options.snapshot;
  const fillCache = options.fillCache;
  if (snapshot == null && typeof fillCache !== "boolean") return undefined;
  const ro: ReadOptions = {};
  if (snapshot != null) ro.snapshot = snapshot.engineSnapshot;
  if (typeof fillCache === "boolean") ro.fillCache = fillCache;
  return ro;
}

/** The engine options of an open. */
function engineOptions(
  options: ShaleLevelOptions<unknown, unknown> & AbstractOpenOptions,
): DbOptions {
  const shale = options.shale;
  if (shale !== undefined && typeof shale === "object" && shale !== null && "comparator" in shale)
    throw ShaleError.invalidArgument(
      "options.shale.comparator: a Level database keeps keys in bytewise order",
    );
  const out = levelEngineOptions(options) as DbOptions;
  if (options.maxOpenFiles !== undefined) out.maxOpenFiles = options.maxOpenFiles;
  return out;
}

/** The manifest: what the private API below does (level-supports). */
function manifest() {
  return {
    implicitSnapshots: true,
    explicitSnapshots: true,
    permanence: true,
    seek: true,
    createIfMissing: true,
    errorIfExists: true,
    has: true,
    getSync: true,
    encodings: { view: true, buffer: true, utf8: true },
    // Reads are synchronous underneath: there is nothing in flight for a signal to abort
    // (abstract-level still refuses calls once a signal fired).
    signals: { iterators: false },
    additionalMethods: {},
  };
}

/** Write options of `put`, `del` and `batch`: abstract-level's and `sync`. */
export interface ShaleLevelWriteOptions {
  /** fsync the WAL before the write resolves (survives a power cut). Default: false. */
  sync?: boolean;
}

// The write calls with `sync` in their types (abstract-level's types have no such option;
// classic-level adds it the same way). Only types: AbstractLevel implements them.
export interface ShaleLevel<KDefault = string, VDefault = string> {
  put(key: KDefault, value: VDefault): Promise<void>;
  put<K = KDefault, V = VDefault>(
    key: K,
    value: V,
    options: AbstractPutOptions<K, V> & ShaleLevelWriteOptions,
  ): Promise<void>;
  del(key: KDefault): Promise<void>;
  del<K = KDefault>(key: K, options: AbstractDelOptions<K> & ShaleLevelWriteOptions): Promise<void>;
  batch(operations: Array<AbstractBatchOperation<this, KDefault, VDefault>>): Promise<void>;
  batch<K = KDefault, V = VDefault>(
    operations: Array<AbstractBatchOperation<this, K, V>>,
    options: AbstractBatchOptions<K, V> & ShaleLevelWriteOptions,
  ): Promise<void>;
  batch(): AbstractChainedBatch<this, KDefault, VDefault>;
}

/** An explicit snapshot: an engine snapshot, released when the Level snapshot closes. */
export class ShaleLevelSnapshot extends AbstractSnapshot {
  /** @internal the engine's snapshot (what reads pass as `snapshot`). */
  readonly engineSnapshot: Snapshot;

  constructor(options: { owner: unknown }, engineSnapshot: Snapshot) {
    // abstract-level's types declare no constructor argument; the class takes { owner }.
    super(...([options] as unknown as []));
    this.engineSnapshot = engineSnapshot;
  }

  async _close(): Promise<void> {
    this.engineSnapshot.release();
  }
}

/**
 * A shale database with the abstract-level 3 API.
 *
 * ```ts
 * const db = new ShaleLevel("./db", { valueEncoding: "json" });
 * await db.put("a", { x: 1 });
 * await db.get("a"); // { x: 1 }
 * ```
 *
 * `db.engine` is the @shale/db `DB` underneath (while open), for what Level has no word for
 * (flush, compactRange, properties, statistics).
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface above only adds overloads (with `sync`) to methods AbstractLevel implements
export class ShaleLevel<KDefault = string, VDefault = string>
  extends AbstractLevel<Format, KDefault, VDefault>
  implements BatchTarget
{
  /** The database directory. */
  readonly location: string;
  private db: DB | undefined;
  /** What reads and writes go to: the engine, or its `columnFamily` handle. */
  private store: DB | ColumnFamilyHandle | undefined;
  /** @internal the `columnFamily` handle (undefined: default), for batches. */
  family: ColumnFamilyHandle | undefined;
  private readonly scratch = new WriteBatch();

  constructor(location: string, options?: ShaleLevelOptions<KDefault, VDefault>) {
    if (typeof location !== "string" || location === "")
      throw new TypeError("The first argument 'location' must be a non-empty string");
    super(manifest(), withEncodings(options));
    this.location = location;
    this.supports.encodings["msgpack"] = true;
  }

  /**
   * The @shale/db engine underneath. REQUIRES: the database is open (else
   * LEVEL_DATABASE_NOT_OPEN).
   */
  get engine(): DB {
    const db = this.db;
    if (db === undefined || this.status !== "open")
      throw new ShaleLevelError(ShaleError.closed("the database is not open"));
    return db;
  }

  // biome-ignore lint/suspicious/noExplicitAny: overrides abstract-level's overloads
  override keyEncoding(encoding?: any): any {
    return super.keyEncoding(resolveEncoding(encoding) as never);
  }

  // biome-ignore lint/suspicious/noExplicitAny: overrides abstract-level's overloads
  override valueEncoding(encoding?: any): any {
    return super.valueEncoding(resolveEncoding(encoding) as never);
  }

  async _open(options: ShaleLevelOptions<unknown, unknown> & AbstractOpenOptions): Promise<void> {
    try {
      const engine = engineOptions(options);
      this.checkExists(engine);
      const family = options.columnFamily ?? "default";
      if (typeof family !== "string" || family === "")
        throw new TypeError("options.columnFamily must be a non-empty string");
      if (family !== "default") {
        engine.columnFamilies = { ...engine.columnFamilies };
        engine.columnFamilies[family] ??= {};
        engine.createMissingColumnFamilies = engine.createIfMissing !== false;
      }
      const db = await DB.open(this.location, engine);
      if (family !== "default" && !db.listColumnFamilies().includes(family)) {
        await db.close();
        throw ShaleError.invalidArgument(
          `column family ${JSON.stringify(family)} does not exist in ${this.location} (createIfMissing is false)`,
        );
      }
      this.db = db;
      this.family = family === "default" ? undefined : db.columnFamily(family);
      this.store = this.family ?? db;
    } catch (e) {
      throw levelError(e);
    }
  }

  /**
   * `createIfMissing: false` and no database in the directory (no CURRENT file, on the
   * configured file system): InvalidArgument saying the database "does not exist", Level's
   * (and LevelDB's) wording, decided from the directory rather than from an engine message.
   * A best-efforts open decides for itself (it can open a directory without CURRENT).
   */
  private checkExists(engine: DbOptions): void {
    if (engine.createIfMissing !== false || engine.bestEffortsRecovery === true) return;
    const current = join(this.location, "CURRENT");
    const exists = engine.fs !== undefined ? engine.fs.exists(current) : existsSync(current);
    if (!exists)
      throw ShaleError.invalidArgument(
        `the database ${this.location} does not exist (createIfMissing is false)`,
      );
  }

  async _close(): Promise<void> {
    const db = this.db;
    this.db = undefined;
    this.store = undefined;
    this.family = undefined;
    try {
      await db?.close();
    } catch (e) {
      throw levelError(e);
    }
  }

  async _get(key: Key, options: PrivateReadOptions): Promise<Key | undefined> {
    return this._getSync(key, options);
  }

  _getSync(key: Key, options: PrivateReadOptions): Key | undefined {
    try {
      const db = this.store!;
      const format = options.valueEncoding;
      if (format === "utf8") {
        // Decoded at once: the zero-copy view is enough (valid until the next engine call).
        const view = db.getView(key, readOptions(options));
        return view === undefined ? undefined : decodeUtf8(view);
      }
      const v = db.get(key, readOptions(options));
      return v === undefined ? undefined : ownedAs(v, format);
    } catch (e) {
      throw levelError(e);
    }
  }

  async _getMany(keys: Key[], options: PrivateReadOptions): Promise<(Key | undefined)[]> {
    try {
      const values = this.store!.getMany(keys, readOptions(options));
      const format = options.valueEncoding;
      if (format === "view") return values;
      const out = new Array<Key | undefined>(values.length);
      for (let i = 0; i < values.length; i++) {
        const v = values[i];
        out[i] = v === undefined ? undefined : ownedAs(v, format);
      }
      return out;
    } catch (e) {
      throw levelError(e);
    }
  }

  async _has(key: Key, options: PrivateReadOptions): Promise<boolean> {
    try {
      return this.store!.has(key, readOptions(options));
    } catch (e) {
      throw levelError(e);
    }
  }

  async _hasMany(keys: Key[], options: PrivateReadOptions): Promise<boolean[]> {
    try {
      const db = this.store!;
      const ro = readOptions(options);
      const out = new Array<boolean>(keys.length);
      for (let i = 0; i < keys.length; i++) out[i] = db.has(keys[i]!, ro);
      return out;
    } catch (e) {
      throw levelError(e);
    }
  }

  async _put(key: Key, value: Key, options: PrivateWriteOptions): Promise<void> {
    try {
      this.store!.put(key, value, writeOptions(options));
    } catch (e) {
      throw levelError(e);
    }
  }

  async _del(key: Key, options: PrivateWriteOptions): Promise<void> {
    try {
      this.store!.delete(key, writeOptions(options));
    } catch (e) {
      throw levelError(e);
    }
  }

  async _batch(operations: PrivateBatchOperation[], options: PrivateWriteOptions): Promise<void> {
    const batch = this.scratch.clear();
    try {
      for (let i = 0; i < operations.length; i++) {
        const op = operations[i]!;
        if (op.type === "put") batch.put(op.key, op.value!, this.family);
        else batch.delete(op.key, this.family);
      }
      this.db!.write(batch, writeOptions(options));
    } catch (e) {
      throw levelError(e);
    } finally {
      batch.clear();
    }
  }

  _chainedBatch(): ShaleChainedBatch {
    return new ShaleChainedBatch(this as never, this);
  }

  /** @internal the chained batch's write. */
  writeBatch(batch: WriteBatch, options: PrivateWriteOptions): void {
    this.db!.write(batch, writeOptions(options));
  }

  async _clear(options: PrivateClearOptions): Promise<void> {
    try {
      this.clearNow(options);
    } catch (e) {
      throw levelError(e);
    }
  }

  private clearNow(options: PrivateClearOptions): void {
    const db = this.store!;
    if (options.snapshot == null) {
      // The engine's clear: one atomic batch (a range tombstone without a limit).
      const o = engineRange<ClearOptions>(options, {});
      if (options.limit >= 0) o.limit = options.limit;
      if (options.reverse === true) o.reverse = true;
      db.clear(o);
      return;
    }
    // Only what the snapshot holds goes (keys written since stay): one delete per key of
    // the snapshot's range, in one batch.
    if (options.limit === 0) return;
    const cursor = new ShaleCursor(db, cursorOptions(options));
    const batch = new WriteBatch();
    try {
      const limit = options.limit < 0 ? Infinity : options.limit;
      for (let n = 0; n < limit && cursor.step(); n++) batch.delete(cursor.key(), this.family);
    } finally {
      cursor.close();
    }
    this.db!.write(batch);
  }

  _iterator(options: PrivateIteratorOptions): ShaleIterator {
    return new ShaleIterator(this as never, this.store!, options);
  }

  _keys(options: PrivateIteratorOptions): ShaleKeyIterator {
    return new ShaleKeyIterator(this as never, this.store!, options);
  }

  _values(options: PrivateIteratorOptions): ShaleValueIterator {
    return new ShaleValueIterator(this as never, this.store!, options);
  }

  _snapshot(options: { owner: unknown }): ShaleLevelSnapshot {
    try {
      return new ShaleLevelSnapshot(options, this.db!.snapshot());
    } catch (e) {
      throw levelError(e);
    }
  }

  _sublevel(name: string | string[], options: object): ShaleSublevel {
    return new ShaleSublevel(this, name, options);
  }
}

/** A clear's range as iterator options (keys as bytes, so they can become bounds). */
function cursorOptions(options: PrivateClearOptions): PrivateIteratorOptions {
  const o: PrivateIteratorOptions = {
    reverse: options.reverse === true,
    limit: options.limit,
    keyEncoding: "view",
    valueEncoding: "view",
    values: false,
  };
  if (options.gt !== undefined) o.gt = options.gt;
  if (options.gte !== undefined) o.gte = options.gte;
  if (options.lt !== undefined) o.lt = options.lt;
  if (options.lte !== undefined) o.lte = options.lte;
  if (options.snapshot != null) o.snapshot = options.snapshot;
  return o;
}
