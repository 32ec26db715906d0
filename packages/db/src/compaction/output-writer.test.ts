import {
  bytewiseComparator,
  formatInternalKey,
  InternalKeyComparator,
  MemoryFileSystem,
  makeInternalKey,
  ValueKind,
} from "@shale/base";
import { TableReader } from "@shale/sstable";
import { describe, expect, it } from "vitest";
import { tableFileName } from "../core/filenames.js";
import { fileRange, isSentinelKey, rangesOverlap } from "../version/key-range.js";
import type { FileMetaData } from "../version/version-edit.js";
import { CompactionOutputs, type GrandparentFile } from "./output-writer.js";

const icmp = new InternalKeyComparator(bytewiseComparator);
const enc = (s: string) => new TextEncoder().encode(s);
const key = (i: number) => `k${String(i).padStart(4, "0")}`;

function write(
  fs: MemoryFileSystem,
  tombstones: { start: string; end: string; seq: number }[],
  grandparents: GrandparentFile[] = [],
  versionsPerKey = 3,
): FileMetaData[] {
  let next = 100;
  const out = new CompactionOutputs({
    fs,
    dir: "/db",
    builder: {
      comparator: bytewiseComparator,
      blockSize: 256,
      compression: "none",
      bitsPerKey: 10,
    },
    newFileNumber: () => next++,
    targetFileSize: 2048,
    grandparents,
    maxGrandparentOverlapBytes: 1000,
    tombstones: tombstones.map((t) => ({ start: enc(t.start), end: enc(t.end), seq: t.seq })),
  });
  for (let i = 0; i < 200; i++) {
    for (let v = versionsPerKey; v >= 1; v--)
      out.add(
        makeInternalKey(enc(key(i)), 1000 + i * 10 + v, ValueKind.Value),
        enc("x".repeat(20)),
      );
  }
  return out.finish();
}

function open(fs: MemoryFileSystem, f: FileMetaData): TableReader {
  const path = tableFileName("/db", f.number);
  return TableReader.open(fs.openRandomAccess(path), { fileSize: f.size, fileName: path });
}

describe("CompactionOutputs", () => {
  it("cuts at the target size, between user keys only", () => {
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    const files = write(fs, []);
    expect(files.length).toBeGreaterThan(3);
    for (let i = 1; i < files.length; i++) {
      const a = fileRange(files[i - 1]!);
      const b = fileRange(files[i]!);
      expect(rangesOverlap(bytewiseComparator, a, b), `${i}`).toBe(false);
      expect(icmp.compare(files[i - 1]!.largest, files[i]!.smallest)).toBeLessThan(0);
    }
    let entries = 0;
    for (const f of files) {
      const r = open(fs, f);
      entries += r.properties.numEntries;
      expect(r.properties.numEntries % 3, "whole user keys per file").toBe(0);
      r.close();
    }
    expect(entries).toBe(600);
  });

  it("clips range tombstones to each file, ending a file on the sentinel", () => {
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    const files = write(fs, [
      { start: "a", end: key(150), seq: 5000 },
      { start: key(199), end: "z", seq: 5001 },
    ]);
    const all: string[] = [];
    for (let i = 0; i < files.length; i++) {
      const f = files[i]!;
      const r = open(fs, f);
      for (const t of r.rangeTombstones().tombstones())
        all.push(
          `${new TextDecoder().decode(t.start)}-${new TextDecoder().decode(t.end)}@${t.seq}`,
        );
      r.close();
      if (i + 1 < files.length) {
        // Every file but the last ends where the next begins: on the tombstone sentinel while
        // the first tombstone lasts.
        const next = fileRange(files[i + 1]!);
        expect(rangesOverlap(bytewiseComparator, fileRange(f), next)).toBe(false);
      }
    }
    expect(formatInternalKey(files[0]!.smallest)).toBe("a#5000,RANGEDEL");
    expect(isSentinelKey(files[0]!.largest)).toBe(true);
    expect(formatInternalKey(files[files.length - 1]!.largest)).toMatch(/^z#\d+,RANGEDEL$/);
    // The pieces put back together are the two tombstones.
    const first = all.filter((s) => s.endsWith("@5000"));
    expect(first[0]!.startsWith("a-")).toBe(true);
    for (let i = 1; i < first.length; i++)
      expect(first[i]!.split("-")[0]).toBe(first[i - 1]!.split("-")[1]!.split("@")[0]);
    expect(first[first.length - 1]!.split("-")[1]).toBe(`${key(150)}@5000`);
    expect(all.filter((s) => s.endsWith("@5001"))).toEqual([`${key(199)}-z@5001`]);
  });

  it("writes a table of tombstones alone when no point entry survives", () => {
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    const out = new CompactionOutputs({
      fs,
      dir: "/db",
      builder: { comparator: bytewiseComparator },
      newFileNumber: () => 7,
      targetFileSize: 1,
      grandparents: [],
      maxGrandparentOverlapBytes: 1,
      tombstones: [{ start: enc("b"), end: enc("f"), seq: 9 }],
    });
    const files = out.finish();
    expect(
      files.map((f) => [f.number, formatInternalKey(f.smallest), isSentinelKey(f.largest)]),
    ).toEqual([[7, "b#9,RANGEDEL", true]]);
    // Nothing at all: no table.
    const none = new CompactionOutputs({
      fs,
      dir: "/db",
      builder: { comparator: bytewiseComparator },
      newFileNumber: () => 8,
      targetFileSize: 1,
      grandparents: [],
      maxGrandparentOverlapBytes: 1,
      tombstones: [],
    });
    expect(none.finish()).toEqual([]);
    expect(fs.exists(tableFileName("/db", 8))).toBe(false);
  });

  it("cuts early when a file would overlap too much of the grandparent level", () => {
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    const gp: GrandparentFile[] = [];
    for (let i = 0; i < 200; i += 4)
      gp.push({ lo: enc(key(i)), hi: enc(key(i + 1)), hiExclusive: false, size: 300 });
    const plain = write(fs, [], [], 1).length;
    const cut = write(fs, [], gp, 1).length;
    expect(cut).toBeGreaterThan(plain);
  });
});
