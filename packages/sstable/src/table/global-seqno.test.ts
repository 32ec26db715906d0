/**
 * Tables with a global sequence number (ingested external files): every entry and range
 * deletion presented at it, from the MANIFEST's largest seqno or from the property that
 * RocksDB's `write_global_seqno` writes in place (the properties block's checksum then
 * checked with it zeroed). Format: format/external-file.ts.
 */
import {
  bytesToString,
  bytewiseComparator,
  InternalKeyComparator,
  LookupResult,
  LookupState,
  MemoryFileSystem,
  makeInternalKey,
  parseInternalKey,
  putFixed64,
  ValueKind,
} from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { globalSeqnoOf } from "../format/external-file.js";
import { SstFileWriter } from "./sst-file-writer.js";
import { TableReader } from "./table-reader.js";

const enc = new TextEncoder();
const corruption = expect.objectContaining({ code: "Corruption" });

function writeFile(fs: MemoryFileSystem, path: string, keys: string[], rangeDel = false): void {
  const w = new SstFileWriter({ fs });
  w.open(path);
  for (const [i, k] of keys.entries()) {
    if (i % 5 === 3) w.delete(k);
    else if (i % 5 === 4) w.merge(k, `m${i}`);
    else w.put(k, `v${i}`);
  }
  if (rangeDel) w.deleteRange("a", "zz");
  w.finish();
}

/** Offset of the 8-byte global seqno value in the file (the property name's tail precedes it). */
function globalSeqnoOffset(bytes: Uint8Array): number {
  const name = enc.encode("global_seqno");
  outer: for (let i = 0; i + name.length + 8 <= bytes.length; i++) {
    for (let j = 0; j < name.length; j++) if (bytes[i + j] !== name[j]) continue outer;
    return i + name.length;
  }
  throw new Error("no global seqno property");
}

/** Writes `seqno` into the file's property in place, as RocksDB's write_global_seqno does. */
function writeGlobalSeqnoInPlace(fs: MemoryFileSystem, path: string, seqno: number): number {
  const bytes = fs.readFile(path).slice();
  const at = globalSeqnoOffset(bytes);
  putFixed64(bytes, at, seqno);
  fs.writeFile(path, bytes);
  return at;
}

function scan(reader: TableReader): { key: string; seq: number; kind: number }[] {
  const out: { key: string; seq: number; kind: number }[] = [];
  const it = reader.newIterator();
  try {
    for (it.seekToFirst(); it.valid(); it.next()) {
      const p = parseInternalKey(it.key());
      out.push({ key: bytesToString(p.userKey), seq: p.seq, kind: p.kind });
    }
  } finally {
    it.close();
  }
  return out;
}

const keys = Array.from({ length: 40 }, (_, i) => `k${String(i).padStart(3, "0")}`);

