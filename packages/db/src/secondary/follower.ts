/**
 * Read-only and secondary instances (RocksDB's DB::OpenForReadOnly and DB::OpenAsSecondary):
 * a `DB` that reads another process's database and never writes to it.
 *
 * Both are a `DB` whose writes are refused (NotSupported, through the db's `writeRefusal`)
 * with no background work (no flush, no compaction, no file deleted) and no LOCK on the
 * primary's directory, so they open beside a writer that holds it. What they read:
 *
 *   CURRENT -> MANIFEST (ManifestTail: edits from where the last read stopped)
 *           -> every column family's Version installed in the db's VersionSet (its
 *              tables opened first); families created or dropped since are added or dropped
 *   WALs >= the lowest log number of any family (WalTail: one memtable per WAL and family,
 *           records from where the last read stopped) -> each family's memtables (those of
 *           the WALs at or above its log number: newest WAL = `mem`, older = `imm`)
 *
 * - read-only: this happens once, at open; the instance shows the database as of then.
 *   Nothing is written anywhere. The tables of the version are opened at open (up to
 *   `maxOpenFiles`) and stay readable while the writer deletes them (an open file stays
 *   readable on POSIX); a table opened later (beyond `maxOpenFiles`) that the writer has
 *   deleted meanwhile fails its read with IOError — reopen the read-only instance.
 * - secondary: `tryCatchUpWithPrimary()` repeats it: new MANIFEST edits (including a new
 *   MANIFEST after the primary reopened), new WAL records (including new WALs), installed
 *   at once. Reads then see every write the primary had handed to the OS (every synced
 *   write included) before the catch-up began. The secondary registers the files it reads
 *   with the primary (registration.ts), which keeps them until it catches up or its lease
 *   (`secondaryLeaseMs`) ends.
 *
 * Races with the primary: a MANIFEST or table that vanishes between being looked up and
 * being opened was deleted because the primary moved on: the catch-up starts over from
 * CURRENT (a few times, backing off a little; then IOError naming the file). A WAL that
 * vanishes was flushed: the MANIFEST read after the WALs names its tables (else the
 * catch-up starts over the same way), and the WALs below that MANIFEST's log number are
 * dropped — a primary that flushes faster than a catch-up reads does not make it fail.
 *
 * Snapshots and iterators of a secondary keep the versions they read, as on a primary; the
 * primary does not know the secondary's snapshots, so its compactions may drop entries
 * older than the secondary's current state (as with RocksDB's secondaries).
 */
import {
  type Comparator,
  type FileSystem,
  type InternalKeyComparator,
  ShaleError,
} from "@shale/base";
import type { MemTable } from "@shale/memtable";
import type { TableCache } from "@shale/sstable";
import type { WalRecoveryMode } from "@shale/wal";
import { logFileName, tableFileName } from "../core/filenames.js";
import type { FamilyComparator } from "../version/manifest-replay.js";
import type { Version } from "../version/version.js";
import type { FollowedFamilies, VersionSet } from "../version/version-set.js";
import type { ImmutableMemTable } from "../write/immutable-memtable.js";
import { isMissingFile, ManifestTail, Vanished } from "./manifest-tail.js";
import { RegistrationWriter } from "./registration.js";
import { FamilyNotYetKnown, type WalFamilies, WalTail } from "./wal-tail.js";

export type DbRole = "primary" | "readOnly" | "secondary";

/** What `tryCatchUpWithPrimary` did. */
export interface CatchUpResult {
  /** MANIFEST edits applied (a new MANIFEST counts its whole snapshot). */
  manifestEdits: number;
  /** WAL records (write batches) applied. */
  walRecords: number;
  /** The sequence number reads see now. */
  lastSequence: number;
}

/** What a follower needs from its db (db.ts `followerHost`). */
export interface FollowerHost {
  readonly versions: VersionSet;
  readonly tableCache: TableCache;
  /** Opens the families `versions.followManifest` added and retires those it dropped. */
  familiesChanged(change: FollowedFamilies): void;
  /**
   * Opens table `number` of family `family` (its comparator `icmp`) in the table cache its
   * reads use (a family not open yet: the shared cache if it orders like `default`).
   */
  openTable(family: number, icmp: InternalKeyComparator, number: number, size: number): void;
  /**
   * Replaces the memtables reads of family `id` see (`mem`: the newest WAL's; `imm`: newest
   * first).
   */
  setMemTables(id: number, mem: MemTable, imm: ImmutableMemTable[]): void;
  /** The sequence number reads see. */
  readonly lastSequence: number;
  setLastSequence(seq: number): void;
}

