/**
 * ShaleLevel for a browser page: a drop-in for `browser-level` (same constructor, encodings,
 * sublevels, hooks and events: abstract-level does the public API), backed by a shale
 * database on the origin private file system, run in a dedicated worker by `openInWorker`
 * (`shale/opfs`). A bundle for the browser gets this file's class from `@shale/level` (the
 * package's `browser` entry); Node gets the synchronous one (../shale-level.ts).
 *
 * ```
 *   page                                  database worker (opfs-db-worker.js)
 *   new ShaleLevel("notes").put(k, v) -->  shale on OpfsFileSystem("notes"), path "db"
 *        (a promise per call)         <--  { id, value } in order
 * ```
 *
 * Contract with abstract-level (its README, "Private API For Implementors"):
 * - location: the name of the OPFS directory (browser-level's IndexedDB database name).
 * - formats: `view` (Uint8Array) and `utf8` are native; every value handed out is a copy
 *   the caller owns (structured-cloned from the worker).
 * - snapshots: implicit only. The worker answers requests in order and an iterator is
 *   created when `db.iterator()` is called, so it does not see later writes. No explicit
 *   snapshots (browser-level has none either).
 * - writes: `put`/`del`/`batch` are one engine write each (a batch atomic, one WAL record);
 *   `sync: true` flushes the OPFS handle before the promise resolves.
 * - `clear(range)` is the engine's `clear`: one atomic batch.
 * - errors: ShaleErrors become Level codes (../errors.ts); Busy (another tab or worker has
 *   the database open) is LEVEL_LOCKED, the cause of abstract-level's LEVEL_DATABASE_NOT_OPEN.
 *
 * Threading: nothing runs on the page's thread but message passing; the engine, its file
 * system and its background work run in workers.
 */
import { ShaleError } from "@shale/base";
import {
  type AbstractDatabaseOptions,
  AbstractLevel,
  type AbstractOpenOptions,
} from "abstract-level";
import {
  type Bytes,
  type ExportedFile,
  openInWorker,
  type WorkerClearOptions,
  type WorkerDatabase,
} from "shale/opfs";
import { decodeUtf8, resolveEncoding, withEncodings } from "../encodings.js";
import { levelError, ShaleLevelError } from "../errors.js";
import { levelEngineOptions } from "../open-options.js";
import type {
  PrivateBatchOperation,
  PrivateClearOptions,
  PrivateReadOptions,
  PrivateWriteOptions,
} from "../private-api.js";
import { engineRange } from "../range.js";
import { ShaleSublevel } from "../sublevel.js";
import { type PrivateIteratorOptions, WorkerLevelIterator } from "./iterator.js";

type Format = Uint8Array | string;
type Key = Uint8Array | string;

/** Options of `new ShaleLevel(name, options)` in the browser. */
export interface ShaleLevelOptions<K = string, V = string> extends AbstractDatabaseOptions<K, V> {
  /** Block cache bytes (the engine's `blockCacheSize`). Default: the engine's. */
  cacheSize?: number;
  /** Uncompressed bytes per data block. Default: 4096. */
  blockSize?: number;
  /** Bytes of memtable before it is flushed to a table. Default: the engine's. */
  writeBufferSize?: number;
  /** Snappy-compress data blocks. Default: true. */
  compression?: boolean;
  /** The database's path inside the OPFS directory. Default: "db". */
  path?: string;
  /** The database worker's script (openInWorker's `workerUrl`). Default: beside shale/opfs. */
  workerUrl?: string | URL;
  /** `OpfsFileSystem.open` options (`maxOpenHandles`, `transferSize`, `timeoutMs`, `workerUrl`). */
  fs?: Record<string, unknown>;
  /**
   * Any other engine option that can be posted to a worker (numbers, strings, booleans).
   * The named options above win over these. Default: none.
   */
  shale?: Record<string, unknown>;
}

function asFormat(value: Uint8Array | undefined, format: string | undefined): Key | undefined {
  if (value === undefined) return undefined;
  return format === "utf8" ? decodeUtf8(value) : value;
}

function writeOptions(options: PrivateWriteOptions | undefined): { sync: boolean } | undefined {
  return options?.sync === true ? { sync: true } : undefined;
}

/** The manifest: what the private API below does (level-supports). */
function manifest() {
  return {
    implicitSnapshots: true,
    explicitSnapshots: false,
    permanence: true,
    seek: true,
    createIfMissing: true,
    errorIfExists: true,
    has: true,
    getSync: false,
    encodings: { view: true, utf8: true },
    signals: { iterators: false },
    additionalMethods: {},
  };
}

