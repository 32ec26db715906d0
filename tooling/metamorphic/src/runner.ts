/**
 * Runs a metamorphic operation list on a database opened with one option set and prints
 * each operation's result as the model does (model.ts), so the two can be compared line by
 * line.
 *
 * File systems: `memory` (MemoryFileSystem), `node` (a fresh directory under the OS's temp
 * directory, removed by `dispose`), `fault` (FaultInjectionFileSystem over memory). On
 * `fault`, `reopen crash` is a power cut: the file system stops taking writes, the
 * database is closed, unsynced data is dropped, and the database reopens. Only writes after
 * the last synced one may be lost, and what survives must be a prefix of the acknowledged
 * writes: the runner keeps its own copy of the data as of the last synced write and the
 * writes since, finds the longest prefix the reopened database holds (none: the result is
 * `lost ...`, a mismatch), and writes the rest again, so the database is back in the
 * model's state and the runs stay comparable. A clean close makes everything durable.
 *
 * An operation that throws prints `error <code>: <message>`; no operation of a valid list
 * throws on a correct database (a transaction's conflict is its result, not an error).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  FaultInjectionFileSystem,
  type FileSystem,
  MemoryFileSystem,
  ShaleError,
} from "@shale/base";
import {
  type ColumnFamilyHandle,
  DB,
  type DBIterator,
  type DbOptions,
  type Snapshot,
  WriteBatch,
} from "@shale/db";
import { SstFileWriter } from "@shale/sstable";
import { ModelState, renderValue } from "./model.js";
import { type IterStep, ingestOrder, type Op, PREFIX_LENGTH, type WriteOp } from "./ops.js";
import { dbOptions, extraFamilyName, familyOptions, type OptionSet } from "./option-space.js";

const decoder = new TextDecoder();
const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : decoder.decode(b));

/** The first line of an error, with its code. */
export function describeError(e: unknown): string {
  if (ShaleError.isInstance(e)) return `${e.code}: ${e.message.split("\n")[0]}`;
  if (e instanceof Error) return `${e.name}: ${e.message.split("\n")[0]}`;
  return String(e);
}

export class Runner {
  private db!: DB;
  private readonly fs: FileSystem | undefined;
  private readonly fault: FaultInjectionFileSystem | undefined;
  private readonly dir: string;
  private readonly tempRoot: string | undefined;
  private readonly snaps = new Map<number, Snapshot>();
  private checkpoints = 0;
  private ingested = 0;
  /** The data as of the last durable point (a synced write, a clean close). */
  private durable = new ModelState();
  /** The atomic writes acknowledged since that point, in order. */
  private pending: WriteOp[][] = [];
  /** The data now (durable + pending). */
  private current = new ModelState();

  constructor(readonly set: OptionSet) {
    if (set.fs === "node") {
      this.tempRoot = mkdtempSync(join(tmpdir(), "shale-metamorphic-"));
      this.dir = join(this.tempRoot, "db");
      this.fs = undefined;
      this.fault = undefined;
    } else {
      this.tempRoot = undefined;
      this.dir = "/db";
      this.fault =
        set.fs === "fault" ? new FaultInjectionFileSystem(new MemoryFileSystem()) : undefined;
      this.fs = this.fault ?? new MemoryFileSystem();
    }
  }

  private options(): DbOptions {
    const columnFamilies: Record<string, object> = {};
    for (const name of this.current.families.keys())
      if (name !== "default") columnFamilies[name] = familyOptions(this.set);
    for (let i = 0; i < (this.set.extraFamilies ?? 0); i++)
      columnFamilies[extraFamilyName(i)] = familyOptions(this.set);
    return {
      ...dbOptions(this.set),
      ...(this.fs !== undefined ? { fs: this.fs } : {}),
      columnFamilies,
      createMissingColumnFamilies: true,
    };
  }

  async open(): Promise<void> {
    this.db = await DB.open(this.dir, this.options());
  }

  /** Closes the database (if open) and removes a temp directory. */
  async dispose(): Promise<void> {
    if (this.db !== undefined && !this.db.isClosed) await this.db.close().catch(() => undefined);
    if (this.tempRoot !== undefined) rmSync(this.tempRoot, { recursive: true, force: true });
  }

  private family(cf: string): DB | ColumnFamilyHandle {
    return cf === "default" ? this.db : this.db.columnFamily(cf);
  }

  private handle(cf: string): ColumnFamilyHandle | undefined {
    return cf === "default" ? undefined : this.db.columnFamily(cf);
  }

  private addTo(batch: WriteBatch, w: WriteOp): void {
    const h = this.handle(w.cf);
    switch (w.t) {
      case "put":
        batch.put(w.k, w.v, h);
        return;
      case "del":
        batch.delete(w.k, h);
        return;
      case "sdel":
        batch.singleDelete(w.k, h);
        return;
      case "merge":
        batch.merge(w.k, w.v, h);
        return;
      case "drange":
        batch.deleteRange(w.s, w.e, h);
        return;
    }
  }

