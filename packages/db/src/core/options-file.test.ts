/**
 * OPTIONS-N (RocksDB's INI form) and IDENTITY: what is written, what RocksDB's own file
 * parses to, and the comparator / merge operator checks at open.
 */
import { readFileSync } from "node:fs";
import { MemoryFileSystem, ShaleError } from "@shale/base";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import {
  checkOptionsFile,
  formatOptionsFile,
  mergeOperatorOf,
  parseOptionsFile,
  readNewestOptions,
} from "./options-file.js";

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const ROCKSDB_OPTIONS = readFileSync(
  new URL("../../testdata/manifest/rocksdb-7.8.3-OPTIONS", import.meta.url),
  "utf8",
);

function optionsFiles(fs: MemoryFileSystem): string[] {
  return fs
    .list("/db")
    .filter((n) => /^OPTIONS-\d+$/.test(n))
    .sort();
}

describe("OPTIONS file", () => {
  it("parses RocksDB 7.8.3's own file: sections, comparator, merge operator", () => {
    const sections = parseOptionsFile(ROCKSDB_OPTIONS, "OPTIONS-000022");
    expect(sections.map((s) => s.title)).toEqual([
      "Version",
      "DBOptions",
      'CFOptions "default"',
      'TableOptions/BlockBasedTable "default"',
      'CFOptions "other"',
      'TableOptions/BlockBasedTable "other"',
    ]);
    const cf = sections[2]!.entries;
    expect(cf.get("comparator")).toBe("leveldb.BytewiseComparator");
    expect(mergeOperatorOf(cf.get("merge_operator"))).toBe("max");
    expect(sections[0]!.entries.get("rocksdb_version")).toBe("7.8.3");
  });

  it("reads merge_operator values as RocksDB writes them", () => {
    expect(mergeOperatorOf("nullptr")).toBeUndefined();
    expect(mergeOperatorOf("MaxOperator")).toBe("max");
    expect(mergeOperatorOf("UInt64AddOperator")).toBe("uint64add");
    expect(mergeOperatorOf("{id=StringAppendOperator;delimiter=\\:;}")).toBe("stringappend");
    expect(mergeOperatorOf("my-operator")).toBe("my-operator");
  });

  it("rejects a damaged file with Corruption naming it", () => {
    expect(() => parseOptionsFile("[Version]\n  x\n", "OPTIONS-000009")).toThrow(/bad option line/);
    try {
      parseOptionsFile("[DBOptions]\n", "OPTIONS-000009");
      expect.unreachable();
    } catch (e) {
      expect(ShaleError.isInstance(e) && e.code).toBe("Corruption");
      expect((e as ShaleError).file).toBe("OPTIONS-000009");
    }
  });

  it("is written at every open with the comparator and merge operator; the two newest are kept", async () => {
    const fs = new MemoryFileSystem();
    for (let i = 0; i < 4; i++) await (await DB.open("/db", { fs, mergeOperator: "max" })).close();
    const names = optionsFiles(fs);
    expect(names).toHaveLength(2);
    const found = readNewestOptions(fs, "/db")!;
    expect(found.name).toBe(names[1]);
    const cf = found.sections.find((s) => s.title === 'CFOptions "default"')!.entries;
    expect(cf.get("comparator")).toBe("leveldb.BytewiseComparator");
    expect(cf.get("merge_operator")).toBe("MaxOperator");
    expect(found.sections[0]!.entries.get("options_file_version")).toBe("1.1");
    const none = new MemoryFileSystem();
    await (await DB.open("/db", { fs: none })).close();
    expect(
      readNewestOptions(none, "/db")!
        .sections.find((s) => s.title === 'CFOptions "default"')!
        .entries.get("merge_operator"),
    ).toBe("nullptr");
  });

  it("records the table format_version and checksum as RocksDB's OPTIONS files do", async () => {
    const table = async (options: { formatVersion?: number; checksum?: "xxh3" | "crc32c" }) => {
      const fs = new MemoryFileSystem();
      await (await DB.open("/db", { fs, ...options })).close();
      return readNewestOptions(fs, "/db")!.sections.find(
        (s) => s.title === 'TableOptions/BlockBasedTable "default"',
      )!.entries;
    };
    const defaults = await table({});
    expect(defaults.get("format_version")).toBe("5");
    expect(defaults.get("checksum")).toBe("kxxHash");
    const six = await table({ formatVersion: 6, checksum: "xxh3" });
    expect(six.get("format_version")).toBe("6");
    expect(six.get("checksum")).toBe("kXXH3");
    expect((await table({ formatVersion: 7, checksum: "crc32c" })).get("checksum")).toBe("kCRC32c");
    // RocksDB's own file spells them the same way.
    const rocks = parseOptionsFile(ROCKSDB_OPTIONS, "OPTIONS-000022").find(
      (s) => s.title === 'TableOptions/BlockBasedTable "default"',
    )!.entries;
    expect(rocks.get("checksum")).toMatch(/^k(CRC32c|xxHash|xxHash64|XXH3|NoChecksum)$/);
    expect(rocks.get("format_version")).toBe("5");
  });

  it("refuses another merge operator than the file names; accepts none, and any after nullptr", async () => {
    const fs = new MemoryFileSystem();
    await (await DB.open("/db", { fs })).close(); // recorded: nullptr
    await (await DB.open("/db", { fs, mergeOperator: "uint64add" })).close(); // allowed from null
    const err = await DB.open("/db", { fs, mergeOperator: "max" }).catch((e) => e);
    expect(ShaleError.isInstance(err) && err.code).toBe("InvalidArgument");
    expect(String(err)).toMatch(/created with merge operator "uint64add", not "max"/);
    // Opening without one is allowed (RocksDB's DB::Open allows it) and forgets nothing: the
    // file still names uint64add afterwards.
    await (await DB.open("/db", { fs })).close();
    await expect(DB.open("/db", { fs, mergeOperator: "max" })).rejects.toThrow(/merge operator/);
    await (await DB.open("/db", { fs, mergeOperator: "uint64add" })).close();
  });

  it("refuses a comparator the OPTIONS file rules out", () => {
    const file = {
      name: "OPTIONS-000005",
      sections: parseOptionsFile(
        '[Version]\n  rocksdb_version=7.8.3\n[CFOptions "default"]\n  comparator=rocksdb.ReverseBytewiseComparator\n',
        "OPTIONS-000005",
      ),
    };
    expect(() => checkOptionsFile(file, "leveldb.BytewiseComparator", undefined)).toThrow(
      /comparator "rocksdb.ReverseBytewiseComparator".*OPTIONS-000005/,
    );
    expect(() => checkOptionsFile(file, "rocksdb.ReverseBytewiseComparator", "max")).not.toThrow();
  });

  it("copies the sections of column families it leaves alone", () => {
    const sections = parseOptionsFile(ROCKSDB_OPTIONS, "OPTIONS-000022");
    const out = formatOptionsFile({
      comparator: "leveldb.BytewiseComparator",
      mergeOperator: "max",
      db: { create_if_missing: true },
      cf: { write_buffer_size: 1024 },
      table: { block_size: 4096 },
      foreignSections: sections.filter((s) => s.title.endsWith('"other"')),
    });
    const back = parseOptionsFile(out, "x");
    expect(back.map((s) => s.title)).toEqual([
      "Version",
      "DBOptions",
      'CFOptions "default"',
      'TableOptions/BlockBasedTable "default"',
      'CFOptions "other"',
      'TableOptions/BlockBasedTable "other"',
    ]);
    expect(back[4]!.entries).toEqual(sections[4]!.entries);
  });
});

describe("IDENTITY", () => {
  it("holds a UUID written at creation and kept across opens", async () => {
    const fs = new MemoryFileSystem();
    await (await DB.open("/db", { fs })).close();
    const id = text(fs.readFile("/db/IDENTITY"));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await (await DB.open("/db", { fs })).close();
    expect(text(fs.readFile("/db/IDENTITY"))).toBe(id);
    fs.remove("/db/IDENTITY");
    await (await DB.open("/db", { fs })).close();
    expect(text(fs.readFile("/db/IDENTITY"))).toHaveLength(36);
  });
});
