/**
 * ColumnFamilySet: the column families of one open database (RocksDB's ColumnFamilySet) —
 * each family's tree (ColumnFamilyData) by id, the one handle per family that
 * `db.columnFamily(name)` returns, and what creating and dropping a family does besides the
 * MANIFEST edit: the tree built or retired, and a new OPTIONS file with every family's
 * sections. db.ts keeps the public methods and their argument checks.
 *
 * Threading: the database's thread.
 */
import { InternalKeyComparator, ShaleError, Ticker } from "@shale/base";
import { TableCache } from "@shale/sstable";
import { type TableIdentity, tableWriteOptions } from "../compaction/build-table.js";
import { tableFileName } from "../core/filenames.js";
import { newFamilyMemTable } from "../core/memtable-bloom-option.js";
import {
  type ColumnFamilyOptions,
  type ResolvedOptions,
  resolveColumnFamilyOptions,
} from "../core/options.js";
import { readNewestOptions } from "../core/options-file.js";
import type { WriteBufferManager } from "../core/write-buffer-manager.js";
import { writeOptions } from "../open/recovery.js";
import type { FamilyVersions } from "../version/version-set.js";
import { retireMemtables } from "../write/chunk-pool.js";
import { type BatchFamily, FamilyId } from "../write/write-batch.js";
import {
  ColumnFamilyData,
  type ColumnFamilyHost,
  type RecoveredMemTables,
} from "./column-family-data.js";
import type { FamilyMethodsCore } from "./family-methods.js";
import { ColumnFamilyHandle } from "./handle.js";
import { pickFamilyForBudget } from "./write-budget.js";

export class ColumnFamilySet {
  /** The families by id; `default` is id 0. */
  private readonly byId = new Map<number, ColumnFamilyData>();
  private readonly handles = new Map<ColumnFamilyData, ColumnFamilyHandle>();
  /** The data-method core handles are made with (set once the database is built). */
  core: FamilyMethodsCore | undefined;
  /** Called with each handle made (a TransactionDB installs its waiting writes). */
  onHandle: ((handle: ColumnFamilyHandle, cf: ColumnFamilyData) => void) | undefined;
  /** The oldest live WAL `switchForWal` last switched the memtables for. */
  private walSwitchedFor = -1;
  /** Flushes the write-buffer budget started (`flushForBudget`; RocksDB's kWriteBufferManager). */
  budgetFlushes = 0;
  /** Micros writes waited for the write-buffer budget (`stallForBudget`). */
  budgetStallMicros = 0;

  constructor(
    private readonly host: ColumnFamilyHost,
    /** The database's key order: families ordered alike share its table cache. */
    private readonly icmp: InternalKeyComparator,
    /** The database's options: a family's own options resolve over them. */
    private readonly options: ResolvedOptions,
    private readonly identity: TableIdentity,
  ) {}

  /** The families, in the order they were added (`default` first). */
  /** The families open now (`default` included). */
  get size(): number {
    return this.byId.size;
  }

  values(): IterableIterator<ColumnFamilyData> {
    return this.byId.values();
  }

  get(id: number): ColumnFamilyData | undefined {
    return this.byId.get(id);
  }

  /** The table caches of the families: the database's, and those of other key orders. */
  tableCaches(): Set<TableCache> {
    const caches = new Set<TableCache>([this.host.tableCache]);
    for (const f of this.byId.values()) caches.add(f.tableCache);
    return caches;
  }

  /** The names in RocksDB's id order ("default" first). */
  names(): string[] {
    return [...this.byId.values()].sort((a, b) => a.id - b.id).map((f) => f.name);
  }

  /** The oldest WAL some family still needs (`current`: the WAL being written). */
  minLogToKeep(current: number): number {
    let min = current;
    for (const f of this.byId.values()) if (f.oldestLogNeeded < min) min = f.oldestLogNeeded;
    return min;
  }

  /**
   * Adds a family's tree (at open, or created). It shares the database's table cache when it
   * orders keys like `default`; otherwise it gets its own.
   */
  add(
    versions: FamilyVersions,
    options: ResolvedOptions,
    recovered: RecoveredMemTables,
  ): ColumnFamilyData {
    const host = this.host;
    const cache =
      versions.icmp.name === this.icmp.name
        ? host.tableCache
        : newTableCache(host.dir, options, versions.icmp);
    const table = tableWriteOptions(options, this.identity, versions);
    const cf = new ColumnFamilyData(host, versions, options, table, recovered, cache);
    this.byId.set(cf.id, cf);
    this.updateWalLimit();
    return cf;
  }

