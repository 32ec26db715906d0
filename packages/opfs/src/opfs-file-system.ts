/**
 * `OpfsFileSystem`: shale's synchronous FileSystem over the browser's origin private file
 * system, for a database running in a dedicated worker.
 *
 * ```ts
 * // in a dedicated worker of a cross-origin isolated page
 * import { open } from "shale";
 * import { OpfsFileSystem } from "shale/opfs";
 * const fs = await OpfsFileSystem.open("notes");   // the OPFS directory "notes", created if missing
 * const db = await open("db", { fs });
 * ```
 *
 * OPFS opens files only asynchronously, and shale's FileSystem is synchronous, so the
 * handles live in a nested I/O worker (`opfs-io-worker.js`, io-server.ts) and every call
 * crosses to it through a SharedArrayBuffer, this thread blocking in `Atomics.wait` until the
 * answer is there (protocol.ts):
 *
 * ```
 *   database worker                         I/O worker
 *   fs.openRandomAccess(p).read(...)  --->  pool of FileSystemSyncAccessHandles (LRU)
 *        (Atomics.wait)               <---  bytes in the shared buffer, Atomics.notify
 * ```
 *
 * Contract differences from `NodeFileSystem`, by design:
 * - `sync` is the sync access handle's `flush()`; `syncDir` checks the directory and does
 *   nothing more (OPFS makes entry changes durable itself).
 * - `rename` of a file is `FileSystemHandle.move()` where the browser has it, else a
 *   journaled copy (rename-journal.ts) that a crash cannot leave half done.
 * - `lock` is a Web Lock held until `release`, so a second open of a database from any tab
 *   or worker of the origin is `Busy`; the lock dies with the worker.
 * - `link` is IOError ENOTSUP (OPFS has no hard links; checkpoints copy instead).
 * - A handle does not survive its file being removed or renamed (reads then fail ENOENT).
 * - A write past the origin's quota is IOError ENOSPC naming the usage and quota.
 *
 * Other workers: `shareWithWorker()` makes a new client of the same I/O worker (its own
 * SharedArrayBuffer and MessagePort, protocol.ts) and returns its structured-cloneable handle;
 * `OpfsFileSystem.connect(handle)` in another dedicated worker is a FileSystem over it. The
 * database runs its flushes and compactions that way, in a nested background worker
 * (`startBackgroundWorker`, the `backgroundWorkerUrl` option), off its own thread.
 *
 * Thread safety: one instance, one thread.
 */
import {
  checkCount,
  DEFAULT_WRITE_BUFFER_SIZE,
  type FileLock,
  type FileSystem,
  type OpenWritableOptions,
  type RandomAccessFile,
  type SequentialFile,
  ShaleError,
  type WritableFile,
} from "@shale/base";
import { IoChannel } from "./channel.js";
import { OpfsRandomAccessFile, OpfsSequentialFile, OpfsWritableFile } from "./files.js";
import {
  type ConnectMessage,
  DATA_OFFSET,
  DEFAULT_TRANSFER_SIZE,
  type DisconnectMessage,
  type InitMessage,
  OpenMode,
  type ReadyMessage,
} from "./protocol.js";
import { opfsSupportProblem, type SupportScope } from "./support.js";
import { clientErrno, fromWire } from "./wire-error.js";

/** A worker running the OPFS I/O server: a browser `Worker`, or a Node `worker_threads` one. */
export interface OpfsIoWorker {
  postMessage(message: unknown, transfer?: readonly unknown[]): void;
  terminate(): unknown;
  addEventListener?(type: "message", listener: (event: { data: unknown }) => void): void;
  on?(type: "message", listener: (data: unknown) => void): unknown;
}

