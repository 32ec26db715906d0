import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ShaleError } from "@shale/base";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { VersionEdit } from "../version/version-edit.js";
import { applyBlobFileEdits, type BlobFileMeta } from "./blob-file-meta.js";

const u64 = fc.nat({ max: Number.MAX_SAFE_INTEGER });
const additionArb = fc.record({
  number: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  totalBlobCount: u64,
  totalBlobBytes: u64,
  checksumMethod: fc.constantFrom("", "crc32c", "FileChecksumCrc32c"),
  checksumValue: fc.uint8Array({ maxLength: 8 }),
});
const garbageArb = fc.record({
  number: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  garbageBlobCount: u64,
  garbageBlobBytes: u64,
});

describe("blob files in the MANIFEST", () => {
  it("version edits with blob file additions and garbage round-trip", () => {
    fc.assert(
      fc.property(
        fc.array(additionArb, { maxLength: 4 }),
        fc.array(garbageArb, { maxLength: 4 }),
        fc.option(u64, { nil: undefined }),
        (additions, garbage, lastSequence) => {
          const e = new VersionEdit();
          e.lastSequence = lastSequence;
          e.blobFileAdditions.push(...additions);
          e.blobFileGarbages.push(...garbage);
          const d = VersionEdit.decode(e.encode(), "MANIFEST-000001");
          expect(d.blobFileAdditions).toEqual(additions);
          expect(d.blobFileGarbages).toEqual(garbage);
          expect(d.lastSequence).toBe(lastSequence);
          expect(d.encode()).toEqual(e.encode());
        },
      ),
    );
  });

  it("decodes RocksDB's bytes, skips custom fields, rejects forward-incompatible ones", () => {
    // Tag 400 (90 03): file 10, 1 blob of 38 bytes, no checksum, end.
    expect(
      VersionEdit.decode(Uint8Array.of(0x90, 3, 10, 1, 38, 0, 0, 0)).blobFileAdditions,
    ).toEqual([
      {
        number: 10,
        totalBlobCount: 1,
        totalBlobBytes: 38,
        checksumMethod: "",
        checksumValue: new Uint8Array(0),
      },
    ]);
    // Tag 401 (91 03) with a skippable custom field 5 ("xy"), then tag 8195 (old number).
    const g = VersionEdit.decode(
      Uint8Array.of(0x91, 3, 10, 1, 38, 5, 2, 0x78, 0x79, 0, 0x83, 0x40, 11, 2, 9, 0),
    );
    expect(g.blobFileGarbages).toEqual([
      { number: 10, garbageBlobCount: 1, garbageBlobBytes: 38 },
      { number: 11, garbageBlobCount: 2, garbageBlobBytes: 9 },
    ]);
    expect(() =>
      VersionEdit.decode(Uint8Array.of(0x91, 3, 10, 1, 38, 65, 0, 0), "MANIFEST-000009", 100),
    ).toThrow(/Corruption.*forward incompatible/);
  });

  const meta = (number: number, total: number, garbage = 0): BlobFileMeta => ({
    number,
    totalBlobCount: total,
    totalBlobBytes: total * 10,
    checksumMethod: "",
    checksumValue: new Uint8Array(0),
    garbageBlobCount: garbage,
    garbageBlobBytes: garbage * 10,
  });
  const fail = (m: string) => ShaleError.corruption(m);

  it("keeps what RocksDB's version builder keeps", () => {
    const base = new Map([10, 11, 12, 13].map((n) => [n, meta(n, 2)]));
    // Oldest linked file 11: 10 goes; 12 unlinked but not all garbage stays.
    const a = applyBlobFileEdits(base, [], [], [{ oldestBlobFileNumber: 11 }, {}], fail);
    expect([...a.keys()]).toEqual([11, 12, 13]);
    // 12 turns all garbage and nothing links to it: dropped; 13 (linked) stays even so.
    const b = applyBlobFileEdits(
      a,
      [],
      [
        { number: 12, garbageBlobCount: 2, garbageBlobBytes: 20 },
        { number: 13, garbageBlobCount: 2, garbageBlobBytes: 20 },
      ],
      [{ oldestBlobFileNumber: 11 }, { oldestBlobFileNumber: 13 }],
      fail,
    );
    expect([...b.keys()]).toEqual([11, 13]);
    // No table links to any blob file: none stays.
    expect(applyBlobFileEdits(b, [], [], [{}], fail).size).toBe(0);
    expect(() =>
      applyBlobFileEdits(base, [meta(10, 1)], [], [{ oldestBlobFileNumber: 10 }], fail),
    ).toThrow(/added twice/);
    expect(() =>
      applyBlobFileEdits(
        base,
        [],
        [{ number: 99, garbageBlobCount: 1, garbageBlobBytes: 1 }],
        [],
        fail,
      ),
    ).toThrow(/unknown blob file/);
    expect(() =>
      applyBlobFileEdits(
        base,
        [],
        [{ number: 10, garbageBlobCount: 3, garbageBlobBytes: 1 }],
        [],
        fail,
      ),
    ).toThrow(/more garbage/);
  });
});

