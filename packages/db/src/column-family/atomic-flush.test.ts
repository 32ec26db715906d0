/**
 * atomicFlush (RocksDB's atomic_flush): every family with unflushed data is flushed together
 * and installed by one atomic group in the MANIFEST; the option is recorded in the OPTIONS
 * file and read back; a group cut short at the MANIFEST's end is ignored at recovery, and a
 * group whose write fails at any byte (a full disk) loses no acknowledged write.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FaultInjectionFileSystem, MemoryFileSystem } from "@shale/base";
import { LogReader } from "@shale/wal";
import { describe, expect, it } from "vitest";
import { readNewestOptions } from "../core/options-file.js";
import { DB } from "../db.js";
import { crashCopy } from "../test-support/crash-copy.test-support.js";
import { VersionEdit } from "../version/version-edit.js";
import { WriteBatch } from "../write/write-batch.js";

const str = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

const FAMILIES = { busy: {}, idle: {}, other: {} };

/** The MANIFEST's edits with their record offsets and end offsets. */
function manifestEdits(
  fs: MemoryFileSystem,
  dir = "/db",
): { edit: VersionEdit; offset: number; end: number; name: string }[] {
  const name = fs.list(dir).find((n) => n.startsWith("MANIFEST-"))!;
  const reader = new LogReader(fs.openSequential(`${dir}/${name}`), { fileName: name });
  const out: { edit: VersionEdit; offset: number; end: number; name: string }[] = [];
  for (let rec = reader.readRecord(); rec !== undefined; rec = reader.readRecord())
    out.push({
      edit: VersionEdit.decode(rec, name),
      offset: reader.lastRecordOffset,
      end: reader.lastRecordEndOffset,
      name,
    });
  return out;
}

/** The edits of the MANIFEST that carry InAtomicGroup, as "family:remaining:files". */
function groups(fs: MemoryFileSystem): string[] {
  return manifestEdits(fs)
    .filter(({ edit }) => edit.atomicGroupRemaining !== undefined)
    .map(({ edit }) => `${edit.columnFamily}:${edit.atomicGroupRemaining}:${edit.newFiles.length}`);
}

const l0 = (h: { getProperty(name: string): string | undefined }) =>
  Number(h.getProperty("shale.num-files-at-level0"));