export interface OpfsFileSystemOptions {
  /**
   * Sync access handles kept open at most; more files than that are closed least recently
   * used first and reopened on demand. Safari refuses more than ~250 per page. Default: 64.
   */
  maxOpenHandles?: number;
  /** Bytes one call to the I/O worker carries (larger reads and writes are split). Default: 1 MiB. */
  transferSize?: number;
  /** How long a call waits for the I/O worker before failing with IOError. Default: 60000 ms. */
  timeoutMs?: number;
  /**
   * Where the I/O worker's script is. Default: `opfs-io-worker.js` beside this module
   * (`new URL("./opfs-io-worker.js", import.meta.url)`); a bundle needs `@shale/opfs/io-worker`
   * built to that name beside it.
   */
  workerUrl?: string | URL;
  /**
   * A worker already running the I/O server, used instead of starting one from `workerUrl`;
   * the environment checks are then the caller's (tests run one over a fake OPFS).
   */
  worker?: OpfsIoWorker;
  /**
   * The script of the nested module worker that runs the database's flushes and compactions
   * over this file system (`shale/opfs/background-worker`), or `false` to run them on the
   * database's own worker. Default: `opfs-background-worker.js` beside this module (a bundle
   * builds `shale/opfs/background-worker` to that name); none when `worker` is given.
   */
  backgroundWorkerUrl?: string | URL | false;
  /**
   * Starts the background worker instead of `backgroundWorkerUrl` (tests start a Node worker
   * thread over the fake OPFS).
   */
  startBackgroundWorker?: () => OpfsIoWorker;
}

/**
 * A client of an `OpfsFileSystem`'s I/O worker for another worker (`shareWithWorker`):
 * structured-cloneable, its `port` transferred (`transfer`).
 */
export interface OpfsClientHandle {
  sab: SharedArrayBuffer;
  /** A MessagePort to the I/O worker. */
  port: unknown;
  name: string;
  atomicMove: boolean;
  timeoutMs: number;
}

/** A MessagePort as a connected client uses it. */
interface ClientPort {
  postMessage(message: unknown): void;
  close(): void;
}

/** What `OpfsFileSystem.stats()` reports. */
export interface OpfsFileSystemStats {
  openHandles: number;
  peakOpenHandles: number;
  /** Renames done with `FileSystemHandle.move()`. */
  moves: number;
  /** Renames done through the rename journal. */
  journaledRenames: number;
}

const OPTION_NAMES = new Set([
  "maxOpenHandles",
  "transferSize",
  "timeoutMs",
  "workerUrl",
  "worker",
  "backgroundWorkerUrl",
  "startBackgroundWorker",
]);

function positiveInteger(
  options: OpfsFileSystemOptions,
  name: keyof OpfsFileSystemOptions,
  fallback: number,
): number {
  const value = options[name];
  if (value === undefined) return fallback;
  if (typeof value !== "number")
    throw new TypeError(`OpfsFileSystem option ${name} must be a number`);
  if (!Number.isInteger(value) || value < 1) {
    throw ShaleError.invalidArgument(
      `OpfsFileSystem option ${name}: ${value} is not a positive integer`,
    );
  }
  return value;
}

function checkName(name: unknown): asserts name is string {
  if (typeof name !== "string") throw new TypeError("OpfsFileSystem.open: name must be a string");
  if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\\")) {
    throw ShaleError.invalidArgument(
      `OpfsFileSystem.open: ${JSON.stringify(name)} is not a directory name (no "/", not "." or "..")`,
    );
  }
}

/** Starts the default I/O worker (a module worker from `url`). */
function startWorker(url: string | URL): OpfsIoWorker {
  const WorkerClass = (
    globalThis as unknown as { Worker: new (u: string | URL, o: object) => OpfsIoWorker }
  ).Worker;
  return new WorkerClass(url, { type: "module", name: "shale-opfs-io" });
}