  /**
   * Sets the WAL's `maxTotalBytes` from `maxTotalWalSize` (0: four times the sum over the
   * families of `writeBufferSize * maxWriteBufferNumber`, RocksDB's rule). With one family
   * there is no limit: its own flushes free every WAL.
   */
  private updateWalLimit(): void {
    let limit = Number.POSITIVE_INFINITY;
    if (this.byId.size > 1) {
      limit = this.options.maxTotalWalSize;
      if (limit === 0) {
        for (const f of this.byId.values())
          limit += f.options.writeBufferSize * f.options.maxWriteBufferNumber;
        limit *= 4;
      }
    }
    this.host.wal.maxTotalBytes = limit;
  }

  /**
   * The live WALs hold more than `maxTotalWalSize` (RocksDB's SwitchWAL): the families with
   * data in the oldest live WAL switch their memtables (one WAL roll for all; with
   * `atomicFlush`, every family) and flush them, so that WAL can be deleted. Once per oldest
   * WAL: their flushes are then under way, and a WAL still held after them (by a prepared
   * transaction, or by a family whose flush is already queued) asks for nothing more.
   */
  switchForWal(): void {
    const { wal, fs, dir, versions, atomicFlush } = this.host;
    const oldest = wal.oldestLiveLog;
    if (oldest === this.walSwitchedFor) return;
    this.walSwitchedFor = oldest;
    if (atomicFlush !== undefined) {
      atomicFlush.switchAll("WalFull");
      return;
    }
    const due: ColumnFamilyData[] = [];
    for (const f of this.byId.values())
      if (!f.dropped && f.memHasData && f.memLogNumber <= oldest) due.push(f);
    if (due.length === 0) return;
    wal.roll(fs, dir, versions.newFileNumber());
    for (const f of due) {
      const sealed = f.sealMemtable();
      f.flushes.add(sealed.mem, sealed.logNumber, "WalFull");
    }
    for (const f of due) f.afterSwitch();
  }

  /**
   * The write-buffer budget is reached (`WriteBufferManager.shouldFlush`): switches and
   * flushes the family whose mutable memtable is the oldest of those holding data with no
   * flush queued or running (with `atomicFlush`, every family), flush reason
   * "WriteBufferManager" (column-family/write-budget.ts).
   */
  flushForBudget(): void {
    const atomic = this.host.atomicFlush;
    if (atomic !== undefined) {
      let data = false;
      for (const f of this.byId.values()) if (!f.dropped && f.memHasData) data = true;
      if (!data) return;
      this.budgetFlushes++;
      atomic.switchAll("WriteBufferManager");
      return;
    }
    const picked = pickFamilyForBudget(this.byId.values());
    if (picked === undefined) return;
    this.budgetFlushes++;
    picked.switchMemtable("WriteBufferManager");
  }

  /**
   * `allowStall`: the memtables take the whole budget. Waits synchronously for this database's
   * flushes until they free enough (or none is left to wait for: another database's memtables
   * are not flushed here), as RocksDB's WriteBufferManagerStallWrites waits; throws the
   * background error if a flush failed meanwhile.
   */
  stallForBudget(manager: WriteBufferManager): void {
    const { executor, status, statistics } = this.host;
    const t0 = performance.now();
    while (manager.shouldStall() && status.backgroundError === undefined) {
      if (executor.pending === 0) for (const f of this.byId.values()) f.flushes.maybeSchedule();
      if (executor.pending === 0) break;
      executor.drainCompleted(100);
    }
    const micros = Math.round((performance.now() - t0) * 1000);
    this.budgetStallMicros += micros;
    if (statistics !== undefined) statistics.tick(Ticker.StallMicros, micros);
    // A flush failed during the wait: the write does not go on (as after the L0 stalls).
    if (status.backgroundError !== undefined) status.checkWritable();
  }

  /**
   * A follower's family the primary dropped: its handles throw from now on, and it leaves
   * the set.
   */
  retire(id: number): void {
    const cf = this.byId.get(id);
    if (cf === undefined) return;
    cf.dropped = true;
    this.byId.delete(id);
    this.updateWalLimit();
  }

  /** The handle of family `name`; InvalidArgument naming it when there is none. */
  handleByName(name: string): ColumnFamilyHandle {
    for (const f of this.byId.values()) if (f.name === name) return this.handleOf(f);
    throw ShaleError.invalidArgument(`unknown column family: "${name}"`);
  }