  /** Records an acknowledged atomic write (`sync`: it and all before it are durable). */
  private acked(writes: WriteOp[], sync: boolean): void {
    for (const w of writes) this.current.apply(w);
    if (sync) {
      this.durable = this.current.clone();
      this.pending = [];
    } else this.pending.push(writes);
  }

  /** One write, as the operation says (plain calls for single writes, a batch for `sdel`). */
  private writeOne(w: WriteOp, sync: boolean): void {
    const options = sync ? { sync: true } : undefined;
    const target = this.family(w.cf);
    switch (w.t) {
      case "put":
        target.put(w.k, w.v, options);
        break;
      case "del":
        target.delete(w.k, options);
        break;
      case "merge":
        target.merge(w.k, w.v, options);
        break;
      case "drange":
        target.deleteRange(w.s, w.e, options);
        break;
      case "sdel": {
        const b = new WriteBatch();
        this.addTo(b, w);
        this.db.write(b, options);
        break;
      }
    }
    this.acked([w], sync);
  }

  async exec(op: Op): Promise<string> {
    try {
      return await this.execUnchecked(op);
    } catch (e) {
      return `error ${describeError(e)}`;
    }
  }

  private async execUnchecked(op: Op): Promise<string> {
    switch (op.t) {
      case "put":
      case "del":
      case "sdel":
      case "merge":
      case "drange":
        this.writeOne(op, op.sync === true);
        return "ok";
      case "batch": {
        const b = new WriteBatch();
        for (const w of op.ops) this.addTo(b, w);
        this.db.write(b, op.sync === true ? { sync: true } : undefined);
        this.acked(op.ops, op.sync === true);
        return "ok";
      }
      case "txn":
        return this.transaction(op);
      case "get": {
        const snapshot = op.snap === undefined ? undefined : this.snaps.get(op.snap);
        const v = this.family(op.cf).get(op.k, snapshot === undefined ? undefined : { snapshot });
        return renderValue(text(v));
      }
      case "iter":
        return this.iterate(op);
      case "prefix":
        return this.prefixSeek(op.cf, op.k, op.n);
      case "snap":
        this.snaps.set(op.id, this.db.snapshot());
        return "ok";
      case "release":
        this.snaps.get(op.id)?.release();
        this.snaps.delete(op.id);
        return "ok";
      case "flush":
        await this.family(op.cf).flush();
        return "ok";
      case "compact":
        await this.family(op.cf).compactRange(op.s, op.e);
        return "ok";
      case "checkpoint":
        return this.checkpoint();
      case "reopen":
        return this.reopen(op.crash === true);
      case "createCf":
        await this.db.createColumnFamily(op.cf, familyOptions(this.set));
        this.current.families.set(op.cf, new Map());
        this.durable.families.set(op.cf, new Map());
        return "ok";
      case "dropCf":
        await this.db.dropColumnFamily(op.cf);
        this.current.families.delete(op.cf);
        this.durable.families.delete(op.cf);
        return "ok";
      case "ingest":
        return this.ingest(op);
    }
  }

  /**
   * Writes the entries into an external table with SstFileWriter and ingests it (the file
   * is moved in). The ingestion is durable when it returns, and so is every write before it
   * (a power cut never leaves the file without the writes acknowledged before it).
   */
  private async ingest(op: Op & { t: "ingest" }): Promise<string> {
    const name = `ingest-${this.ingested++}.sst`;
    const path = this.tempRoot !== undefined ? join(this.tempRoot, name) : `/${name}`;
    const writer = new SstFileWriter({
      ...(this.fs !== undefined ? { fs: this.fs } : {}),
      mergeOperatorName: "StringAppendOperator",
    });
    writer.open(path);
    for (const w of op.ops) {
      if (w.t === "drange") writer.deleteRange(w.s, w.e);
    }
    for (const w of op.ops) {
      if (w.t === "put") writer.put(w.k, w.v);
      else if (w.t === "del") writer.delete(w.k);
      else if (w.t === "merge") writer.merge(w.k, w.v);
    }
    writer.finish();
    await this.family(op.cf).ingestExternalFile(path, { moveFiles: true });
    this.acked(ingestOrder(op.ops), true);
    return "ok";
  }

  private transaction(op: Op & { t: "txn" }): string {
    const txn = this.db.beginTransaction();
    try {
      for (const w of op.ops) {
        const h = this.handle(w.cf);
        if (w.t === "put") txn.put(w.k, w.v, h);
        else if (w.t === "del") txn.delete(w.k, h);
        else if (w.t === "merge") txn.merge(w.k, w.v, h);
        else throw new TypeError(`${w.t} in a transaction`);
      }
      const reads = op.reads.map(({ cf, k }) => {
        const h = this.handle(cf);
        return renderValue(text(h === undefined ? txn.get(k) : txn.get(k, h)));
      });
      if (op.conflict !== undefined) {
        const c = op.conflict;
        this.writeOne({ t: "put", cf: c.cf, k: c.k, v: c.v }, false);
      }
      try {
        txn.commit();
      } catch (e) {
        if (ShaleError.isInstance(e) && (e.code === "Busy" || e.code === "TryAgain"))
          return `conflict ${reads.join(" ")}`;
        throw e;
      }
      this.acked(op.ops, false);
      return `committed ${reads.join(" ")}`;
    } finally {
      if (txn.isActive) txn.rollback();
    }
  }

