/**
 * `OpfsIoServer`: the I/O worker's half of `OpfsFileSystem`. It owns every OPFS handle of
 * one file system (a directory of the origin's OPFS root) and answers the client's
 * synchronous calls (protocol.ts) one at a time, awaiting OPFS where it must.
 *
 * - Sync access handles are pooled: at most `maxOpenHandles` are open; opening one more
 *   closes the least recently used (Safari refuses past ~250 per page). A file's handle is
 *   reopened on its next use; client ids name paths, not handles, so nothing notices.
 * - `rename` is `FileSystemHandle.move()` where the browser has it and it succeeds, else
 *   the rename journal (rename-journal.ts), replayed by `init` after a crash.
 * - `lock` is a Web Lock named after the file system and the path, requested with
 *   `ifAvailable` and held until `unlock` (or until the worker dies with its page).
 * - A write or truncate the quota refuses is ENOSPC, its message giving
 *   `navigator.storage.estimate()`'s usage and quota.
 * - Several clients: the first (`init`, posted to the worker) owns the file system; each
 *   further client (a database's background worker, `OpfsFileSystem.shareWithWorker`) is
 *   announced by a `connect` message carrying its own SharedArrayBuffer and a MessagePort
 *   its requests arrive on. Replies go to the requesting client's buffer. Handles, file ids
 *   and locks are the server's, shared by every client.
 *
 * Thread safety: one instance per worker; requests of every client are handled one at a
 * time, strictly in arrival order.
 */
import type {
  DirectoryHandleLike,
  FileHandleLike,
  OpfsEnvironment,
  SyncAccessHandleLike,
} from "./opfs-api.js";
import {
  type ConnectMessage,
  DATA_OFFSET,
  type DisconnectMessage,
  F64_RESULT,
  F64_RESULT2,
  I32_DATA_LENGTH,
  I32_STATE,
  I32_STATUS,
  type InitMessage,
  OpenMode,
  type ReadyMessage,
  type Request,
  STATE_REPLY,
} from "./protocol.js";
import {
  decodeRenameJournal,
  encodeRenameJournal,
  RENAME_JOURNAL,
  type RenameIntent,
} from "./rename-journal.js";
import { errnoFailure, toFailure, WireFailure } from "./wire-error.js";

/** Where the server posts its `ready` message. */
export interface ServerPort {
  postMessage(message: unknown): void;
}

/** A client's end of the wire: its shared buffer's views and its last JSON reply. */
interface Client {
  readonly i32: Int32Array;
  readonly f64: Float64Array;
  readonly data: Uint8Array;
  /** The last JSON reply, for `replyChunk` requests when it did not fit the data area. */
  lastJson: Uint8Array;
  /** The port a connected client's requests arrive on (none for the first client). */
  readonly port: ClientPort | undefined;
}

/** A MessagePort as browsers and Node have it. */
interface ClientPort {
  on?(type: "message", listener: (data: unknown) => void): unknown;
  onmessage?: ((event: { data: unknown }) => void) | null;
  close(): void;
}

function clientOf(sab: SharedArrayBuffer, port: ClientPort | undefined): Client {
  return {
    i32: new Int32Array(sab, 0, 16),
    f64: new Float64Array(sab, 0, 8),
    data: new Uint8Array(sab, DATA_OFFSET),
    lastJson: new Uint8Array(0),
    port,
  };
}

/** A file the server knows: its handle, and its sync access handle while open. */
interface PoolEntry {
  readonly file: FileHandleLike;
  sah: SyncAccessHandleLike | undefined;
  lastUse: number;
}

interface HeldLock {
  release: () => void;
  done: Promise<unknown>;
}

const encoder = new TextEncoder();

