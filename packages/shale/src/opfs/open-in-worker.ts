/**
 * `openInWorker`: a shale database on OPFS for a page, run in a dedicated worker (the only
 * place OPFS sync access handles exist), behind a small promise API.
 *
 * ```ts
 * import { openInWorker } from "shale/opfs";
 * const db = await openInWorker("notes");
 * await db.put("note:1", "buy milk");
 * const v = await db.get("note:1");            // Uint8Array | undefined
 * await db.batch([{ type: "put", key: "a", value: "1" }, { type: "del", key: "note:1" }]);
 * for await (const [key, value] of db.iterator({ gte: "a", limit: 10 })) { ... }
 * await db.close();
 * ```
 *
 * The worker is `opfs-db-worker.js` beside this module (or `workerUrl`); a bundle builds
 * `shale/opfs/db-worker` to that name, with `opfs-io-worker.js` (`shale/opfs/io-worker`)
 * beside it. Requests are answered in order; errors arrive as `ShaleError`s with the
 * worker's code (Busy: another tab or worker has the database open), or `TypeError`s.
 */
import { ErrorCode, ShaleError } from "@shale/base";
import type { BatchOperation, DbReply, DbRequest, WireRange } from "./db-protocol.js";
import type { ExportedFile } from "./export-files.js";

export type { BatchOperation } from "./db-protocol.js";
export type { ExportedFile } from "./export-files.js";

/** Keys and values: bytes, or strings (UTF-8). */
export type Bytes = string | Uint8Array;

export interface OpenInWorkerOptions {
  /** The database's path inside the OPFS directory. Default: "db". */
  path?: string;
  /** Options of shale's `open` (structured-cloneable ones: numbers, strings, booleans). */
  db?: Record<string, unknown>;
  /** `OpfsFileSystem.open` options (`maxOpenHandles`, `transferSize`, `timeoutMs`, `workerUrl`). */
  fs?: Record<string, unknown>;
  /** The database worker's script. Default: `opfs-db-worker.js` beside this module. */
  workerUrl?: string | URL;
}

export interface WorkerWriteOptions {
  /** Made durable (the sync access handle's flush) before the promise resolves. Default: false. */
  sync?: boolean;
}

/** An iterator's range: Level's vocabulary; bounds are keys. */
export interface WorkerIteratorOptions {
  gt?: Bytes;
  gte?: Bytes;
  lt?: Bytes;
  lte?: Bytes;
  reverse?: boolean;
  limit?: number;
  /** Entries fetched per round trip to the worker. Default: 100. */
  batchSize?: number;
}

/** A shale database running in a worker; every method is a promise. */
export interface WorkerDatabase {
  get(key: Bytes): Promise<Uint8Array | undefined>;
  /** The values of `keys`, in order (undefined where missing): one round trip. */
  getMany(keys: readonly Bytes[]): Promise<(Uint8Array | undefined)[]>;
  put(key: Bytes, value: Bytes, options?: WorkerWriteOptions): Promise<void>;
  del(key: Bytes, options?: WorkerWriteOptions): Promise<void>;
  /** Applies every operation atomically. */
  batch(operations: readonly BatchOperation[], options?: WorkerWriteOptions): Promise<void>;
  /**
   * Deletes every key of the range in one atomic batch (the engine's `clear`: a range
   * tombstone; with `limit`, that many point deletes from the start, or the end with
   * `reverse`).
   */
  clear(options?: WorkerClearOptions): Promise<void>;
  /**
   * Entries in key order (or reverse), fetched `batchSize` at a time; copies the caller
   * owns. The iterator reads the database as of this call (requests reach the worker in
   * order: a write made after it is not seen).
   */
  iterator(options?: WorkerIteratorOptions): WorkerIterator;
  /** Writes the memtable to a table file. */
  flush(): Promise<void>;
  /** Compacts every level into the last one (the engine's `compactRange()`). */
  compactRange(): Promise<void>;
  /** The engine's `getProperty(name)` ("shale.levelstats", "rocksdb.stats", ...). */
  getProperty(name: string): Promise<string | undefined>;
  /**
   * Every file of the database's directory, after a flush: the same format as in Node, so
   * the files written to a directory open with `open()` there (and in RocksDB's tools).
   */
  exportDatabase(): Promise<ExportedFile[]>;
  /**
   * Closes the database and its file system. The worker is kept for the next `openInWorker`
   * of the page (one idle worker per script), else stopped. Idempotent.
   */
  close(): Promise<void>;
}