/**
 * A shale database in a worker, on OPFS, with the abstract-level 3 API.
 *
 * `db.engine` is the `WorkerDatabase` underneath (while open), for what Level has no word
 * for (flush, compactRange, getProperty, exportDatabase).
 */
export class ShaleLevel<KDefault = string, VDefault = string> extends AbstractLevel<
  Format,
  KDefault,
  VDefault
> {
  /** The OPFS directory's name. */
  readonly location: string;
  private db: WorkerDatabase | undefined;

  constructor(location: string, options?: ShaleLevelOptions<KDefault, VDefault>) {
    if (typeof location !== "string" || location === "")
      throw new TypeError("The first argument 'location' must be a non-empty string");
    super(manifest(), withEncodings(options));
    this.location = location;
    this.supports.encodings["msgpack"] = true;
  }

  /** The database in its worker. REQUIRES: open (else LEVEL_DATABASE_NOT_OPEN). */
  get engine(): WorkerDatabase {
    const db = this.db;
    if (db === undefined || this.status !== "open")
      throw new ShaleLevelError(ShaleError.closed("the database is not open"));
    return db;
  }

  /**
   * Every file of the database (after a flush), to write to a directory that `open()` or
   * `new ShaleLevel(dir)` opens in Node. REQUIRES: open.
   */
  async exportDatabase(): Promise<ExportedFile[]> {
    try {
      return await this.engine.exportDatabase();
    } catch (e) {
      throw levelError(e);
    }
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
      const open: Parameters<typeof openInWorker>[1] = { db: levelEngineOptions(options) };
      if (options.path !== undefined) open.path = options.path;
      if (options.workerUrl !== undefined) open.workerUrl = options.workerUrl;
      if (options.fs !== undefined) open.fs = options.fs;
      this.db = await openInWorker(this.location, open);
    } catch (e) {
      throw levelError(e);
    }
  }

  async _close(): Promise<void> {
    const db = this.db;
    this.db = undefined;
    try {
      await db?.close();
    } catch (e) {
      throw levelError(e);
    }
  }

  async _get(key: Key, options: PrivateReadOptions): Promise<Key | undefined> {
    try {
      return asFormat(await this.db!.get(key), options.valueEncoding);
    } catch (e) {
      throw levelError(e);
    }
  }

  async _getMany(keys: Key[], options: PrivateReadOptions): Promise<(Key | undefined)[]> {
    try {
      const values = await this.db!.getMany(keys);
      const format = options.valueEncoding;
      if (format !== "utf8") return values;
      return values.map((v) => asFormat(v, format));
    } catch (e) {
      throw levelError(e);
    }
  }

  async _has(key: Key): Promise<boolean> {
    try {
      return (await this.db!.get(key)) !== undefined;
    } catch (e) {
      throw levelError(e);
    }
  }

  async _hasMany(keys: Key[]): Promise<boolean[]> {
    try {
      return (await this.db!.getMany(keys)).map((v) => v !== undefined);
    } catch (e) {
      throw levelError(e);
    }
  }

  async _put(key: Key, value: Key, options: PrivateWriteOptions): Promise<void> {
    try {
      await this.db!.put(key, value, writeOptions(options));
    } catch (e) {
      throw levelError(e);
    }
  }

  async _del(key: Key, options: PrivateWriteOptions): Promise<void> {
    try {
      await this.db!.del(key, writeOptions(options));
    } catch (e) {
      throw levelError(e);
    }
  }

  async _batch(operations: PrivateBatchOperation[], options: PrivateWriteOptions): Promise<void> {
    try {
      const ops = operations.map((op) =>
        op.type === "put"
          ? { type: "put" as const, key: op.key, value: op.value as Bytes }
          : { type: "del" as const, key: op.key },
      );
      await this.db!.batch(ops, writeOptions(options));
    } catch (e) {
      throw levelError(e);
    }
  }

  async _clear(options: PrivateClearOptions): Promise<void> {
    try {
      if (options.limit === 0) return;
      const o = engineRange<WorkerClearOptions>(options, {});
      if (options.limit > 0) o.limit = options.limit;
      if (options.reverse === true) o.reverse = true;
      await this.db!.clear(o);
    } catch (e) {
      throw levelError(e);
    }
  }

  _iterator(options: PrivateIteratorOptions): WorkerLevelIterator {
    return new WorkerLevelIterator(this as never, this.db!, options);
  }

  _sublevel(name: string | string[], options: object): ShaleSublevel {
    return new ShaleSublevel(this, name, options);
  }
}
