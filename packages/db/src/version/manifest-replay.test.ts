/**
 * replayManifest: column families, atomic groups, best-efforts bookkeeping — on MANIFESTs
 * built edit by edit.
 */
import {
  bytewiseComparator,
  InternalKeyComparator,
  MemoryFileSystem,
  makeInternalKey,
  ShaleError,
  ValueKind,
} from "@shale/base";
import { LogWriter } from "@shale/wal";
import { describe, expect, it } from "vitest";
import { recoverManifest } from "./manifest-recovery.js";
import { replayManifest } from "./manifest-replay.js";
import { type FileMetaData, VersionEdit } from "./version-edit.js";

const icmp = new InternalKeyComparator(bytewiseComparator);
const text = (s: string) => new TextEncoder().encode(s);

function table(number: number, lo: string, hi: string): FileMetaData {
  return {
    number,
    size: 10,
    smallest: makeInternalKey(text(lo), 1, ValueKind.Value),
    largest: makeInternalKey(text(hi), 1, ValueKind.Value),
    smallestSeq: 1,
    largestSeq: 1,
  };
}

function edit(build: (e: VersionEdit) => void): VersionEdit {
  const e = new VersionEdit();
  build(e);
  return e;
}

function write(edits: VersionEdit[]): MemoryFileSystem {
  const fs = new MemoryFileSystem();
  fs.mkdir("/db");
  const w = new LogWriter(fs.openWritable("/db/MANIFEST-000001"));
  for (const e of edits) w.addRecord(e.encode());
  w.close();
  return fs;
}

const base = edit((e) => {
  e.comparator = icmp.name;
  e.logNumber = 1;
  e.nextFileNumber = 100;
  e.lastSequence = 5;
});

const replay = (fs: MemoryFileSystem, bestEfforts = false) =>
  replayManifest("/db/MANIFEST-000001", { fs, dir: "/db", icmp, bestEfforts });

describe("replayManifest", () => {
  it("applies a complete atomic group together and leaves out one the MANIFEST ends inside", () => {
    const group = (n: number, remaining: number, cf: number) =>
      edit((e) => {
        e.columnFamily = cf;
        e.addFile(0, table(n, "a", "b"));
        e.atomicGroupRemaining = remaining;
      });
    const addCf = edit((e) => {
      e.columnFamily = 1;
      e.columnFamilyAdd = "other";
    });
    const fs = write([base, addCf, group(10, 1, 0), group(11, 0, 1), group(12, 1, 0)]);
    const { state } = replay(fs);
    expect(state.version.levels[0]!.map((f) => f.number)).toEqual([10]);
    expect(state.families.get(1)!.version.levels[0]!.map((f) => f.number)).toEqual([11]);
    expect(state.units).toBe(3); // base, the add, the complete group
    expect(state.namedTables.has(12)).toBe(false);
  });

  it("refuses an atomic group whose counts are out of order, or that a plain edit interrupts", () => {
    const g = (remaining: number) =>
      edit((e) => {
        e.atomicGroupRemaining = remaining;
      });
    const code = (fs: MemoryFileSystem) => {
      try {
        replay(fs);
        return "ok";
      } catch (e) {
        return ShaleError.isInstance(e) ? `${e.code} ${e.message}` : String(e);
      }
    };
    expect(code(write([base, g(2), g(0)]))).toMatch(/Corruption.*atomic group out of order/);
    expect(code(write([base, g(1), base]))).toMatch(/Corruption.*atomic group ends early/);
    expect(code(write([base, g(1), g(0)]))).toBe("ok");
  });

  it("keeps other families' files and log numbers, forgets dropped ones, ignores their late edits", () => {
    const fs = write([
      base,
      edit((e) => {
        e.columnFamily = 3;
        e.columnFamilyAdd = "three";
        e.logNumber = 4;
      }),
      edit((e) => {
        e.columnFamily = 3;
        e.addFile(1, table(20, "a", "c"));
        e.addFile(1, table(21, "d", "f"));
      }),
      edit((e) => {
        e.columnFamily = 3;
        e.deleteFile(1, 20);
      }),
      edit((e) => {
        e.columnFamily = 4;
        e.columnFamilyAdd = "four";
      }),
      edit((e) => {
        e.columnFamily = 4;
        e.columnFamilyDrop = true;
      }),
      edit((e) => {
        e.columnFamily = 4;
        e.addFile(0, table(30, "a", "b")); // a flush that raced the drop
      }),
    ]);
    const { state } = replay(fs);
    expect([...state.families.keys()]).toEqual([3]);
    const three = state.families.get(3)!;
    expect([three.name, three.logNumber, three.version.levels[1]!.map((f) => f.number)]).toEqual([
      "three",
      4,
      [21],
    ]);
    expect(state.maxColumnFamily).toBe(4);
    expect([...state.liveTables()].map((f) => f.number)).toEqual([21]);
  });

  it("refuses edits of unknown families, a second add and dropping default", () => {
    const msg = (edits: VersionEdit[]) => {
      try {
        replay(write([base, ...edits]));
        return "ok";
      } catch (e) {
        return String(e);
      }
    };
    const add = (cf: number) =>
      edit((e) => {
        e.columnFamily = cf;
        e.columnFamilyAdd = "x";
      });
    expect(msg([edit((e) => void (e.columnFamily = 7))])).toMatch(/unknown column family 7/);
    expect(msg([add(2), add(2)])).toMatch(/added twice/);
    expect(msg([add(0)])).toMatch(/added twice/);
    expect(msg([edit((e) => void (e.columnFamilyDrop = true))])).toMatch(
      /default column family cannot be dropped/,
    );
  });

  it("refuses a comparator the database was not created with (InvalidArgument)", () => {
    const other = edit((e) => {
      e.comparator = "rocksdb.ReverseBytewiseComparator";
    });
    expect(() => replay(write([other]))).toThrow(/does not match existing comparator/);
  });

  it("best efforts: the last state whose tables all exist", () => {
    const fs = write([
      base,
      edit((e) => e.addFile(0, table(10, "a", "b"))),
      edit((e) => e.addFile(0, table(11, "a", "b"))),
      edit((e) => e.deleteFile(0, 11)),
      edit((e) => e.addFile(0, table(12, "a", "b"))),
    ]);
    fs.writeFile("/db/000010.sst", new Uint8Array(10));
    fs.writeFile("/db/000012.sst", new Uint8Array(9)); // wrong size
    const r = replay(fs, true);
    expect(r.state.units).toBe(5);
    // 11 is missing, but the edit after deletes it: state 4 is whole; 12 is short.
    expect(r.lastWhole).toBe(4);
    expect(r.missing).toEqual(["000012.sst has 9 bytes, not 10"]);
    expect(r.damage).toBeUndefined();
  });

  it("best efforts: an edit that fails half way leaves nothing of itself in the state", () => {
    const fs = write([
      base,
      edit((e) => {
        e.logNumber = 50;
        e.lastSequence = 900;
        e.deleteFile(0, 999); // damage: no such file
      }),
    ]);
    fs.writeFile("/db/CURRENT", text("MANIFEST-000001\n"));
    const { state, report } = recoverManifest(fs, "/db", icmp, true);
    expect([state.logNumber, state.lastSequence, state.units]).toEqual([1, 5, 1]);
    expect(report).toMatch(/MANIFEST-000001: read up to damage .*deletes unknown file 999/);
    expect(() => recoverManifest(fs, "/db", icmp, false)).toThrow(/deletes unknown file 999/);
  });
});