  handleOf(cf: ColumnFamilyData): ColumnFamilyHandle {
    let h = this.handles.get(cf);
    if (h === undefined) {
      h = new ColumnFamilyHandle(this.core!, cf);
      this.onHandle?.(h, cf);
      this.handles.set(cf, h);
    }
    return h;
  }

  /**
   * The tree a handle names (or, for a `FamilyId` of a batch from `WriteBatch.fromData`, the
   * family of that id); InvalidArgument for another database's handle, an id this database
   * does not have, or a dropped family.
   */
  familyOf(handle: BatchFamily): ColumnFamilyData {
    if (handle instanceof FamilyId) {
      const byId = this.byId.get(handle.id);
      if (byId === undefined)
        throw ShaleError.invalidArgument(
          `the batch names column family ${handle.id}, which this database does not have`,
        );
      if (byId.dropped) throw byId.droppedError();
      return byId;
    }
    const cf = handle instanceof ColumnFamilyHandle ? handle.familyFor(this.core!) : undefined;
    if (cf === undefined)
      throw ShaleError.invalidArgument("the column family handle belongs to another database");
    if (cf.dropped) throw cf.droppedError();
    return cf;
  }

  /**
   * Creates family `name` (InvalidArgument if it exists): one synced MANIFEST edit, the tree,
   * and a new OPTIONS file. `options` are checked by the caller.
   */
  create(name: string, options: ColumnFamilyOptions | undefined): ColumnFamilyHandle {
    const { versions: versionSet, wal } = this.host;
    if (versionSet.familyByName(name) !== undefined)
      throw ShaleError.invalidArgument(`column family already exists: "${name}"`);
    const own = resolveColumnFamilyOptions(this.options, name, options);
    const icmp = new InternalKeyComparator(own.comparator);
    const versions = versionSet.addFamily(name, icmp, wal.number);
    const mem = newFamilyMemTable(own);
    const cf = this.add(versions, own, { mem, imm: [], memLogNumber: wal.number });
    this.rewriteOptions();
    cf.start();
    return this.handleOf(cf);
  }

  /**
   * Drops family `name` (not `default`; InvalidArgument otherwise): its running flush and
   * compactions finish, one synced MANIFEST edit drops it, its memtables are retired.
   */
  async drop(name: string): Promise<void> {
    if (name === "default")
      throw ShaleError.invalidArgument('the "default" column family cannot be dropped');
    const cf = [...this.byId.values()].find((f) => f.name === name);
    if (cf === undefined) throw ShaleError.invalidArgument(`unknown column family: "${name}"`);
    cf.dropped = true; // no new writes, flushes or compactions
    while (cf.flushes.numRunning > 0 || cf.compactions.numRunning > 0)
      await new Promise((resolve) => setTimeout(resolve, 2));
    this.host.versions.dropFamily(cf.versions);
    this.byId.delete(cf.id);
    this.updateWalLimit();
    retireMemtables(cf.chunkPool, cf.mem, cf.flushes.imm, cf.flushes.history);
    cf.charge?.releaseAll();
    cf.flushes.dropped(); // its flush waiters are done
    this.rewriteOptions();
  }

  /** A new OPTIONS file with every family's sections. */
  private rewriteOptions(): void {
    const { fs, dir, versions } = this.host;
    const previous = readNewestOptions(fs, dir)?.sections ?? [];
    const families = new Map(
      [...this.byId].map(([id, f]) => [id, { options: f.options, versions: f.versions }]),
    );
    writeOptions(fs, dir, versions, this.options, previous, Infinity, families);
  }
}

/** A table cache for tables ordered by `icmp` (families of other comparators get their own). */
export function newTableCache(
  dir: string,
  options: ResolvedOptions,
  icmp: InternalKeyComparator,
): TableCache {
  const statistics = options.statistics;
  return new TableCache({
    fs: options.fs,
    path: (n) => tableFileName(dir, n),
    capacity: options.maxOpenFiles,
    comparator: icmp.user,
    blockCache: options.blockCache,
    ...(options.sharedBlockCache !== undefined
      ? { sharedBlockCache: options.sharedBlockCache }
      : {}),
    cacheIndexAndFilterBlocks: options.cacheIndexAndFilterBlocks,
    ...(statistics !== undefined ? { statistics } : {}),
  });
}