describe("atomicFlush", () => {
  it("db.flush() flushes every family with data in one atomic group; an idle family is left out", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", {
      fs,
      atomicFlush: true,
      createMissingColumnFamilies: true,
      columnFamilies: FAMILIES,
    });
    const busy = db.columnFamily("busy");
    const other = db.columnFamily("other");
    db.put("d", "default");
    busy.put("b", "busy");
    other.put("o", "other");
    await db.flush();
    // default (0), busy (1), other (3): one edit each, counting down; idle (2) has no data.
    expect(groups(fs)).toEqual(["0:2:1", "1:1:1", "3:0:1"]);
    expect([l0(db), l0(busy), l0(db.columnFamily("idle")), l0(other)]).toEqual([1, 1, 0, 1]);
    // A handle's flush is the same: every family with data goes.
    busy.put("b2", "busy2");
    other.put("o2", "other2");
    await busy.flush();
    expect(groups(fs).slice(3)).toEqual(["1:1:1", "3:0:1"]);
    expect([l0(db), l0(busy), l0(other)]).toEqual([1, 2, 2]);
    // One family with data: a plain edit, as RocksDB writes it.
    other.put("o3", "other3");
    await db.flush();
    expect(groups(fs)).toHaveLength(5);
    expect(l0(other)).toBe(3);
    await db.close();
  });

  it("a memtable filling in one family flushes the others' data with it", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", {
      fs,
      atomicFlush: true,
      createMissingColumnFamilies: true,
      columnFamilies: { busy: { writeBufferSize: 64 * 1024 }, idle: {}, other: {} },
    });
    const busy = db.columnFamily("busy");
    const other = db.columnFamily("other");
    other.put("small", "one key");
    const value = "x".repeat(1000);
    for (let i = 0; i < 100 && l0(busy) === 0; i++) {
      busy.put(`k${i}`, value);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await db.waitForCompactions();
    expect(l0(busy)).toBeGreaterThan(0);
    expect(l0(other)).toBe(1); // its one key, flushed with busy's full memtable
    expect(groups(fs).slice(0, 2)).toEqual(["1:1:1", "3:0:1"]);
    await db.close();
  });

  it("is recorded as atomic_flush in the OPTIONS file and read back when not given", async () => {
    const fs = new MemoryFileSystem();
    const atomic = () =>
      readNewestOptions(fs, "/db")!
        .sections.find((s) => s.title === "DBOptions")!
        .entries.get("atomic_flush");
    const db = await DB.open("/db", {
      fs,
      atomicFlush: true,
      createMissingColumnFamilies: true,
      columnFamilies: FAMILIES,
    });
    await db.close();
    expect(atomic()).toBe("true");
    const again = await DB.open("/db", { fs }); // not given: the recorded value
    expect(atomic()).toBe("true");
    again.put("d", "1");
    again.columnFamily("idle").put("i", "1");
    await again.flush();
    expect(groups(fs)).toEqual(["0:1:1", "2:0:1"]);
    await again.close();
    const off = await DB.open("/db", { fs, atomicFlush: false });
    expect(atomic()).toBe("false");
    off.put("d", "2");
    off.columnFamily("idle").put("i", "2");
    await off.flush(); // default only
    expect(l0(off.columnFamily("idle"))).toBe(1);
    expect(l0(off)).toBe(2);
    await off.close();
  });

  it("a flush during recovery (avoidFlushDuringRecovery: false) installs the families as one group", async () => {
    const fs = new MemoryFileSystem();
    const options = {
      fs,
      atomicFlush: true,
      createMissingColumnFamilies: true,
      columnFamilies: FAMILIES,
    };
    const db = await DB.open("/db", options);
    db.put("d", "1");
    db.columnFamily("other").put("o", "1");
    await db.close(); // the writes stay in the WAL
    const again = await DB.open("/db", { ...options, avoidFlushDuringRecovery: false });
    // The new MANIFEST: its snapshot, then the recovery flush's group (every family's edit).
    expect(groups(fs)).toEqual(["0:3:1", "1:2:0", "2:1:0", "3:0:1"]);
    expect(str(again.columnFamily("other").get("o"))).toBe("1");
    await again.close();
  });

  it("on the node file system (worker flushes): writes go on during groups, a family dropped mid-group leaves it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shale-atomic-flush-"));
    try {
      const db = await DB.open(dir, {
        atomicFlush: true,
        createMissingColumnFamilies: true,
        columnFamilies: { busy: { writeBufferSize: 64 * 1024 }, idle: {}, other: {} },
      });
      const busy = db.columnFamily("busy");
      const other = db.columnFamily("other");
      const value = "v".repeat(2000);
      for (let i = 0; i < 400; i++) {
        const b = new WriteBatch();
        b.put(`k${i}`, value, busy).put(`k${i}`, `d${i}`);
        if (i % 50 === 0) b.put(`k${i}`, `o${i}`, other);
        db.write(b);
        if (i % 40 === 39) await new Promise((resolve) => setImmediate(resolve));
      }
      other.put("last", "in the group"); // other is in the next group for sure
      const flushing = db.flush();
      expect(Number(other.getProperty("shale.num-running-flushes"))).toBeGreaterThan(0);
      await db.dropColumnFamily("other"); // waits for the group's jobs, then drops
      await flushing;
      await db.waitForCompactions();
      expect(db.listColumnFamilies()).toEqual(["default", "busy", "idle"]);
      for (let i = 0; i < 400; i++) {
        expect(str(busy.get(`k${i}`))).toBe(value);
        expect(str(db.get(`k${i}`))).toBe(`d${i}`);
      }
      await db.close();
      const again = await DB.open(dir, {});
      try {
        expect(again.listColumnFamilies()).toEqual(["default", "busy", "idle"]);
        for (let i = 0; i < 400; i++) {
          expect(str(again.columnFamily("busy").get(`k${i}`))).toBe(value);
          expect(str(again.get(`k${i}`))).toBe(`d${i}`);
        }
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses an atomicFlush that is not a boolean (TypeError naming it)", async () => {
    const fs = new MemoryFileSystem();
    await expect(DB.open("/db", { fs, atomicFlush: "yes" as unknown as boolean })).rejects.toThrow(
      TypeError,
    );
    await expect(DB.open("/db", { fs, atomicFlush: 1 as unknown as boolean })).rejects.toThrow(
      /atomicFlush/,
    );
  });

  it("recovery ignores a group cut short at the MANIFEST's end and replays every family's WAL data", async () => {
    const fs = new SnapshotAtManifestSync();
    const options = {
      fs,
      atomicFlush: true,
      createMissingColumnFamilies: true,
      columnFamilies: FAMILIES,
    };
    const db = await DB.open("/db", options);
    const busy = db.columnFamily("busy");
    const other = db.columnFamily("other");
    for (let i = 0; i < 50; i++) {
      const b = new WriteBatch();
      b.put(`k${i}`, `d${i}`).put(`k${i}`, `b${i}`, busy).put(`k${i}`, `o${i}`, other);
      db.write(b);
    }
    fs.armed = true;
    await db.flush();
    await db.close();
    // The directory as a process killed right after the group's sync would leave it: the
    // group's tables and the WALs it releases are both there.
    const copy = fs.snapshot!;
    const edits = manifestEdits(copy);
    const first = edits.findIndex(({ edit }) => edit.atomicGroupRemaining === 2);
    expect(edits.slice(first).map(({ edit }) => edit.atomicGroupRemaining)).toEqual([2, 1, 0]);
    const wals = copy.list("/db").filter((n) => n.endsWith(".log"));
    const check = async (dir: MemoryFileSystem, expectTables: boolean) => {
      const again = await DB.open("/db", { ...options, fs: dir });
      try {
        const b = again.columnFamily("busy");
        const o = again.columnFamily("other");
        expect([l0(again), l0(b), l0(o)]).toEqual(expectTables ? [1, 1, 1] : [0, 0, 0]);
        for (let i = 0; i < 50; i++) {
          expect([str(again.get(`k${i}`)), str(b.get(`k${i}`)), str(o.get(`k${i}`))]).toEqual([
            `d${i}`,
            `b${i}`,
            `o${i}`,
          ]);
        }
      } finally {
        await again.close();
      }
    };
    // Whole group: the families open at their flushed tables.
    await check(crashCopy(copy, "/db"), true);
    // The writer died between the group's records: a whole record or two of it at the end.
    for (const cut of [edits[first]!.end, edits[first + 1]!.end]) {
      const torn = crashCopy(copy, "/db");
      torn.truncate(`/db/${edits[0]!.name}`, cut);
      expect(torn.list("/db").filter((n) => n.endsWith(".log"))).toEqual(wals);
      await check(torn, false);
    }
  });
});

