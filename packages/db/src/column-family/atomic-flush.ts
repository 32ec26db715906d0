/**
 * Atomic flush (RocksDB's `atomic_flush`): the column families' memtables are switched and
 * flushed together, and their new versions reach the MANIFEST as ONE atomic group, so after
 * any crash the families' flushed states are cut at the same sequence number — even for
 * writes that skipped the WAL (`disableWAL`), which no replay could bring back.
 *
 * ```
 *   family A full (or db.flush(), a handle's flush)
 *     -> switchAll: ONE WAL roll; every family with data in its mutable memtable seals it
 *     -> maybeSchedule (one group at a time): every immutable memtable of every family
 *          A.imm[0..a]  B.imm[0..b]  C.imm[0..c]   (flush jobs, in parallel where workers run)
 *     -> all jobs done: one edit per family (its L0 tables, its new log number)
 *          MANIFEST: [A: InAtomicGroup 2] [B: InAtomicGroup 1] [C: InAtomicGroup 0], one sync
 *     -> the memtables leave every family together; WALs no family needs are deleted
 * ```
 * A group of one family is a plain edit (as RocksDB writes it). Recovery and followers apply
 * a group whole or not at all (version/manifest-replay.ts `EditUnits`): a group cut short at
 * the end of the MANIFEST is ignored, and the WALs it would have released are still there.
 *
 * A failed job or MANIFEST write fails the whole group (nothing of it is installed) and is a
 * background error, as for any flush.
 *
 * Threading: the database's thread; job results arrive as in flush-scheduler.ts.
 */
import type { FileSystem } from "@shale/base";
import type { FlushOptions } from "../core/call-options.js";
import type { FlushReason } from "../core/event-listeners.js";
import type { FileMetaData } from "../version/version-edit.js";
import type { VersionSet } from "../version/version-set.js";
import type { ImmutableMemTable } from "../write/immutable-memtable.js";
import type { ActiveWal } from "../write/write-path.js";
import type { AtomicFlushCoordinator, ColumnFamilyData } from "./column-family-data.js";
import type { DbStatus } from "./db-status.js";

/** What atomic flushes need from their database. */
export interface AtomicFlushHost {
  readonly fs: FileSystem;
  readonly dir: string;
  readonly versions: VersionSet;
  readonly wal: ActiveWal;
  readonly status: DbStatus;
  /** The database's column families (dropped ones are skipped). */
  families(): Iterable<ColumnFamilyData>;
}

/** One family's part of a running group. */
interface Part {
  readonly cf: ColumnFamilyData;
  /** Its immutable memtables in the group, oldest first. */
  readonly targets: readonly ImmutableMemTable[];
  readonly files: (FileMetaData | undefined)[];
}

export class AtomicFlush implements AtomicFlushCoordinator {
  private readonly host: AtomicFlushHost;
  /** A group is being flushed (one at a time: groups install in switch order). */
  private running = false;
  /** Set while `switchAll` queues the sealed memtables: no group starts with only some. */
  private switching = false;

  constructor(host: AtomicFlushHost) {
    this.host = host;
  }

  /** True while a group's flush jobs run (or it is being installed). */
  get busy(): boolean {
    return this.running;
  }

  /**
   * Switches the mutable memtable of every family that holds data (one new WAL for all) and
   * queues them for the next group; then, as a single family's switch does, stops writes of
   * each family while `maxWriteBufferNumber` of its memtables are full.
   */
  switchAll(reason: FlushReason = "Others"): void {
    const host = this.host;
    const full = [...host.families()].filter((cf) => !cf.dropped && cf.memHasData);
    if (full.length === 0) return;
    host.wal.roll(host.fs, host.dir, host.versions.newFileNumber());
    this.switching = true;
    try {
      for (const cf of full) {
        const sealed = cf.sealMemtable();
        cf.flushes.add(sealed.mem, sealed.logNumber, reason);
      }
    } finally {
      this.switching = false;
    }
    this.maybeSchedule();
    for (const cf of full) cf.afterSwitch();
  }

  /**
   * `db.flush()` or a handle's flush: switches every family with data, then (unless
   * `{ wait: false }`) resolves once no family has an immutable memtable left.
   */
  async flush(options?: FlushOptions): Promise<void> {
    this.switchAll();
    if (options?.wait === false) return;
    const waits: Promise<void>[] = [];
    for (const cf of this.host.families())
      if (!cf.dropped && cf.flushes.imm.length > 0) waits.push(cf.flushes.waitForAll());
    await Promise.all(waits);
  }

  /** Starts a group of every family's immutable memtables, unless one is running. */
  maybeSchedule(): void {
    const host = this.host;
    if (this.running || this.switching || host.status.closed || host.status.failed) return;
    const parts: Part[] = [];
    for (const cf of host.families()) {
      if (cf.dropped || cf.flushes.imm.length === 0) continue;
      const targets = [...cf.flushes.imm].reverse();
      parts.push({ cf, targets, files: targets.map(() => undefined) });
    }
    if (parts.length === 0) return;
    this.running = true;
    let pending = 0;
    for (const p of parts) pending += p.targets.length;
    let failure: Error | undefined;
    for (const p of parts) {
      p.targets.forEach((target, i) => {
        p.cf.flushes.startJob(target, (error, file) => {
          if (error !== undefined) failure ??= error;
          else p.files[i] = file;
          if (--pending === 0) this.finish(parts, failure);
        });
      });
    }
  }

  /** Every job of the group answered: installs the group (one MANIFEST write) or fails it. */
  private finish(parts: readonly Part[], failure: Error | undefined): void {
    const host = this.host;
    for (const p of parts) p.cf.flushes.jobsDone(p.targets.length);
    this.running = false;
    // A family dropped meanwhile leaves the group (its drop waited for the jobs).
    const live = parts.filter((p) => !p.cf.dropped);
    let error = failure;
    const edits = live.map((p) => ({
      edit: p.cf.flushes.editFor(p.targets, p.files),
      family: p.cf.versions,
    }));
    if (error === undefined) {
      try {
        if (edits.length > 0) host.versions.logAndApplyGroup(edits);
      } catch (e) {
        error = e instanceof Error ? e : new Error(String(e));
      }
    }
    if (error !== undefined) {
      host.status.failBackground(error);
      return;
    }
    for (const p of live) p.cf.flushes.installed(p.targets);
    for (const p of live) p.cf.flushes.reportInstalled(p.targets, p.files);
    if (live.length > 0) {
      const lowest = Math.min(...edits.map((e) => e.edit.logNumber!));
      live[0]!.cf.flushes.releaseWals(lowest);
    }
    for (const p of live) p.cf.flushes.tablesInstalled(p.files);
    for (const p of live) p.cf.flushes.afterInstall(false);
    this.maybeSchedule();
  }
}
