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

export type { BatchOperation } from "./db-protocol.js";

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
  put(key: Bytes, value: Bytes, options?: WorkerWriteOptions): Promise<void>;
  del(key: Bytes, options?: WorkerWriteOptions): Promise<void>;
  /** Applies every operation atomically. */
  batch(operations: readonly BatchOperation[], options?: WorkerWriteOptions): Promise<void>;
  /** Entries in key order (or reverse), fetched `batchSize` at a time; copies the caller owns. */
  iterator(options?: WorkerIteratorOptions): AsyncIterableIterator<[Uint8Array, Uint8Array]>;
  /** Writes the memtable to a table file. */
  flush(): Promise<void>;
  /** Closes the database and its file system, and stops the worker. Idempotent. */
  close(): Promise<void>;
}

interface PageWorker {
  postMessage(message: unknown): void;
  terminate(): void;
  addEventListener(
    type: "message" | "error",
    listener: (event: { data?: unknown; message?: string }) => void,
  ): void;
}

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

function wireRange(options: WorkerIteratorOptions): { range: WireRange; batchSize: number } {
  if (typeof options !== "object" || options === null)
    throw new TypeError("iterator options must be an object");
  const range: WireRange = {};
  for (const k of Object.keys(options)) {
    if (!["gt", "gte", "lt", "lte", "reverse", "limit", "batchSize"].includes(k)) {
      throw ShaleError.invalidArgument(`unknown iterator option ${k}`);
    }
  }
  for (const k of RANGE_KEYS)
    if (options[k] !== undefined) range[k] = bytes(`iterator option ${k}`, options[k]);
  if (options.reverse !== undefined) {
    if (typeof options.reverse !== "boolean")
      throw new TypeError("iterator option reverse must be a boolean");
    range.reverse = options.reverse;
  }
  if (options.limit !== undefined) {
    if (typeof options.limit !== "number")
      throw new TypeError("iterator option limit must be a number");
    range.limit = options.limit;
  }
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
  const worker = new WorkerClass(
    options.workerUrl ?? new URL("./opfs-db-worker.js", import.meta.url),
    {
      type: "module",
      name: `shale-db-${name}`,
    },
  );
  const pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: unknown) => void }
  >();
  let nextId = 1;
  let closed = false;
  let failure: Error | undefined;
  worker.addEventListener("message", (event) => {
    const reply = event.data as DbReply;
    const p = pending.get(reply.id);
    if (p === undefined) return;
    pending.delete(reply.id);
    if (reply.error !== undefined) p.reject(fromReply(reply.error));
    else p.resolve(reply.value);
  });
  worker.addEventListener("error", (event) => {
    failure = ShaleError.ioError(`the database worker failed: ${event.message ?? "an error"}`);
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
  });
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
    iterator: (options = {}) => {
      const { range, batchSize } = wireRange(options);
      let id: Promise<number> | undefined;
      let buffered: [Uint8Array, Uint8Array][] = [];
      let at = 0;
      let done = false;
      const end = async (): Promise<void> => {
        if (done) return;
        done = true;
        if (id !== undefined) await request({ op: "endIterator", iterator: await id });
      };
      const it: AsyncIterableIterator<[Uint8Array, Uint8Array]> = {
        async next() {
          if (at < buffered.length) return { value: buffered[at++]!, done: false };
          if (done) return { value: undefined, done: true };
          id ??= request<number>({ op: "iterator", options: range });
          buffered = await request<[Uint8Array, Uint8Array][]>({
            op: "next",
            iterator: await id,
            count: batchSize,
          });
          at = 0;
          if (buffered.length === 0) {
            await end();
            return { value: undefined, done: true };
          }
          return { value: buffered[at++]!, done: false };
        },
        async return() {
          await end();
          return { value: undefined, done: true };
        },
        [Symbol.asyncIterator]() {
          return it;
        },
      };
      return it;
    },
    flush: async () => request({ op: "flush" }),
    close: async () => {
      if (closed || failure !== undefined) {
        worker.terminate();
        return;
      }
      try {
        await request({ op: "close" });
      } finally {
        closed = true;
        worker.terminate();
      }
    },
  };
}