/** Where the background worker comes from (see the options). */
function backgroundStart(options: OpfsFileSystemOptions): BackgroundStart {
  const { backgroundWorkerUrl: url, startBackgroundWorker: start } = options;
  if (start !== undefined) {
    if (typeof start !== "function")
      throw new TypeError("OpfsFileSystem option startBackgroundWorker must be a function");
    return start;
  }
  if (url === false) return undefined;
  if (url !== undefined) {
    if (typeof url !== "string" && !(url instanceof URL))
      throw new TypeError(
        "OpfsFileSystem option backgroundWorkerUrl must be a string, a URL or false",
      );
    return url;
  }
  // A caller-run I/O worker (tests over the fake): no background worker unless asked for.
  if (options.worker !== undefined) return undefined;
  return new URL("./opfs-background-worker.js", import.meta.url);
}

function onMessage(worker: OpfsIoWorker, listener: (data: unknown) => void): void {
  if (typeof worker.addEventListener === "function")
    worker.addEventListener("message", (e) => listener(e.data));
  else if (typeof worker.on === "function") worker.on("message", listener);
  else throw new TypeError("OpfsFileSystem option worker has neither addEventListener nor on");
}

/** How the background worker starts: from a URL, by the caller's function, or not at all. */
type BackgroundStart = URL | string | (() => OpfsIoWorker) | undefined;

export class OpfsFileSystem implements FileSystem {
  private closed = false;

  private constructor(
    private readonly channel: IoChannel,
    /** The I/O worker (this client started it), or the port of a connected client. */
    private readonly worker: OpfsIoWorker | ClientPort,
    /** The OPFS directory this file system lives in. */
    readonly name: string,
    /** Whether renames are `FileSystemHandle.move()` (else journaled copies). */
    readonly atomicMove: boolean,
    private readonly owner: boolean,
    private readonly timeoutMs: number,
    private readonly background: BackgroundStart,
  ) {}

  /**
   * A FileSystem over a client handle made by `shareWithWorker` in another worker (it is
   * posted here, its port transferred). Closing it drops the client; the I/O worker and its
   * locks stay with the file system that made the handle.
   */
  static connect(handle: OpfsClientHandle): OpfsFileSystem {
    if (
      typeof handle !== "object" ||
      handle === null ||
      !(handle.sab instanceof SharedArrayBuffer) ||
      typeof (handle.port as ClientPort | null)?.postMessage !== "function" ||
      typeof handle.name !== "string"
    ) {
      throw new TypeError("OpfsFileSystem.connect: handle must come from shareWithWorker()");
    }
    const port = handle.port as ClientPort;
    const channel = new IoChannel(
      handle.sab,
      (request) => port.postMessage(request),
      handle.timeoutMs,
    );
    return new OpfsFileSystem(
      channel,
      port,
      handle.name,
      handle.atomicMove,
      false,
      handle.timeoutMs,
      undefined,
    );
  }

  /**
   * A new client of this file system's I/O worker, for another worker: post `handle` to it
   * with `transfer` as the transfer list, and `OpfsFileSystem.connect(handle)` there.
   * `transferSize` is this file system's. NotSupported where `MessageChannel` is missing.
   */
  shareWithWorker(): { handle: OpfsClientHandle; transfer: unknown[] } {
    if (this.closed) throw ShaleError.ioError(`OpfsFileSystem "${this.name}" is closed`);
    const Channel = (
      globalThis as { MessageChannel?: new () => { port1: unknown; port2: unknown } }
    ).MessageChannel;
    if (typeof Channel !== "function")
      throw ShaleError.notSupported("OpfsFileSystem.shareWithWorker needs MessageChannel");
    const { port1, port2 } = new Channel();
    const sab = new SharedArrayBuffer(DATA_OFFSET + this.channel.transferSize);
    const connect: ConnectMessage = { op: "connect", sab, port: port2 };
    // A connected client shares through the I/O worker it reaches: its own port.
    if (this.owner) (this.worker as OpfsIoWorker).postMessage(connect, [port2]);
    else throw ShaleError.notSupported("a connected OpfsFileSystem cannot share itself further");
    return {
      handle: {
        sab,
        port: port1,
        name: this.name,
        atomicMove: this.atomicMove,
        timeoutMs: this.timeoutMs,
      },
      transfer: [port1],
    };
  }

