/** The backup meta format (meta.ts, docs/formats/backup.md): round trip and strict reading. */
import { readFileSync } from "node:fs";
import { isShaleError, toBytes } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type BackupMeta, decodeMeta, encodeMeta } from "./meta.js";

const name = fc.stringMatching(/^[A-Za-z0-9._-]{1,20}$/).filter((s) => s !== "." && s !== "..");
const metaArb: fc.Arbitrary<BackupMeta> = fc.record({
  id: fc.integer({ min: 1, max: 1e9 }),
  timestamp: fc.integer({ min: 0, max: 2 ** 45 }),
  sequence: fc.integer({ min: 0, max: 2 ** 53 - 1 }),
  metadata: fc.option(fc.string(), { nil: undefined }),
  files: fc.array(
    fc.record({
      dbName: name,
      path: fc.array(name, { minLength: 1, maxLength: 3 }).map((p) => p.join("/")),
      size: fc.integer({ min: 0, max: 2 ** 40 }),
      crc32c: fc.integer({ min: 0, max: 0xffffffff }),
    }),
    { maxLength: 8 },
  ),
});

describe("backup meta", () => {
  it("round-trips", () => {
    fc.assert(
      fc.property(metaArb, (meta) => {
        expect(decodeMeta(encodeMeta(meta), "m")).toEqual(meta);
      }),
    );
  });

  it("rejects any flipped byte with Corruption naming the file", () => {
    fc.assert(
      fc.property(metaArb, fc.nat(), fc.integer({ min: 1, max: 255 }), (meta, at, mask) => {
        const bytes = encodeMeta(meta);
        bytes[at % bytes.length] = bytes[at % bytes.length]! ^ mask;
        let error: unknown;
        try {
          decodeMeta(bytes, "meta/7");
        } catch (e) {
          error = e;
        }
        expect(isShaleError(error, "Corruption")).toBe(true);
        expect((error as { file?: string }).file).toBe("meta/7");
      }),
    );
  });

  it("matches the documented example's layout", () => {
    const text = new TextDecoder().decode(
      encodeMeta({
        id: 2,
        timestamp: 1764547200000,
        sequence: 1500,
        metadata: "hi",
        files: [{ dbName: "CURRENT", path: "private/2/CURRENT", size: 16, crc32c: 5 }],
      }),
    );
    expect(text).toMatch(
      /^shale-backup 1\nid 2\ntimestamp 1764547200000\nsequence 1500\nmetadata 6869\nfiles 1\nfile CURRENT private\/2\/CURRENT 16 5\nchecksum \d+\n$/,
    );
  });

  it("reads the worked example of docs/formats/backup.md (and the one at the top of meta.ts)", () => {
    const docs = [
      readFileSync(new URL("../../../../../docs/formats/backup.md", import.meta.url), "utf8"),
      readFileSync(new URL("./meta.ts", import.meta.url), "utf8"),
    ];
    for (const doc of docs) {
      const m = /(shale-backup 1\n[\s\S]*?checksum \d+)\n/.exec(
        doc.replace(/^ \* {3}/gm, "").replace(/^ {2}(?=\S)/gm, ""),
      );
      expect(m).not.toBeNull();
      const meta = decodeMeta(toBytes(`${m![1]}\n`), "example");
      expect(meta.id).toBe(2);
      expect(meta.files.map((f) => f.dbName)).toEqual([
        "000012.sst",
        "MANIFEST-000011",
        "OPTIONS-000013",
        "CURRENT",
      ]);
    }
  });

  it("rejects paths that leave the backup directory, even with a valid checksum", () => {
    const meta = {
      id: 1,
      timestamp: 0,
      sequence: 0,
      metadata: undefined,
      files: [{ dbName: "CURRENT", path: "private/../../etc", size: 1, crc32c: 0 }],
    };
    expect(() => decodeMeta(encodeMeta(meta), "m")).toThrow(/bad backup path/);
    expect(() => decodeMeta(toBytes("shale-backup 2\n"), "m")).toThrow(/Corruption/);
  });
});