/** A range to clear: Level's vocabulary; bounds are keys. */
export interface WorkerClearOptions {
  gt?: Bytes;
  gte?: Bytes;
  lt?: Bytes;
  lte?: Bytes;
  /** With `limit`: the last keys of the range go first. Default: false. */
  reverse?: boolean;
  /** Most keys deleted. Default: all. */
  limit?: number;
  /** Made durable before the promise resolves. Default: false. */
  sync?: boolean;
}

/** An iterator over a database in a worker. */
export interface WorkerIterator extends AsyncIterableIterator<[Uint8Array, Uint8Array]> {
  /**
   * The next entries: those already fetched, else up to `batchSize` fetched now; an empty
   * array at the end.
   */
  nextBatch(): Promise<[Uint8Array, Uint8Array][]>;
  /**
   * Moves to the first key >= target (reverse: the last key <= target), within the range;
   * what was fetched and not yet read is dropped.
   */
  seek(target: Bytes): void;
  /** Releases the worker's iterator. Idempotent. */
  close(): Promise<void>;
}

type WorkerListener = (event: { data?: unknown; message?: string }) => void;

interface PageWorker {
  postMessage(message: unknown): void;
  terminate(): void;
  addEventListener(type: "message" | "error", listener: WorkerListener): void;
  removeEventListener(type: "message" | "error", listener: WorkerListener): void;
}

/**
 * A database worker whose database closed cleanly, kept (one per script) for the next
 * `openInWorker` of the page: starting a module worker and compiling the engine is about
 * half the cost of an open.
 */
const idleWorkers = new Map<string, PageWorker>();

const encoder = new TextEncoder();

function bytes(what: string, value: unknown): Uint8Array {
  if (typeof value === "string") return encoder.encode(value);
  if (value instanceof Uint8Array) return value;
  throw new TypeError(`${what} must be a string or a Uint8Array`);
}

function writeSync(options: WorkerWriteOptions | undefined): boolean {
  if (options === undefined) return false;
  if (typeof options !== "object" || options === null)
    throw new TypeError("write options must be an object");
  for (const k of Object.keys(options)) {
    if (k !== "sync") throw ShaleError.invalidArgument(`unknown write option ${k}`);
  }
  if (options.sync !== undefined && typeof options.sync !== "boolean")
    throw new TypeError("sync must be a boolean");
  return options.sync === true;
}

function fromReply(error: { code: string; message: string }): Error {
  if (error.code === "TypeError") return new TypeError(error.message);
  const codes = Object.values(ErrorCode) as string[];
  if (!codes.includes(error.code)) return new Error(error.message);
  const prefix = `${error.code}: `;
  const message = error.message.startsWith(prefix)
    ? error.message.slice(prefix.length)
    : error.message;
  return new ShaleError(error.code as ErrorCode, message);
}

/** A request before its id is given. */
type Unnumbered<T> = T extends unknown ? Omit<T, "id"> : never;

const RANGE_KEYS = ["gt", "gte", "lt", "lte"] as const;

/** The range of an iterator or a clear, checked; `what` names the call in errors. */
function checkedRange(
  what: string,
  options: WorkerIteratorOptions & { sync?: unknown },
  allowed: readonly string[],
): WireRange {
  if (typeof options !== "object" || options === null)
    throw new TypeError(`${what} options must be an object`);
  const range: WireRange = {};
  for (const k of Object.keys(options)) {
    if (!allowed.includes(k)) throw ShaleError.invalidArgument(`unknown ${what} option ${k}`);
  }
  for (const k of RANGE_KEYS)
    if (options[k] !== undefined) range[k] = bytes(`${what} option ${k}`, options[k]);
  if (options.reverse !== undefined) {
    if (typeof options.reverse !== "boolean")
      throw new TypeError(`${what} option reverse must be a boolean`);
    range.reverse = options.reverse;
  }
  if (options.limit !== undefined) {
    if (typeof options.limit !== "number")
      throw new TypeError(`${what} option limit must be a number`);
    range.limit = options.limit;
  }
  return range;
}