  /**
   * Starts the nested worker that runs a database's flushes and compactions over this file
   * system (see the `backgroundWorkerUrl` option); undefined when there is none to start.
   * Throws (NotSupported) when this scope cannot start a nested worker.
   */
  startBackgroundWorker(): OpfsIoWorker | undefined {
    const start = this.background;
    if (start === undefined) return undefined;
    if (typeof start === "function") return start();
    const WorkerClass = (
      globalThis as unknown as { Worker?: new (u: string | URL, o: object) => OpfsIoWorker }
    ).Worker;
    if (typeof WorkerClass !== "function")
      throw ShaleError.notSupported("this scope has no Worker: nested workers are unavailable");
    return new WorkerClass(start, { type: "module", name: "shale-background" });
  }

  /**
   * Opens the directory `name` of the origin's OPFS root (creating it), starting the I/O
   * worker, and finishes any rename a crash interrupted. NotSupported where OPFS cannot
   * run (the message says what is missing and what to use instead); IOError if OPFS
   * refuses the directory.
   */
  static async open(name: string, options: OpfsFileSystemOptions = {}): Promise<OpfsFileSystem> {
    checkName(name);
    if (typeof options !== "object" || options === null)
      throw new TypeError("OpfsFileSystem options must be an object");
    for (const key of Object.keys(options)) {
      if (!OPTION_NAMES.has(key))
        throw ShaleError.invalidArgument(`OpfsFileSystem: unknown option ${key}`);
    }
    const maxOpenHandles = positiveInteger(options, "maxOpenHandles", 64);
    const transferSize = positiveInteger(options, "transferSize", DEFAULT_TRANSFER_SIZE);
    const timeoutMs = positiveInteger(options, "timeoutMs", 60_000);
    const background = backgroundStart(options);
    if (
      options.workerUrl !== undefined &&
      typeof options.workerUrl !== "string" &&
      !(options.workerUrl instanceof URL)
    ) {
      throw new TypeError("OpfsFileSystem option workerUrl must be a string or a URL");
    }
    if (options.worker !== undefined && typeof options.worker?.postMessage !== "function") {
      throw new TypeError("OpfsFileSystem option worker must be a Worker");
    }
    if (options.worker === undefined) {
      const problem = opfsSupportProblem(globalThis as unknown as SupportScope);
      if (problem !== undefined) throw ShaleError.notSupported(problem);
    }
    const worker =
      options.worker ??
      startWorker(options.workerUrl ?? new URL("./opfs-io-worker.js", import.meta.url));
    const sab = new SharedArrayBuffer(DATA_OFFSET + transferSize);
    const ready = new Promise<ReadyMessage>((resolve, reject) => {
      onMessage(worker, (data) => {
        if ((data as { type?: string } | null)?.type === "ready") resolve(data as ReadyMessage);
      });
      const failed = (event: unknown): void =>
        reject(
          ShaleError.ioError(
            `the OPFS I/O worker failed: ${String((event as { message?: string } | null)?.message ?? event)}`,
          ),
        );
      if (typeof worker.addEventListener === "function")
        worker.addEventListener("error" as "message", failed);
      else worker.on?.("error" as "message", failed);
    });
    const init: InitMessage = { op: "init", sab, name, maxOpenHandles };
    worker.postMessage(init);
    const answer = await ready;
    if (answer.error !== undefined) {
      worker.terminate();
      throw fromWire(answer.error);
    }
    const channel = new IoChannel(sab, (request) => worker.postMessage(request), timeoutMs);
    return new OpfsFileSystem(channel, worker, name, answer.move, true, timeoutMs, background);
  }

  openWritable(path: string, options: OpenWritableOptions = {}): WritableFile {
    if (options.bufferSize !== undefined) checkCount("bufferSize", options.bufferSize);
    const id = this.call({
      op: "open",
      path,
      mode: options.append === true ? OpenMode.Append : OpenMode.Write,
    });
    const size = this.channel.result2;
    return new OpfsWritableFile(
      this.channel,
      path,
      id,
      size,
      options.bufferSize ?? DEFAULT_WRITE_BUFFER_SIZE,
    );
  }