describe("atomicFlush and a MANIFEST write that fails part way (a disk filling up)", () => {
  const options = (fs: FaultInjectionFileSystem) => ({
    fs,
    atomicFlush: true,
    createMissingColumnFamilies: true,
    columnFamilies: FAMILIES,
    disableAutoCompactions: true,
    compression: "none" as const,
  });
  /** A database with 60 acknowledged cross-family batches in its memtables. */
  async function filled(fs: FaultInjectionFileSystem): Promise<DB> {
    const db = await DB.open("/db", options(fs));
    const busy = db.columnFamily("busy");
    const other = db.columnFamily("other");
    for (let i = 0; i < 60; i++) {
      const b = new WriteBatch();
      b.put(`k${i}`, `d${i}`).put(`k${i}`, `b${i}`, busy).put(`k${i}`, `o${i}`, other);
      db.write(b);
    }
    return db;
  }

  it("reopens with every acknowledged write in every family, whatever byte the write stops at", async () => {
    // The bytes a fault-free group flush writes: three tables, then the group's records.
    const probe = new FaultInjectionFileSystem(new MemoryFileSystem());
    const p = await filled(probe);
    const bytes = () =>
      probe
        .list("/db")
        .filter((n) => !n.endsWith(".log")) // the WAL the flush retires is deleted after
        .reduce((sum, n) => sum + probe.fileSize(`/db/${n}`), 0);
    const before = bytes();
    await p.flush();
    const total = bytes() - before;
    await p.close();
    let failed = 0;
    for (let n = 0; n <= total + 2; n += Math.max(1, Math.floor(total / 60))) {
      const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
      const db = await filled(fs);
      fs.failWritesAfterBytes(n);
      const ok = await db.flush().then(
        () => true,
        () => false,
      );
      await db.close().catch(() => undefined);
      fs.clearFaults();
      if (!ok) failed++;
      const again = await DB.open("/db", options(fs));
      try {
        const b = again.columnFamily("busy");
        const o = again.columnFamily("other");
        for (let i = 0; i < 60; i++)
          expect(
            [str(again.get(`k${i}`)), str(b.get(`k${i}`)), str(o.get(`k${i}`))],
            `n=${n}`,
          ).toEqual([`d${i}`, `b${i}`, `o${i}`]);
      } finally {
        await again.close();
      }
    }
    expect(failed).toBeGreaterThan(10);
  });
});

/**
 * A MemoryFileSystem that, once `armed`, copies the directory (as a killed process leaves
 * it) at the first MANIFEST sync: the moment an atomic group is on disk and nothing it
 * releases is deleted yet.
 */
class SnapshotAtManifestSync extends MemoryFileSystem {
  armed = false;
  snapshot: MemoryFileSystem | undefined;

  override openWritable(path: string, options?: Parameters<MemoryFileSystem["openWritable"]>[1]) {
    const file = super.openWritable(path, options);
    if (!path.includes("MANIFEST-")) return file;
    const sync = file.sync.bind(file);
    file.sync = () => {
      sync();
      if (this.armed && this.snapshot === undefined) this.snapshot = crashCopy(this, "/db");
    };
    return file;
  }
}