describe("a table with a global seqno", () => {
  it("takes it from the MANIFEST's largest seqno: entries, lookups and tombstones at it", () => {
    const fs = new MemoryFileSystem();
    writeFile(fs, "/t.sst", keys, true);
    const reader = TableReader.open(fs.openRandomAccess("/t.sst"), { largestSeqno: 7 });
    try {
      expect(reader.globalSeqno).toBe(7);
      const entries = scan(reader);
      expect(entries.map((e) => e.key)).toEqual(keys);
      expect(new Set(entries.map((e) => e.seq))).toEqual(new Set([7]));
      expect(entries[3]!.kind).toBe(ValueKind.Deletion);
      expect(entries[4]!.kind).toBe(ValueKind.Merge);
      expect(entries[0]!.kind).toBe(ValueKind.Value);
      expect(
        reader
          .rangeTombstones()
          .tombstones()
          .map((t) => t.seq),
      ).toEqual([7]);
      // Hidden from a snapshot below it, seen at it.
      expect(reader.get(enc.encode("k000"), 6).state).toBe(LookupState.NotFound);
      const r = reader.get(enc.encode("k000"), 7, new LookupResult());
      expect(r.state).toBe(LookupState.Found);
      expect(r.seq).toBe(7);
      expect(bytesToString(r.value!)).toBe("v0");
      expect(reader.get(enc.encode("k003")).state).toBe(LookupState.Deleted);
      // A seek lands on the entries in order, from the middle too, and backwards.
      const it = reader.newIterator();
      it.seek(makeInternalKey(enc.encode("k010"), 100, ValueKind.Value));
      expect(bytesToString(parseInternalKey(it.key()).userKey)).toBe("k010");
      it.prev();
      expect(parseInternalKey(it.key())).toMatchObject({ seq: 7 });
      expect(bytesToString(parseInternalKey(it.key()).userKey)).toBe("k009");
      it.seekToLast();
      expect(bytesToString(parseInternalKey(it.key()).userKey)).toBe("k039");
      it.close();
    } finally {
      reader.close();
    }
  });

  it("keeps seq 0 for an external file whose largest seqno is 0, and alone (unknown)", () => {
    const fs = new MemoryFileSystem();
    writeFile(fs, "/t.sst", keys);
    for (const options of [{ largestSeqno: 0 }, {}]) {
      const reader = TableReader.open(fs.openRandomAccess("/t.sst"), options);
      expect(reader.globalSeqno).toBe(0);
      expect(new Set(scan(reader).map((e) => e.seq))).toEqual(new Set([0]));
      reader.close();
    }
  });

  it("reads a property written in place (write_global_seqno): the checksum is checked with it zeroed", () => {
    const fs = new MemoryFileSystem();
    writeFile(fs, "/t.sst", keys);
    writeGlobalSeqnoInPlace(fs, "/t.sst", 9);
    for (const options of [{}, { largestSeqno: 9 }]) {
      const reader = TableReader.open(fs.openRandomAccess("/t.sst"), options);
      expect(reader.globalSeqno).toBe(9);
      expect(reader.properties.externalFile).toEqual({ version: 2, globalSeqno: 9 });
      expect(new Set(scan(reader).map((e) => e.seq))).toEqual(new Set([9]));
      reader.close();
    }
    // A MANIFEST that disagrees with the property is Corruption, as in RocksDB.
    expect(() => TableReader.open(fs.openRandomAccess("/t.sst"), { largestSeqno: 8 })).toThrow(
      corruption,
    );
  });

  it("still fails a properties block damaged elsewhere", () => {
    const fs = new MemoryFileSystem();
    writeFile(fs, "/t.sst", keys);
    const at = writeGlobalSeqnoInPlace(fs, "/t.sst", 9);
    const bytes = fs.readFile("/t.sst").slice();
    bytes[at - 3]! ^= 0x01; // a byte of the property's name
    fs.writeFile("/t.sst", bytes);
    expect(() => TableReader.open(fs.openRandomAccess("/t.sst"))).toThrow(corruption);
  });

  it("follows RocksDB's rules for the property (globalSeqnoOf)", () => {
    const seqno = String.fromCharCode(5, 0, 0, 0, 0, 0, 0, 0);
    const name = "rocksdb.external_sst_file.global_seqno";
    expect(() => globalSeqnoOf({ user: { [name]: seqno } }, undefined, "f")).toThrow(corruption);
    expect(globalSeqnoOf({ user: {}, externalFile: { version: 1, globalSeqno: 0 } }, 4, "f")).toBe(
      0,
    );
    expect(() =>
      globalSeqnoOf(
        { user: { [name]: seqno }, externalFile: { version: 1, globalSeqno: 5 } },
        undefined,
        "f",
      ),
    ).toThrow(corruption);
    const v2 = { user: { [name]: seqno }, externalFile: { version: 2, globalSeqno: 5 } };
    expect(globalSeqnoOf(v2, undefined, "f")).toBe(5);
    expect(globalSeqnoOf(v2, 5, "f")).toBe(5);
    expect(() => globalSeqnoOf(v2, 6, "f")).toThrow(corruption);
    expect(globalSeqnoOf({ user: {} }, 12, "f")).toBe(0);
  });

  it("seeks by the presented keys: seek and seekForPrev agree with a sorted list (property)", () => {
    const fs = new MemoryFileSystem();
    const names = Array.from({ length: 30 }, (_, i) => `k${String(i * 2).padStart(3, "0")}`);
    writeFile(fs, "/s.sst", names);
    const G = 50;
    const reader = TableReader.open(fs.openRandomAccess("/s.sst"), { largestSeqno: G });
    const icmp = new InternalKeyComparator(bytewiseComparator);
    const presented: Uint8Array[] = [];
    const all = reader.newIterator();
    for (all.seekToFirst(); all.valid(); all.next()) presented.push(all.key().slice());
    all.close();
    const it = reader.newIterator();
    try {
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 62 }),
          fc.integer({ min: 0, max: 100 }),
          fc.constantFrom(ValueKind.Value, ValueKind.Deletion, ValueKind.Merge),
          (k, seq, kind) => {
            const target = makeInternalKey(enc.encode(`k${String(k).padStart(3, "0")}`), seq, kind);
            const ge = presented.find((p) => icmp.compare(p, target) >= 0);
            it.seek(target);
            expect(it.valid() ? it.key().slice() : undefined).toEqual(ge);
            const le = presented.filter((p) => icmp.compare(p, target) <= 0).at(-1);
            it.seekForPrev(target);
            expect(it.valid() ? it.key().slice() : undefined).toEqual(le);
          },
        ),
        { numRuns: 400 },
      );
    } finally {
      it.close();
      reader.close();
    }
  });

  it("presents any file's entries in order at any global seqno (property)", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 2 ** 40 }),
        (raw, seqno) => {
          const sorted = [...raw].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
          const fs = new MemoryFileSystem();
          writeFile(fs, "/p.sst", sorted);
          const reader = TableReader.open(fs.openRandomAccess("/p.sst"), { largestSeqno: seqno });
          try {
            const entries = scan(reader);
            expect(entries.map((e) => e.key)).toEqual(sorted);
            for (const e of entries) expect(e.seq).toBe(seqno);
          } finally {
            reader.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