  openRandomAccess(path: string): RandomAccessFile {
    const id = this.call({ op: "open", path, mode: OpenMode.Read });
    return new OpfsRandomAccessFile(this.channel, path, id, this.channel.result2);
  }

  openSequential(path: string): SequentialFile {
    const id = this.call({ op: "open", path, mode: OpenMode.Read });
    return new OpfsSequentialFile(this.channel, path, id);
  }

  /** Returns a copy owned by the caller. */
  readFile(path: string): Uint8Array {
    const file = this.openRandomAccess(path);
    try {
      const out = new Uint8Array(file.size);
      const n = file.read(0, out.length, out);
      return n === out.length ? out : out.slice(0, n);
    } finally {
      file.close();
    }
  }

  writeFile(path: string, data: Uint8Array, options?: { sync?: boolean }): void {
    const file = this.openWritable(path, { bufferSize: 0 });
    try {
      file.append(data);
      if (options?.sync === true) file.sync();
    } finally {
      file.close();
    }
  }

  exists(path: string): boolean {
    return this.call({ op: "exists", path }) === 1;
  }

  /** The size of a file; 0 for a directory. */
  fileSize(path: string): number {
    return this.call({ op: "size", path });
  }

  rename(from: string, to: string): void {
    this.call({ op: "rename", from, to });
  }

  remove(path: string): void {
    this.call({ op: "remove", path });
  }

  truncate(path: string, size: number): void {
    checkCount("truncate size", size);
    this.call({ op: "truncate", path, size });
  }

  list(dir: string): string[] {
    this.call({ op: "list", path: dir });
    return this.channel.replyJson() as string[];
  }

  mkdir(path: string): void {
    this.call({ op: "mkdir", path });
  }

  /** Checks that `path` is a directory; OPFS makes its entries durable itself. */
  syncDir(path: string): void {
    this.call({ op: "syncDir", path });
  }

  /** A Web Lock on `path` (whose file is created), held until `release`: Busy if held anywhere. */
  lock(path: string): FileLock {
    const id = this.call({ op: "lock", path });
    let held = true;
    return {
      path,
      release: () => {
        if (!held || this.closed) return;
        held = false;
        this.call({ op: "unlock", id });
      },
    };
  }

  /** OPFS has no hard links: always IOError ENOTSUP (callers copy instead). */
  link(existing: string, _newPath: string): void {
    throw clientErrno(
      "ENOTSUP",
      "link",
      existing,
      "the origin private file system has no hard links",
    );
  }

  removeDir(path: string): void {
    this.call({ op: "removeDir", path });
  }

  /**
   * Sync access handles open now and the most ever open at once; renames done by
   * `move()` and by the journal.
   */
  stats(): OpfsFileSystemStats {
    this.call({ op: "stats" });
    return this.channel.replyJson() as OpfsFileSystemStats;
  }

  /**
   * Closes every handle, releases every lock and stops the I/O worker. Close the database
   * first. Idempotent; every later call is IOError. A connected client (`connect`) only
   * drops itself.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    if (!this.owner) {
      this.closed = true;
      this.channel.fail(ShaleError.ioError(`OpfsFileSystem "${this.name}" is closed`));
      const disconnect: DisconnectMessage = { op: "disconnect" };
      const port = this.worker as ClientPort;
      port.postMessage(disconnect);
      port.close();
      return;
    }
    try {
      this.call({ op: "shutdown" });
    } finally {
      this.closed = true;
      this.channel.fail(ShaleError.ioError(`OpfsFileSystem "${this.name}" is closed`));
      await (this.worker as OpfsIoWorker).terminate();
    }
  }

  private call(request: Parameters<IoChannel["call"]>[0]): number {
    return this.channel.call(request);
  }
}