/** Tries of one catch-up when files keep vanishing under it. */
const MAX_ATTEMPTS = 20;
/** WAL passes of one catch-up while new MANIFEST edits keep arriving. */
const MAX_REREADS = 8;

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export interface FollowerOptions {
  role: "readOnly" | "secondary";
  walRecoveryMode: WalRecoveryMode;
  /** Lease of the secondary's registration (ms). */
  leaseMs: number;
  maxOpenFiles: number;
  /** The comparator of each family other than default (manifest-replay.ts). */
  familyComparator?: FamilyComparator;
}

export class Follower {
  readonly role: "readOnly" | "secondary";
  private readonly dir: string;
  private readonly icmp: InternalKeyComparator;
  private readonly options: FollowerOptions;
  private readonly manifest: ManifestTail;
  private readonly wals: WalTail;
  private readonly registration: RegistrationWriter | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private host: FollowerHost | undefined;
  /** The MANIFEST state has edits not installed yet (a table vanished half way). */
  private pending = true;

  constructor(fs: FileSystem, dir: string, icmp: InternalKeyComparator, options: FollowerOptions) {
    this.role = options.role;
    this.dir = dir;
    this.icmp = icmp;
    this.options = options;
    this.manifest = new ManifestTail(fs, dir, icmp, options.familyComparator);
    this.wals = new WalTail(fs, dir, options.walRecoveryMode);
    if (options.role === "secondary") {
      this.registration = new RegistrationWriter(fs, dir, options.leaseMs);
      this.heartbeat = setInterval(() => this.registration?.renew(), options.leaseMs / 3);
      this.heartbeat.unref?.();
    }
  }

  /** The file of this secondary's registration in the primary's directory (undefined: read-only). */
  get registrationFile(): string | undefined {
    return this.registration?.file;
  }

  /**
   * Connects to the db it feeds. Call once, then `catchUp()`. A table the primary deleted
   * before this instance opened it (beyond `maxOpenFiles`, or after a lease ended) makes
   * reads fail with an IOError that says so and what to do, instead of a bare ENOENT.
   */
  attach(host: FollowerHost): void {
    this.host = host;
    const cache = host.tableCache;
    const get = cache.get.bind(cache);
    const role = this.role;
    const dir = this.dir;
    cache.get = (fileNumber: number, fileSize: number) => {
      try {
        return get(fileNumber, fileSize);
      } catch (e) {
        if (!isMissingFile(e)) throw e;
        const path = tableFileName(dir, fileNumber);
        throw ShaleError.ioError(
          `${path} was deleted by the primary before this ${role === "readOnly" ? "read-only" : "secondary"} instance opened it (only the first maxOpenFiles tables are opened up front); ${role === "readOnly" ? "reopen the read-only instance" : "call tryCatchUpWithPrimary()"}`,
          path,
          e,
        );
      }
    };
  }