export class OpfsIoServer {
  private root!: DirectoryHandleLike;
  private name = "";
  /** The client whose request is being handled: replies go to its buffer. */
  private client!: Client;
  private primary: Client | undefined;
  private readonly connected = new Set<Client>();
  private i32!: Int32Array;
  private f64!: Float64Array;
  private data!: Uint8Array;
  /** A non-shared copy buffer: sync handles may refuse views of a SharedArrayBuffer. */
  private scratch = new Uint8Array(0);
  private maxOpenHandles = 64;
  private supportsMove = false;
  private readonly dirs = new Map<string, DirectoryHandleLike>();
  private readonly pool = new Map<string, PoolEntry>();
  private openHandles = 0;
  private peakOpenHandles = 0;
  private tick = 0;
  private moves = 0;
  private journaledRenames = 0;
  private readonly ids = new Map<number, string>();
  private nextId = 1;
  private readonly locks = new Map<number, HeldLock>();
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly env: OpfsEnvironment,
    private readonly port: ServerPort,
  ) {}

  /** Takes one message from the first client; messages are handled in order. */
  onMessage(message: unknown): void {
    const m = message as InitMessage | ConnectMessage | Request;
    if (m.op === "connect") {
      this.connect(m);
      return;
    }
    this.queue = this.queue.then(() => {
      if (m.op === "init") return this.init(m);
      this.use(this.primary!);
      return this.handle(m);
    });
  }

  /**
   * A further client: its requests arrive on its port, queued with everyone's. The port is
   * listened to at once, so no request posted after the `connect` is missed.
   */
  private connect(m: ConnectMessage): void {
    const client = clientOf(m.sab, m.port as ClientPort);
    this.connected.add(client);
    const take = (data: unknown): void => {
      const req = data as Request | DisconnectMessage;
      if (req.op === "disconnect") {
        this.connected.delete(client);
        client.port?.close();
        return;
      }
      this.queue = this.queue.then(() => {
        this.use(client);
        return this.handle(req);
      });
    };
    const port = m.port as ClientPort;
    if (typeof port.on === "function") port.on("message", take);
    else port.onmessage = (event) => take(event.data);
  }

  /** Makes `client` the one replies go to (requests run one at a time). */
  private use(client: Client): void {
    this.client = client;
    this.i32 = client.i32;
    this.f64 = client.f64;
    this.data = client.data;
    if (this.scratch.length < client.data.length) this.scratch = new Uint8Array(client.data.length);
  }

  private async init(m: InitMessage): Promise<void> {
    let reply: ReadyMessage;
    try {
      this.name = m.name;
      this.maxOpenHandles = m.maxOpenHandles;
      this.primary = clientOf(m.sab, undefined);
      this.use(this.primary);
      const origin = await this.env.getDirectory();
      this.root = await origin.getDirectoryHandle(m.name, { create: true });
      this.dirs.set("", this.root);
      await this.replayRenameJournal();
      this.supportsMove = await this.probeMove();
      reply = { type: "ready", move: this.supportsMove };
    } catch (err) {
      reply = { type: "ready", move: false, error: toFailure(err, "open", m.name, "ENOTDIR").wire };
    }
    this.port.postMessage(reply);
  }

  private async handle(req: Request): Promise<void> {
    let status = 0;
    let f: WireFailure | undefined;
    try {
      await this.dispatch(req);
    } catch (err) {
      status = 1;
      f = toFailure(err, req.op, "path" in req ? req.path : "");
    }
    if (f !== undefined) this.replyJson(f.wire);
    Atomics.store(this.i32, I32_STATUS, status);
    Atomics.store(this.i32, I32_STATE, STATE_REPLY);
    Atomics.notify(this.i32, I32_STATE);
  }

  private reply(result: number, result2 = 0): void {
    this.f64[F64_RESULT] = result;
    this.f64[F64_RESULT2] = result2;
  }

  /**
   * Puts a JSON reply in the data area: its whole length in the header, as much as fits in
   * the area; the client fetches the rest with `replyChunk` requests.
   */
  private replyJson(value: unknown): void {
    const bytes = encoder.encode(JSON.stringify(value));
    this.client.lastJson = bytes;
    this.data.set(bytes.subarray(0, Math.min(bytes.length, this.data.length)));
    Atomics.store(this.i32, I32_DATA_LENGTH, bytes.length);
  }

  private async dispatch(req: Request): Promise<void> {
    switch (req.op) {
      case "open":
        return this.open(req.path, req.mode);
      case "close":
        this.ids.delete(req.id);
        return this.reply(0);
      case "read": {
        const sah = await this.handleOf(req.id, "read");
        const view = this.scratch.subarray(0, req.length);
        const n = sah.read(view, { at: req.at });
        this.data.set(view.subarray(0, n));
        return this.reply(n);
      }
      case "write": {
        const sah = await this.handleOf(req.id, "write");
        const view = this.scratch.subarray(0, req.length);
        view.set(this.data.subarray(0, req.length));
        let n: number;
        try {
          n = sah.write(view, { at: req.at });
        } catch (err) {
          throw await this.writeFailure(err, "write", this.ids.get(req.id) ?? "");
        }
        return this.reply(n);
      }
      case "flush": {
        const sah = await this.handleOf(req.id, "fsync");
        sah.flush();
        return this.reply(0);
      }
      case "exists":
        return this.reply((await this.kindOf(req.path, "stat")) === undefined ? 0 : 1);
      case "size":
        return this.size(req.path);
      case "rename":
        return this.rename(req.from, req.to);
      case "remove":
        return this.remove(req.path);
      case "truncate":
        return this.truncate(req.path, req.size);
      case "list":
        return this.list(req.path);
      case "mkdir":
        await this.dirAt(this.parse(req.path, "mkdir"), "mkdir", req.path, true);
        return this.reply(0);
      case "syncDir":
        await this.dirAt(this.parse(req.path, "open"), "open", req.path);
        return this.reply(0);
      case "lock":
        return this.lock(req.path);
      case "unlock":
        return this.unlock(req.id);
      case "removeDir":
        return this.removeDir(req.path);
      case "replyChunk": {
        const chunk = this.client.lastJson.subarray(req.at, req.at + this.data.length);
        this.data.set(chunk);
        return this.reply(chunk.length);
      }
      case "stats":
        this.replyJson({
          openHandles: this.openHandles,
          peakOpenHandles: this.peakOpenHandles,
          moves: this.moves,
          journaledRenames: this.journaledRenames,
        });
        return this.reply(0);
      case "shutdown":
        return this.shutdown();
    }
  }

  // --- paths and handles ---

  /** Path segments under the root; ".." above the root is EINVAL. */
  private parse(path: string, syscall: string): string[] {
    const out: string[] = [];
    for (const part of path.split("/")) {
      if (part === "" || part === ".") continue;
      if (part === "..") {
        if (out.length === 0)
          throw errnoFailure("EINVAL", syscall, path, "path leaves the file system");
        out.pop();
      } else out.push(part);
    }
    return out;
  }

  private async dirAt(
    parts: readonly string[],
    syscall: string,
    path: string,
    create = false,
  ): Promise<DirectoryHandleLike> {
    let dir = this.root;
    let key = "";
    for (const part of parts) {
      key = key === "" ? part : `${key}/${part}`;
      let next = this.dirs.get(key);
      if (next === undefined) {
        try {
          next = await dir.getDirectoryHandle(part, { create });
        } catch (err) {
          const mismatch = create && key === parts.join("/") ? "EEXIST" : "ENOTDIR";
          throw toFailure(err, syscall, path, mismatch);
        }
        this.dirs.set(key, next);
      }
      dir = next;
    }
    return dir;
  }

  /** The pool entry of the file at `parts`, looked up (or created) on first use. */
  private async entry(
    parts: string[],
    create: boolean,
    syscall: string,
    path: string,
  ): Promise<PoolEntry> {
    const key = parts.join("/");
    const known = this.pool.get(key);
    if (known !== undefined) return known;
    if (parts.length === 0) throw errnoFailure("EISDIR", syscall, path);
    const parent = await this.dirAt(parts.slice(0, -1), syscall, path);
    let file: FileHandleLike;
    try {
      file = await parent.getFileHandle(parts[parts.length - 1]!, { create });
    } catch (err) {
      throw toFailure(err, syscall, path, "EISDIR");
    }
    const e: PoolEntry = { file, sah: undefined, lastUse: 0 };
    this.pool.set(key, e);
    return e;
  }

  /** The entry's sync access handle, opened (closing the least recently used) if needed. */
  private async sahOf(e: PoolEntry, syscall: string, path: string): Promise<SyncAccessHandleLike> {
    e.lastUse = ++this.tick;
    if (e.sah !== undefined) return e.sah;
    while (this.openHandles >= this.maxOpenHandles && this.evictOne(e)) {}
    try {
      e.sah = await e.file.createSyncAccessHandle();
    } catch (err) {
      throw toFailure(err, syscall, path);
    }
    this.openHandles++;
    if (this.openHandles > this.peakOpenHandles) this.peakOpenHandles = this.openHandles;
    return e.sah;
  }

  /** Closes the least recently used open handle other than `keep`'s; false if none. */
  private evictOne(keep: PoolEntry): boolean {
    let victim: PoolEntry | undefined;
    for (const e of this.pool.values()) {
      if (e !== keep && e.sah !== undefined && (victim === undefined || e.lastUse < victim.lastUse))
        victim = e;
    }
    if (victim === undefined) return false;
    this.closeSah(victim);
    return true;
  }

  private closeSah(e: PoolEntry): void {
    if (e.sah === undefined) return;
    const sah = e.sah;
    e.sah = undefined;
    this.openHandles--;
    sah.close();
  }

  /** Forgets the entries (closing their handles) and directories at or under `key`. */
  private forget(key: string): void {
    const under = (k: string): boolean => k === key || key === "" || k.startsWith(`${key}/`);
    for (const [k, e] of this.pool) {
      if (under(k)) {
        this.closeSah(e);
        this.pool.delete(k);
      }
    }
    for (const k of this.dirs.keys()) if (k !== "" && under(k)) this.dirs.delete(k);
  }

  private async handleOf(id: number, syscall: string): Promise<SyncAccessHandleLike> {
    const key = this.ids.get(id);
    if (key === undefined) throw errnoFailure("EBADF", syscall, `#${id}`);
    const e = await this.entry(key === "" ? [] : key.split("/"), false, syscall, key);
    return this.sahOf(e, syscall, key);
  }

  /** "file", "directory" or undefined (missing) for `path`. */
  private async kindOf(path: string, syscall: string): Promise<"file" | "directory" | undefined> {
    const parts = this.parse(path, syscall);
    if (parts.length === 0) return "directory";
    const key = parts.join("/");
    if (this.pool.has(key)) return "file";
    if (this.dirs.has(key)) return "directory";
    let parent: DirectoryHandleLike;
    try {
      parent = await this.dirAt(parts.slice(0, -1), syscall, path);
    } catch {
      return undefined;
    }
    const name = parts[parts.length - 1]!;
    try {
      await parent.getFileHandle(name);
      return "file";
    } catch (err) {
      if ((err as { name?: string }).name !== "TypeMismatchError") return undefined;
      return "directory";
    }
  }

  /** A failed write or truncate; QuotaExceededError becomes ENOSPC with the quota. */
  private async writeFailure(err: unknown, syscall: string, path: string): Promise<WireFailure> {
    if ((err as { name?: string } | null)?.name !== "QuotaExceededError")
      return toFailure(err, syscall, path);
    let usage = "unknown";
    let quota = "unknown";
    try {
      const e = await this.env.estimate();
      if (e.usage !== undefined) usage = String(e.usage);
      if (e.quota !== undefined) quota = String(e.quota);
    } catch {
      // the estimate is a courtesy; the failure stands without it
    }
    return errnoFailure(
      "ENOSPC",
      syscall,
      path,
      `the origin's storage quota is exhausted (navigator.storage.estimate(): ${usage} of ${quota} bytes used)`,
    );
  }

  // --- operations ---

  private async open(path: string, mode: number): Promise<void> {
    const parts = this.parse(path, "open");
    const e = await this.entry(parts, mode !== OpenMode.Read, "open", path);
    const sah = await this.sahOf(e, "open", path);
    if (mode === OpenMode.Write) {
      try {
        sah.truncate(0);
      } catch (err) {
        throw await this.writeFailure(err, "open", path);
      }
    }
    const id = this.nextId++;
    this.ids.set(id, parts.join("/"));
    this.reply(id, sah.getSize());
  }

  private async size(path: string): Promise<void> {
    if ((await this.kindOf(path, "stat")) === "directory") return this.reply(0);
    const parts = this.parse(path, "stat");
    const e = await this.entry(parts, false, "stat", path);
    this.reply((await this.sahOf(e, "stat", path)).getSize());
  }

  private async truncate(path: string, size: number): Promise<void> {
    const parts = this.parse(path, "truncate");
    const e = await this.entry(parts, false, "truncate", path);
    const sah = await this.sahOf(e, "truncate", path);
    try {
      sah.truncate(size);
    } catch (err) {
      throw await this.writeFailure(err, "truncate", path);
    }
    this.reply(0);
  }

  private async remove(path: string): Promise<void> {
    const parts = this.parse(path, "unlink");
    const kind = await this.kindOf(path, "unlink");
    if (kind === "directory") throw errnoFailure("EISDIR", "unlink", path);
    if (kind === undefined) throw errnoFailure("ENOENT", "unlink", path);
    const key = parts.join("/");
    this.forget(key);
    const parent = await this.dirAt(parts.slice(0, -1), "unlink", path);
    try {
      await parent.removeEntry(parts[parts.length - 1]!);
    } catch (err) {
      throw toFailure(err, "unlink", path);
    }
    this.reply(0);
  }

  private async list(path: string): Promise<void> {
    const parts = this.parse(path, "scandir");
    const dir = await this.dirAt(parts, "scandir", path);
    const names: string[] = [];
    try {
      for await (const name of dir.keys()) {
        if (parts.length === 0 && name === RENAME_JOURNAL) continue;
        names.push(name);
      }
    } catch (err) {
      throw toFailure(err, "scandir", path, "ENOTDIR");
    }
    names.sort();
    this.replyJson(names);
    this.reply(0);
  }

  private async removeDir(path: string): Promise<void> {
    const parts = this.parse(path, "rmdir");
    if (parts.length === 0) throw errnoFailure("ENOENT", "rmdir", path);
    const kind = await this.kindOf(path, "rmdir");
    if (kind === "file") throw errnoFailure("ENOTDIR", "rmdir", path);
    if (kind === undefined) throw errnoFailure("ENOENT", "rmdir", path);
    const dir = await this.dirAt(parts, "rmdir", path);
    for await (const _ of dir.keys()) throw errnoFailure("ENOTEMPTY", "rmdir", path);
    this.forget(parts.join("/"));
    const parent = await this.dirAt(parts.slice(0, -1), "rmdir", path);
    try {
      await parent.removeEntry(parts[parts.length - 1]!);
    } catch (err) {
      throw toFailure(err, "rmdir", path);
    }
    this.reply(0);
  }

  private async rename(from: string, to: string): Promise<void> {
    const src = this.parse(from, "rename");
    const dst = this.parse(to, "rename");
    const srcKind = await this.kindOf(from, "rename");
    if (srcKind === undefined || src.length === 0) throw errnoFailure("ENOENT", "rename", from);
    const dstParent = await this.dirAt(dst.slice(0, -1), "rename", to, false);
    const srcKey = src.join("/");
    const dstKey = dst.join("/");
    if (srcKey === dstKey) return this.reply(0);
    if (dst.length === 0) throw errnoFailure("EISDIR", "rename", to);
    const dstName = dst[dst.length - 1]!;
    const dstKind = await this.kindOf(to, "rename");
    if (srcKind === "directory") {
      await this.renameDirectory(src, srcKey, dstKey, dstParent, dstName, dstKind, from, to);
      return this.reply(0);
    }
    if (dstKind === "directory") throw errnoFailure("EISDIR", "rename", to);
    this.forget(srcKey);
    this.forget(dstKey);
    const file = (await this.entry(src, false, "rename", from)).file;
    this.pool.delete(srcKey);
    let moved = false;
    if (this.supportsMove && typeof file.move === "function") {
      try {
        await file.move(dstParent, dstName);
        moved = true;
        this.moves++;
      } catch {
        // Refused (an existing target, in some browsers): the journal below does it.
      }
    }
    if (!moved) {
      const data = await this.readWhole(src, from);
      const intent: RenameIntent = { from: srcKey, to: dstKey, data };
      await this.writeWhole([RENAME_JOURNAL], RENAME_JOURNAL, encodeRenameJournal(intent));
      await this.applyRename(intent);
      await this.removeFile([RENAME_JOURNAL], RENAME_JOURNAL);
      this.journaledRenames++;
    }
    for (const [id, key] of this.ids) if (key === srcKey) this.ids.set(id, dstKey);
    this.reply(0);
  }

  private async renameDirectory(
    src: string[],
    srcKey: string,
    dstKey: string,
    dstParent: DirectoryHandleLike,
    dstName: string,
    dstKind: "file" | "directory" | undefined,
    from: string,
    to: string,
  ): Promise<void> {
    if (dstKind === "file") throw errnoFailure("ENOTDIR", "rename", to);
    if (dstKey.startsWith(`${srcKey}/`)) throw errnoFailure("EINVAL", "rename", to);
    const dir = await this.dirAt(src, "rename", from);
    if (typeof dir.move !== "function") {
      throw errnoFailure(
        "ENOTSUP",
        "rename",
        from,
        "this browser cannot move directories (no FileSystemHandle.move)",
      );
    }
    if (dstKind === "directory") {
      const target = await this.dirAt(this.parse(to, "rename"), "rename", to);
      for await (const _ of target.keys()) throw errnoFailure("ENOTEMPTY", "rename", to);
      await dstParent.removeEntry(dstName);
    }
    this.forget(srcKey);
    this.forget(dstKey);
    try {
      await dir.move(dstParent, dstName);
    } catch (err) {
      throw toFailure(err, "rename", from);
    }
  }

  /** Whether file handles have `move()` (asked of a file handle: directories may lack it). */
  private async probeMove(): Promise<boolean> {
    const file = await this.root.getFileHandle(RENAME_JOURNAL, { create: true });
    await this.root.removeEntry(RENAME_JOURNAL);
    return typeof file.move === "function";
  }

  /** Redoes a rename a crash interrupted; drops a torn journal. */
  private async replayRenameJournal(): Promise<void> {
    if ((await this.kindOf(RENAME_JOURNAL, "open")) !== "file") return;
    const intent = decodeRenameJournal(await this.readWhole([RENAME_JOURNAL], RENAME_JOURNAL));
    if (intent !== undefined) await this.applyRename(intent);
    await this.removeFile([RENAME_JOURNAL], RENAME_JOURNAL);
  }

  /** Writes the intent's bytes over `to` (flushed), then removes `from` if it is there. */
  private async applyRename(intent: RenameIntent): Promise<void> {
    const to = this.parse(intent.to, "rename");
    await this.writeWhole(to, intent.to, intent.data);
    if ((await this.kindOf(intent.from, "rename")) === "file") {
      await this.removeFile(this.parse(intent.from, "rename"), intent.from);
    }
  }

  private async readWhole(parts: string[], path: string): Promise<Uint8Array> {
    const sah = await this.sahOf(await this.entry(parts, false, "read", path), "read", path);
    const out = new Uint8Array(sah.getSize());
    let done = 0;
    while (done < out.length) {
      const n = sah.read(out.subarray(done), { at: done });
      if (n <= 0) break;
      done += n;
    }
    return out.subarray(0, done);
  }

  /** Replaces the file's contents with `data` and flushes it to disk. */
  private async writeWhole(parts: string[], path: string, data: Uint8Array): Promise<void> {
    const sah = await this.sahOf(await this.entry(parts, true, "write", path), "write", path);
    try {
      sah.truncate(0);
      let done = 0;
      while (done < data.length) {
        const n = sah.write(data.subarray(done), { at: done });
        if (n <= 0) throw errnoFailure("EIO", "write", path, "a write accepted no bytes");
        done += n;
      }
      sah.flush();
    } catch (err) {
      throw await this.writeFailure(err, "write", path);
    }
  }

  private async removeFile(parts: string[], path: string): Promise<void> {
    this.forget(parts.join("/"));
    const parent = await this.dirAt(parts.slice(0, -1), "unlink", path);
    try {
      await parent.removeEntry(parts[parts.length - 1]!);
    } catch (err) {
      throw toFailure(err, "unlink", path);
    }
  }

  private async lock(path: string): Promise<void> {
    const parts = this.parse(path, "open");
    await this.entry(parts, true, "open", path);
    const name = `shale-opfs:${this.name}/${parts.join("/")}`;
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let decide!: (granted: boolean) => void;
    const decided = new Promise<boolean>((resolve) => {
      decide = resolve;
    });
    const done = this.env.locks
      .request(name, { ifAvailable: true }, (lock) => {
        decide(lock !== null);
        return lock === null ? undefined : held;
      })
      .catch((err: unknown) => {
        decide(false);
        throw err;
      });
    if (!(await decided)) {
      await done;
      throw new WireFailure({
        code: "Busy",
        path,
        message: `lock is held by another tab or worker (Web Lock "${name}")`,
      });
    }
    const id = this.nextId++;
    this.locks.set(id, { release, done });
    this.reply(id);
  }

  private async unlock(id: number): Promise<void> {
    const held = this.locks.get(id);
    if (held !== undefined) {
      this.locks.delete(id);
      held.release();
      await held.done;
    }
    this.reply(0);
  }

  private async shutdown(): Promise<void> {
    for (const client of this.connected) client.port?.close();
    this.connected.clear();
    for (const e of this.pool.values()) this.closeSah(e);
    this.pool.clear();
    for (const id of [...this.locks.keys()]) await this.unlock(id);
    this.reply(0);
  }
}
