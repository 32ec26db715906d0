import {
  bytewiseComparator,
  InternalKeyComparator,
  MemoryFileSystem,
  makeInternalKey,
  ValueKind,
} from "@shale/base";
import { describe, expect, it } from "vitest";
import { type FileMetaData, VersionEdit } from "../version/version-edit.js";
import { VersionSet } from "../version/version-set.js";

const icmp = new InternalKeyComparator(bytewiseComparator);
const enc = (s: string) => new TextEncoder().encode(s);

function file(number: number, lo: string, hi: string): FileMetaData {
  return {
    number,
    size: 100,
    smallest: makeInternalKey(enc(lo), number, ValueKind.Value),
    largest: makeInternalKey(enc(hi), number, ValueKind.Value),
    smallestSeq: number,
    largestSeq: number,
  };
}

function open(): { versions: VersionSet; obsolete: number[] } {
  const fs = new MemoryFileSystem();
  fs.mkdir("/db");
  const versions = new VersionSet({ fs, dir: "/db", icmp, mergeOperatorName: undefined });
  versions.nextFileNumber = 1;
  versions.rollManifest();
  const obsolete: number[] = [];
  versions.onObsoleteFiles = (numbers) => obsolete.push(...numbers);
  return { versions, obsolete };
}

describe("Version reference counting", () => {
  it("reports a file obsolete only once no live version holds it", () => {
    const { versions, obsolete } = open();
    versions.logAndApply(
      new VersionEdit().addFile(0, file(10, "a", "c")).addFile(0, file(11, "b", "d")),
    );
    const v1 = versions.current;
    v1.ref(); // an iterator
    expect(v1.refCount).toBe(2);
    versions.logAndApply(
      new VersionEdit()
        .deleteFile(0, 10)
        .deleteFile(0, 11)
        .addFile(1, file(12, "a", "d")),
    );
    expect(obsolete).toEqual([]);
    expect(versions.liveVersions).toBe(2);
    expect(versions.isLiveFile(10)).toBe(true);
    v1.unref();
    expect(obsolete.sort()).toEqual([10, 11]);
    expect(versions.liveVersions).toBe(1);
    expect(versions.isLiveFile(10)).toBe(false);
    expect(() => v1.ref()).toThrowError(/released version/);
    expect(() => v1.unref()).toThrowError(/without a matching ref/);
    // A trivial move keeps the file: same number, another level.
    versions.logAndApply(new VersionEdit().deleteFile(1, 12).addFile(2, file(12, "a", "d")));
    expect(obsolete.sort()).toEqual([10, 11]);
    expect(versions.current.toString()).toBe("L2: 12[a#12,SET .. d#12,SET]");
  });

  it("keeps several pins independent", () => {
    const { versions, obsolete } = open();
    versions.logAndApply(new VersionEdit().addFile(0, file(20, "a", "b")));
    const a = versions.current;
    a.ref();
    versions.logAndApply(new VersionEdit().addFile(0, file(21, "c", "d")));
    const b = versions.current;
    b.ref();
    versions.logAndApply(new VersionEdit().deleteFile(0, 20).deleteFile(0, 21));
    b.unref();
    expect(obsolete).toEqual([21]); // 20 is still held by a
    a.unref();
    expect(obsolete).toEqual([21, 20]);
  });
});