describe("blob files of a RocksDB database (fixture blob-files)", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const copy = (): string => {
    const dir = mkdtempSync(join(tmpdir(), "shale-blobfix-"));
    dirs.push(dir);
    cpSync(new URL("../../testdata/rocksdb/blob-files", import.meta.url), dir, { recursive: true });
    return dir;
  };

  it("damage in a blob only an overwritten version points at is never read", async () => {
    const dir = copy();
    const path = join(dir, "000010.blob"); // apple's first version: key "apple" (5 bytes)
    const b = readFileSync(path);
    b[30 + 32 + 5 + 2]! ^= 0x01; // a byte of the value
    writeFileSync(path, b);
    const db = await DB.open(dir, { createIfMissing: false });
    try {
      let seen: ShaleError | undefined;
      for (const key of ["apple", "banana", "date", "elderberry", "grape"]) {
        try {
          db.get(key);
        } catch (e) {
          if (ShaleError.isInstance(e)) seen = e;
        }
      }
      // 000010.blob holds the first put (apple v1), overwritten later: reads never touch it.
      expect(seen).toBeUndefined();
    } finally {
      await db.close();
    }
  });

  it("damage in a live blob file, and a missing one, are Corruption when read", async () => {
    const dir = copy();
    const db0 = await DB.open(dir, { createIfMissing: false });
    const live = [...db0.debugVersion().blobFiles.keys()];
    await db0.close();
    expect(live.length).toBeGreaterThan(1);
    // Damage the value byte of every live blob file but one, remove that one.
    const missing = live.pop()!; // the newest: the second flush's apple or grape
    const damaged = live;
    for (const n of damaged) {
      const path = join(dir, `${String(n).padStart(6, "0")}.blob`);
      const b = readFileSync(path);
      b[b.length - 33]! ^= 0x01; // the last value byte, just before the footer
      writeFileSync(path, b);
    }
    rmSync(join(dir, `${String(missing).padStart(6, "0")}.blob`));
    const db = await DB.open(dir, { createIfMissing: false }); // blob files open lazily, as in RocksDB
    try {
      const errors: ShaleError[] = [];
      for (const key of ["apple", "banana", "date", "elderberry", "grape"]) {
        try {
          db.get(key);
        } catch (e) {
          if (!ShaleError.isInstance(e)) throw e;
          errors.push(e);
        }
      }
      expect(errors.length).toBe(5);
      for (const e of errors) {
        expect(e.code).toBe("Corruption");
        expect(e.file).toMatch(/^\d{6}\.blob$/);
        expect(e.offset).toBeGreaterThanOrEqual(0);
      }
      expect(errors.some((e) => /missing/.test(e.message))).toBe(true);
      expect(errors.some((e) => /blob CRC mismatch/.test(e.message))).toBe(true);
      expect(() => [...db.iterator()]).toThrow(/Corruption/);
      expect(() => [...db.iterator({ reverse: true })]).toThrow(/Corruption/);
    } finally {
      await db.close();
    }
  });
});

describe("blob files and a secondary instance", () => {
  it("a secondary reads the blob values, and the primary keeps the blob files it still reads", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shale-blobsec-"));
    try {
      cpSync(new URL("../../testdata/rocksdb/blob-files", import.meta.url), dir, {
        recursive: true,
      });
      rmSync(join(dir, "expected.jsonl"));
      const keys = ["apple", "banana", "date", "elderberry", "grape", "kiwi"];
      const primary = await DB.open(dir, { createIfMissing: false, compression: "none" });
      const secondary = await DB.openAsSecondary(dir, join(dir, "secondary"));
      try {
        const before = keys.map((k) => secondary.get(k)).map((v) => v && Buffer.from(v).toString());
        expect(before).toEqual(
          keys.map((k) => primary.get(k)).map((v) => v && Buffer.from(v).toString()),
        );
        expect(before[0]).toBe("green apple, second version");
        const blobs = () => readdirSync(dir).filter((n) => n.endsWith(".blob"));
        const held = blobs();
        // Overwrite every key: after the compaction no table links a blob file, so the
        // primary's version drops them all; the secondary (not caught up) still reads them.
        for (const k of keys) primary.put(k, `new ${k}`);
        await primary.compactRange();
        await primary.waitForCompactions();
        expect(primary.debugVersion().blobFiles.size).toBe(0);
        expect(blobs()).toEqual(held);
        expect(
          keys.map((k) => secondary.get(k)).map((v) => v && Buffer.from(v).toString()),
        ).toEqual(before);
        secondary.tryCatchUpWithPrimary();
        expect(keys.map((k) => Buffer.from(secondary.get(k)!).toString())).toEqual(
          keys.map((k) => `new ${k}`),
        );
      } finally {
        await secondary.close();
        await primary.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("what shale does not do with blob files yet", () => {
  it("checkpoints and repair of a blob database are NotSupported, before anything is written", async () => {
    const { repair } = await import("../repair/repair.js");
    const dir = mkdtempSync(join(tmpdir(), "shale-blobns-"));
    try {
      cpSync(new URL("../../testdata/rocksdb/blob-files", import.meta.url), dir, {
        recursive: true,
      });
      const db = await DB.open(dir, { createIfMissing: false });
      try {
        await expect(db.checkpoint(join(dir, "cp"))).rejects.toThrow(/NotSupported.*blob files/);
      } finally {
        await db.close();
      }
      const before = readdirSync(dir).sort();
      await expect(repair(dir)).rejects.toThrow(/NotSupported.*blob files/);
      expect(readdirSync(dir).sort()).toEqual(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