  /**
   * Reads what the primary appended to its MANIFEST and WALs since the last call and
   * installs it. Synchronous. Throws Corruption for damage (before the end of a file being
   * written), IOError when files keep vanishing (the primary very busy) or cannot be read.
   */
  catchUp(): CatchUpResult {
    const host = this.host;
    if (host === undefined) throw ShaleError.invalidArgument("follower not attached");
    let manifestEdits = 0;
    let walRecords = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        const edits = this.manifest.advance();
        manifestEdits += edits;
        if (edits > 0) this.pending = true;
        if (this.pending) this.install(host);
        walRecords += this.wals.advance(this.manifest.minLogNumber, this.walFamilies());
        // A flush installed while the WALs were read may have deleted a WAL we never listed
        // (its data is in a table the MANIFEST names now): read the MANIFEST on. Its edit is
        // synced before its WALs are deleted, so every WAL deleted before the listing is
        // below the log number its family has now, and every WAL at or above the lowest log
        // number read now was listed or holds nothing unflushed: the versions read now plus
        // the WALs at or above each family's log number are whole. The WALs below them are
        // in their tables (merge operands must not count twice): not read.
        let later = this.manifest.advance();
        // Edits that arrived while the WALs were read carry the primary's sequence number
        // as of their writing, which may be past the records read (a flush installed after
        // writes to its new WAL): read the WALs again, then the MANIFEST, until a pass
        // finds no new edit — every write at or below an edit's sequence is then in a
        // table or in a WAL read after the edit was (up to MAX_REREADS passes).
        for (let pass = 0; later > 0 && pass < MAX_REREADS; pass++) {
          manifestEdits += later;
          this.pending = true;
          walRecords += this.wals.advance(this.manifest.minLogNumber, this.walFamilies());
          later = this.manifest.advance();
        }
        manifestEdits += later;
        if (later > 0) this.pending = true;
        this.wals.dropBelow(this.manifest.minLogNumber);
        // A WAL deleted under the read is below the highest family log number (a family
        // flushed past it), or else it was lost. (A family with a lower log number had no
        // unflushed data there: the primary keeps a WAL while any family needs it.)
        const vanished = this.wals.vanished;
        if (vanished !== undefined && vanished >= this.manifest.maxLogNumber)
          throw new Vanished(logFileName(this.dir, vanished));
        if (this.pending) this.install(host);
        break;
      } catch (e) {
        if (!(e instanceof Vanished)) throw e;
        if (attempt >= MAX_ATTEMPTS)
          throw e instanceof FamilyNotYetKnown
            ? ShaleError.corruption(e.message, e.path, 0)
            : ShaleError.ioError(
                `catching up with the primary: ${e.path} vanished ${MAX_ATTEMPTS} times (the primary deleted files faster than they could be opened)`,
                e.path,
              );
        sleep(Math.min(2 * attempt, 20));
      }
    }
    for (const family of host.versions.families.values()) {
      const { mem, imm } = this.wals.memTables(family.id, family.icmp.user, family.logNumber);
      host.setMemTables(family.id, mem, imm);
    }
    const seq = Math.max(
      host.lastSequence,
      this.manifest.state.lastSequence ?? 0,
      this.wals.lastSequence,
    );
    host.setLastSequence(seq);
    this.register(host);
    return { manifestEdits, walRecords, lastSequence: seq };
  }

  /** Registers (secondary) what the live versions and WALs read pin. */
  private register(host: FollowerHost, extra: readonly number[] = []): void {
    const reg = this.registration;
    if (reg === undefined) return;
    const tables = host.versions.liveTableNumbers();
    for (const n of extra) tables.push(n);
    const logNumber = this.manifest.minLogNumber;
    const minLog = Math.min(logNumber, this.wals.minLogNumber);
    reg.write(this.manifest.number, Number.isFinite(minLog) ? minLog : logNumber, [
      ...new Set(tables),
    ]);
  }

  /** The families the MANIFEST read so far has (for the WAL reader). */
  private walFamilies(): WalFamilies {
    const state = this.manifest.state;
    return {
      comparatorOf: (id): Comparator | undefined =>
        id === 0 ? this.icmp.user : state.families.get(id)?.icmp.user,
      maxColumnFamily: state.maxColumnFamily,
    };
  }

  /**
   * Installs the MANIFEST's versions, every family's: registers their tables (secondary),
   * opens them (up to `maxOpenFiles`; a table missing now is Vanished: the MANIFEST has
   * moved on), then makes them the db's current versions with the MANIFEST's counters, and
   * opens (or retires) the families created (or dropped) since the last install.
   */
  private install(host: FollowerHost): void {
    const state = this.manifest.state;
    const families: [number, InternalKeyComparator, Version][] = [[0, this.icmp, state.version]];
    for (const f of state.families.values()) families.push([f.id, f.icmp, f.version]);
    const tables: number[] = [];
    for (const [, , version] of families) {
      for (const f of version.levels.flat()) tables.push(f.number);
      for (const n of version.blobFiles.keys()) tables.push(n);
    }
    this.register(host, tables);
    let opened = 0;
    for (const [id, icmp, version] of families) {
      for (const f of version.levels.flat()) {
        if (opened++ >= this.options.maxOpenFiles) break;
        try {
          host.openTable(id, icmp, f.number, f.size);
        } catch (e) {
          if (isMissingFile(e)) throw new Vanished(tableFileName(this.dir, f.number));
          throw e;
        }
      }
    }
    const change = host.versions.followManifest(state, {
      nextFileNumber: state.nextFileNumber ?? 2,
      manifestNumber: this.manifest.number,
    });
    host.familiesChanged(change);
    this.pending = false;
  }

  /** A version of the db was released: the registration may pin fewer tables now. */
  versionsReleased(): void {
    if (this.host !== undefined && this.registration !== undefined) this.register(this.host);
  }

  /** Stops the heartbeat and removes the registration. Idempotent. */
  close(): void {
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    this.registration?.remove();
  }
}