const ITERATOR_OPTIONS = ["gt", "gte", "lt", "lte", "reverse", "limit", "batchSize"] as const;
const CLEAR_OPTIONS = ["gt", "gte", "lt", "lte", "reverse", "limit", "sync"] as const;

function wireRange(options: WorkerIteratorOptions): { range: WireRange; batchSize: number } {
  const range = checkedRange("iterator", options, ITERATOR_OPTIONS);
  const batchSize = options.batchSize ?? 100;
  if (typeof batchSize !== "number")
    throw new TypeError("iterator option batchSize must be a number");
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw ShaleError.invalidArgument(
      `iterator option batchSize: ${batchSize} is not a positive integer`,
    );
  }
  return { range, batchSize };
}

/**
 * Starts a dedicated worker holding the shale database at `options.path` (default "db") of
 * the OPFS directory `name`, and resolves once it is open. Rejects with the worker's error:
 * Busy when another tab or worker holds the database, NotSupported where OPFS cannot run.
 */
export async function openInWorker(
  name: string,
  options: OpenInWorkerOptions = {},
): Promise<WorkerDatabase> {
  if (typeof name !== "string") throw new TypeError("openInWorker: name must be a string");
  if (typeof options !== "object" || options === null)
    throw new TypeError("openInWorker: options must be an object");
  for (const k of Object.keys(options)) {
    if (!["path", "db", "fs", "workerUrl"].includes(k))
      throw ShaleError.invalidArgument(`openInWorker: unknown option ${k}`);
  }
  if (options.path !== undefined && typeof options.path !== "string")
    throw new TypeError("openInWorker: path must be a string");
  const WorkerClass = (
    globalThis as unknown as { Worker?: new (u: string | URL, o: object) => PageWorker }
  ).Worker;
  if (typeof WorkerClass !== "function") {
    throw ShaleError.notSupported(
      "openInWorker needs Web Workers (a browser page): use open() with MemoryFileSystem",
    );
  }
  const script = String(options.workerUrl ?? new URL("./opfs-db-worker.js", import.meta.url));
  const reused = idleWorkers.get(script);
  idleWorkers.delete(script);
  const worker = reused ?? new WorkerClass(script, { type: "module", name: "shale-db" });
  const pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: unknown) => void }
  >();
  let nextId = 1;
  let closed = false;
  let failure: Error | undefined;
  const onMessage: WorkerListener = (event) => {
    const reply = event.data as DbReply;
    const p = pending.get(reply.id);
    if (p === undefined) return;
    pending.delete(reply.id);
    if (reply.error !== undefined) p.reject(fromReply(reply.error));
    else p.resolve(reply.value);
  };
  const onError: WorkerListener = (event) => {
    failure = ShaleError.ioError(`the database worker failed: ${event.message ?? "an error"}`);
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
  };
  worker.addEventListener("message", onMessage);
  worker.addEventListener("error", onError);
  /** Keeps the worker for the next open when none is kept yet; else stops it. */
  const release = (): void => {
    worker.removeEventListener("message", onMessage);
    worker.removeEventListener("error", onError);
    if (idleWorkers.has(script)) worker.terminate();
    else idleWorkers.set(script, worker);
  };
  const request = <T>(req: Unnumbered<DbRequest>): Promise<T> => {
    if (failure !== undefined) return Promise.reject(failure);
    if (closed) return Promise.reject(ShaleError.closed("the database is closed"));
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ ...req, id });
    });
  };
  try {
    await request({
      op: "open",
      name,
      path: options.path ?? "db",
      fs: options.fs ?? {},
      db: options.db ?? {},
    });
  } catch (err) {
    worker.terminate();
    throw err;
  }

  return {
    get: async (key) => request<Uint8Array | undefined>({ op: "get", key: bytes("key", key) }),
    getMany: async (keys) => {
      if (!Array.isArray(keys)) throw new TypeError("getMany keys must be an array");
      return request<(Uint8Array | undefined)[]>({
        op: "getMany",
        keys: keys.map((k: Bytes) => bytes("key", k)),
      });
    },
    put: async (key, value, o) =>
      request({
        op: "put",
        key: bytes("key", key),
        value: bytes("value", value),
        sync: writeSync(o),
      }),
    del: async (key, o) => request({ op: "del", key: bytes("key", key), sync: writeSync(o) }),
    batch: async (operations, o) => {
      if (!Array.isArray(operations)) throw new TypeError("batch operations must be an array");
      const ops = operations.map((op: BatchOperation) => {
        if (op?.type === "put")
          return {
            type: "put" as const,
            key: bytes("key", op.key),
            value: bytes("value", op.value),
          };
        if (op?.type === "del") return { type: "del" as const, key: bytes("key", op.key) };
        throw ShaleError.invalidArgument(
          `batch operation type must be "put" or "del", not ${JSON.stringify((op as { type?: unknown } | null)?.type)}`,
        );
      });
      return request({ op: "batch", ops, sync: writeSync(o) });
    },
    clear: async (options = {}) => {
      const range = checkedRange("clear", options, CLEAR_OPTIONS);
      if (options.sync !== undefined && typeof options.sync !== "boolean")
        throw new TypeError("clear option sync must be a boolean");
      return request({ op: "clear", options: range, sync: options.sync === true });
    },
    iterator: (options = {}) => {
      const { range, batchSize } = wireRange(options);
      // Created now, so it reads the database as of this call.
      const id = request<number>({ op: "iterator", options: range });
      id.catch(() => undefined); // reported by the first read
      let buffered: [Uint8Array, Uint8Array][] = [];
      let at = 0;
      let done = false;
      let ended = false;
      const fetch = async (): Promise<[Uint8Array, Uint8Array][]> => {
        if (at < buffered.length) {
          const rest = at === 0 ? buffered : buffered.slice(at);
          buffered = [];
          at = 0;
          return rest;
        }
        if (done || ended) return [];
        const entries = await request<[Uint8Array, Uint8Array][]>({
          op: "next",
          iterator: await id,
          count: batchSize,
        });
        if (entries.length === 0) ended = true;
        return entries;
      };
      const it: WorkerIterator = {
        async next() {
          if (at >= buffered.length) {
            buffered = await fetch();
            at = 0;
          }
          if (at < buffered.length) return { value: buffered[at++]!, done: false };
          await it.close();
          return { value: undefined, done: true };
        },
        nextBatch: fetch,
        seek(target) {
          const key = bytes("seek target", target);
          if (done) throw ShaleError.closed("the iterator is closed");
          buffered = [];
          at = 0;
          ended = false;
          void id
            .then((iterator) => request({ op: "seek", iterator, target: key }))
            .catch(() => undefined);
        },
        async close() {
          if (done) return;
          done = true;
          buffered = [];
          const iterator = await id.catch(() => undefined);
          if (iterator !== undefined && !closed && failure === undefined)
            await request({ op: "endIterator", iterator });
        },
        async return() {
          await it.close();
          return { value: undefined, done: true };
        },
        [Symbol.asyncIterator]() {
          return it;
        },
      };
      return it;
    },
    flush: async () => request({ op: "flush" }),
    compactRange: async () => request({ op: "compact" }),
    getProperty: async (name) => {
      if (typeof name !== "string") throw new TypeError("property name must be a string");
      return request<string | undefined>({ op: "property", name });
    },
    exportDatabase: async () => request<ExportedFile[]>({ op: "export" }),
    close: async () => {
      if (closed || failure !== undefined) {
        worker.terminate();
        return;
      }
      try {
        await request({ op: "close" });
      } catch (err) {
        closed = true;
        worker.terminate();
        throw err;
      }
      closed = true;
      release();
    },
  };
}