  private iterate(op: Op & { t: "iter" }): string {
    const snapshot = op.snap === undefined ? undefined : this.snaps.get(op.snap);
    const it = this.family(op.cf).iterator({
      ...(op.lo !== undefined ? { lowerBound: op.lo } : {}),
      ...(op.hi !== undefined ? { upperBound: op.hi } : {}),
      ...(snapshot !== undefined ? { snapshot } : {}),
      ...(this.set.prefix !== "none" ? { totalOrderSeek: true } : {}),
    });
    try {
      return op.steps.map((s) => this.step(it, s)).join(" ");
    } finally {
      it.close();
    }
  }

  private step(it: DBIterator, s: IterStep): string {
    if (s === "first") it.seekToFirst();
    else if (s === "last") it.seekToLast();
    else if (s === "next") {
      if (!it.valid()) return ".";
      it.next();
    } else if (s === "prev") {
      if (!it.valid()) return ".";
      it.prev();
    } else if ("seek" in s) it.seek(s.seek);
    else it.seekForPrev(s.seekForPrev);
    return it.valid() ? `${text(it.key())}=${text(it.value())}` : ".";
  }

  /**
   * A prefix seek: with an extractor, `prefixSameAsStart` (the database must stop at the
   * prefix's end by itself); without, a total-order seek cut at the prefix here.
   */
  private prefixSeek(cf: string, k: string, n: number): string {
    const withExtractor = this.set.prefix !== "none";
    const it = this.family(cf).iterator(withExtractor ? { prefixSameAsStart: true } : {});
    const prefix = k.slice(0, PREFIX_LENGTH);
    const out: string[] = [];
    try {
      for (it.seek(k); it.valid() && out.length < n; it.next()) {
        const key = text(it.key())!;
        if (!withExtractor && key.slice(0, PREFIX_LENGTH) !== prefix) break;
        out.push(`${key}=${text(it.value())}`);
      }
    } finally {
      it.close();
    }
    return out.join(" ");
  }

  /** Every family's entries (the model's `dump` form) of `db`. */
  private dumpOf(db: DB, families: Iterable<string>): string {
    const state = new ModelState();
    state.families.clear();
    for (const name of families) {
      const kv = new Map<string, string>();
      const source = name === "default" ? db : db.columnFamily(name);
      for (const [k, v] of source.iterator()) kv.set(text(k)!, text(v)!);
      state.families.set(name, kv);
    }
    return state.dump();
  }

  private async checkpoint(): Promise<string> {
    const dir =
      this.tempRoot !== undefined
        ? join(this.tempRoot, `checkpoint-${this.checkpoints++}`)
        : `/checkpoint-${this.checkpoints++}`;
    await this.db.checkpoint(dir);
    const copy = await DB.open(dir, { ...this.options(), createIfMissing: false });
    try {
      const extra = new Set(
        Array.from({ length: this.set.extraFamilies ?? 0 }, (_, i) => extraFamilyName(i)),
      );
      return this.dumpOf(
        copy,
        copy.listColumnFamilies().filter((n) => !extra.has(n)),
      );
    } finally {
      await copy.close();
    }
  }

  private async reopen(crash: boolean): Promise<string> {
    for (const s of this.snaps.values()) s.release();
    this.snaps.clear();
    if (!crash || this.fault === undefined) {
      await this.db.close();
      this.durable = this.current.clone();
      this.pending = [];
      await this.open();
      return "ok";
    }
    const fault = this.fault;
    fault.setFilesystemActive(false);
    await this.db.close().catch(() => undefined);
    fault.dropUnsyncedData();
    fault.clearFaults();
    fault.setFilesystemActive(true);
    await this.open();
    return this.recoverPrefix();
  }

  /**
   * After a power cut: the longest prefix of the pending writes the database holds (over the
   * durable state), then the rest written again. `lost ...` when no prefix matches.
   */
  private recoverPrefix(): string {
    const names = [...this.current.families.keys()];
    const got = this.dumpOf(this.db, names);
    const state = this.durable.clone();
    let match = state.dump() === got ? 0 : -1;
    for (let i = 0; i < this.pending.length; i++) {
      for (const w of this.pending[i]!) state.apply(w);
      if (state.dump() === got) match = i + 1;
    }
    if (match < 0) {
      return `lost: after the power cut the database holds ${got}; the last synced state is ${this.durable.dump()} and ${this.pending.length} writes followed`;
    }
    const redo = this.pending.slice(match);
    const survived = this.durable.clone();
    for (const writes of this.pending.slice(0, match)) for (const w of writes) survived.apply(w);
    this.durable = survived;
    this.current = survived.clone();
    this.pending = [];
    for (const writes of redo) {
      // Writes to families dropped since are gone with them.
      const live = writes.filter((w) => this.current.families.has(w.cf));
      if (live.length === 0) continue;
      const b = new WriteBatch();
      for (const w of live) this.addTo(b, w);
      this.db.write(b);
      this.acked(live, false);
    }
    return "ok";
  }
}
