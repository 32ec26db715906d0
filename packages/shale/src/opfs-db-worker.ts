/**
 * The database worker of `openInWorker` (`shale/opfs/db-worker`, `dist/opfs-db-worker.js`):
 * a dedicated module worker holding one shale database on `OpfsFileSystem`, answering the
 * page's requests (opfs/db-protocol.ts) in order. Loaded anywhere but a worker it does
 * nothing, so importing it is harmless.
 */
import { type DB, open, ShaleError, WriteBatch } from "./index.js";
import { WorkerCursor } from "./opfs/cursor.js";
import type { DbReply, DbRequest } from "./opfs/db-protocol.js";
import { exportFiles } from "./opfs/export-files.js";
import { OpfsFileSystem } from "./opfs/index.js";

interface Scope {
  WorkerGlobalScope?: unknown;
  postMessage(message: unknown): void;
  addEventListener(type: "message", listener: (event: { data: DbRequest }) => void): void;
}

class DbWorker {
  private fs: OpfsFileSystem | undefined;
  private db: DB | undefined;
  private readonly iterators = new Map<number, WorkerCursor>();
  private path = "db";
  private nextIterator = 1;

  async handle(req: DbRequest): Promise<unknown> {
    if (req.op === "open") {
      if (this.db !== undefined) throw ShaleError.invalidArgument("the database is already open");
      const fs = await OpfsFileSystem.open(req.name, req.fs);
      try {
        this.db = await open(req.path, { ...req.db, fs });
      } catch (err) {
        await fs.close();
        throw err;
      }
      this.fs = fs;
      this.path = req.path;
      return true;
    }
    const db = this.db;
    if (db === undefined) throw ShaleError.closed("the database is not open");
    switch (req.op) {
      case "get":
        return db.get(req.key);
      case "getMany":
        return db.getMany(req.keys);
      case "put":
        db.put(req.key, req.value, { sync: req.sync });
        return undefined;
      case "del":
        db.delete(req.key, { sync: req.sync });
        return undefined;
      case "batch": {
        const batch = new WriteBatch();
        for (const op of req.ops) {
          if (op.type === "put") batch.put(op.key, op.value ?? new Uint8Array(0));
          else batch.delete(op.key);
        }
        db.write(batch, { sync: req.sync });
        return undefined;
      }
      case "clear":
        db.clear({ ...req.options, sync: req.sync });
        return undefined;
      case "iterator": {
        const id = this.nextIterator++;
        this.iterators.set(id, new WorkerCursor(db, req.options));
        return id;
      }
      case "next":
        return this.iterators.get(req.iterator)?.next(req.count) ?? [];
      case "seek":
        this.iterators.get(req.iterator)?.seek(req.target);
        return undefined;
      case "endIterator":
        this.iterators.get(req.iterator)?.close();
        this.iterators.delete(req.iterator);
        return undefined;
      case "flush":
        await db.flush();
        return undefined;
      case "compact":
        await db.compactRange();
        return undefined;
      case "property":
        return db.getProperty(req.name);
      case "export":
        await db.flush();
        return exportFiles(this.fs!, this.path);
      case "close": {
        for (const it of this.iterators.values()) it.close();
        this.iterators.clear();
        this.db = undefined;
        await db.close();
        await this.fs?.close();
        this.fs = undefined;
        return undefined;
      }
    }
  }
}

const scope = globalThis as unknown as Scope;
if (scope.WorkerGlobalScope !== undefined && typeof scope.addEventListener === "function") {
  const worker = new DbWorker();
  let queue: Promise<void> = Promise.resolve();
  scope.addEventListener("message", (event) => {
    const req = event.data;
    queue = queue.then(async () => {
      let reply: DbReply;
      try {
        reply = { id: req.id, value: await worker.handle(req) };
      } catch (err) {
        const code = ShaleError.isInstance(err)
          ? err.code
          : err instanceof TypeError
            ? "TypeError"
            : "Error";
        reply = { id: req.id, error: { code, message: String((err as Error)?.message ?? err) } };
      }
      scope.postMessage(reply);
    });
  });
}
