/**
 * A follower tailing the primary's MANIFEST (manifest-tail.ts) applies an atomic group whole:
 * while the primary has written only part of it, nothing of the group is applied and the
 * read offset stays before it; once the group is complete, every family's edit is applied by
 * the same advance. And a secondary instance follows a primary with atomicFlush.
 */
import {
  bytewiseComparator,
  InternalKeyComparator,
  MemoryFileSystem,
  makeInternalKey,
  ValueKind,
} from "@shale/base";
import { LogWriter } from "@shale/wal";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { type FileMetaData, VersionEdit } from "../version/version-edit.js";
import { ManifestTail } from "./manifest-tail.js";

const icmp = new InternalKeyComparator(bytewiseComparator);
const text = (s: string) => new TextEncoder().encode(s);

function table(number: number): FileMetaData {
  return {
    number,
    size: 10,
    smallest: makeInternalKey(text("a"), 1, ValueKind.Value),
    largest: makeInternalKey(text("b"), 1, ValueKind.Value),
    smallestSeq: 1,
    largestSeq: 1,
  };
}

function edit(build: (e: VersionEdit) => void): VersionEdit {
  const e = new VersionEdit();
  build(e);
  return e;
}

const groupEdit = (cf: number, file: number, remaining: number) =>
  edit((e) => {
    e.columnFamily = cf;
    e.logNumber = 9;
    e.addFile(0, table(file));
    e.atomicGroupRemaining = remaining;
  });

describe("ManifestTail and atomic groups", () => {
  it("applies nothing of a group the primary is still writing, then all of it", () => {
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    const w = new LogWriter(fs.openWritable("/db/MANIFEST-000001"));
    w.addRecord(
      edit((e) => {
        e.comparator = icmp.name;
        e.logNumber = 1;
        e.nextFileNumber = 100;
        e.lastSequence = 5;
      }).encode(),
    );
    w.addRecord(
      edit((e) => {
        e.columnFamily = 1;
        e.columnFamilyAdd = "other";
      }).encode(),
    );
    w.flush();
    fs.writeFile("/db/CURRENT", text("MANIFEST-000001\n"));
    const tail = new ManifestTail(fs, "/db", icmp);
    expect(tail.advance()).toBe(2);
    const before = tail.offset;
    // Two of the group's three records are in the file.
    w.addRecord(groupEdit(0, 10, 2).encode());
    w.addRecord(groupEdit(1, 11, 1).encode());
    w.flush();
    expect(tail.advance()).toBe(0);
    expect(tail.offset).toBe(before);
    expect(tail.state.version.levels[0]).toEqual([]);
    expect(tail.state.families.get(1)!.version.levels[0]).toEqual([]);
    expect(tail.state.logNumber).toBe(1);
    // The last one lands: the whole group is applied at once.
    w.addRecord(groupEdit(0, 12, 0).encode());
    w.flush();
    expect(tail.advance()).toBe(3);
    expect(tail.state.version.levels[0]!.map((f) => f.number).sort()).toEqual([10, 12]);
    expect(tail.state.families.get(1)!.version.levels[0]!.map((f) => f.number)).toEqual([11]);
    expect([tail.state.logNumber, tail.state.families.get(1)!.logNumber]).toEqual([9, 9]);
    expect(tail.offset).toBe(fs.fileSize("/db/MANIFEST-000001"));
    w.close();
  });

  it("a secondary follows a primary whose flushes are atomic groups", async () => {
    const fs = new MemoryFileSystem();
    const primary = await DB.open("/db", {
      fs,
      atomicFlush: true,
      createMissingColumnFamilies: true,
      columnFamilies: { busy: {} },
    });
    const busy = primary.columnFamily("busy");
    for (let i = 0; i < 20; i++) {
      primary.put(`k${i}`, `d${i}`);
      busy.put(`k${i}`, `b${i}`);
    }
    const secondary = await DB.openAsSecondary("/db", "/secondary", { fs });
    try {
      await primary.flush(); // one group: default and busy
      primary.put("after", "in the WAL");
      secondary.tryCatchUpWithPrimary();
      for (let i = 0; i < 20; i++) expect(secondary.get(`k${i}`)).toEqual(text(`d${i}`));
      expect(secondary.get("after")).toEqual(text("in the WAL"));
      expect(secondary.getProperty("shale.num-files-at-level0")).toBe("1");
    } finally {
      await secondary.close();
      await primary.close();
    }
  });
});
