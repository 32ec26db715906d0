/**
 * Column families: create, list, drop, the handles' data methods, atomic batches across
 * families (one WAL record), the per-family WAL retention rule, and bad input.
 */
import { type Comparator, MemoryFileSystem, ShaleError } from "@shale/base";
import { TableReader } from "@shale/sstable";
import { LogReader } from "@shale/wal";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { crashCopy } from "../test-support/crash-copy.test-support.js";
import { WriteBatch } from "../write/write-batch.js";

const str = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

function code(f: () => unknown): string {
  try {
    f();
    return "ok";
  } catch (e) {
    return ShaleError.isInstance(e) ? `${e.code}: ${e.message}` : String(e);
  }
}

async function codeAsync(f: () => Promise<unknown>): Promise<string> {
  try {
    await f();
    return "ok";
  } catch (e) {
    return ShaleError.isInstance(e) ? `${e.code}: ${e.message}` : String(e);
  }
}

describe("column families", () => {
  it("creates missing families at open, keeps each family's keys apart, and reopens them", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", {
      fs,
      createMissingColumnFamilies: true,
      columnFamilies: { users: {}, logs: { writeBufferSize: 64 * 1024 } },
    });
    expect(db.listColumnFamilies()).toEqual(["default", "users", "logs"]);
    const users = db.columnFamily("users");
    const logs = db.columnFamily("logs");
    expect(users.name).toBe("users");
    db.put("k", "default");
    users.put("k", "users");
    logs.put("k", "logs");
    expect(str(db.get("k"))).toBe("default");
    expect(str(users.get("k"))).toBe("users");
    expect(str(logs.get("k"))).toBe("logs");
    users.delete("k");
    expect(users.has("k")).toBe(false);
    expect(db.has("k")).toBe(true);
    await users.flush();
    users.put("u2", "v2");
    await db.close();
    expect(DB.listColumnFamilies("/db", { fs })).toEqual(["default", "users", "logs"]);
    const again = await DB.open("/db", { fs });
    expect(again.listColumnFamilies()).toEqual(["default", "users", "logs"]);
    expect(str(again.get("k"))).toBe("default");
    expect(again.columnFamily("users").get("k")).toBeUndefined();
    expect(str(again.columnFamily("users").get("u2"))).toBe("v2");
    expect(str(again.columnFamily("logs").get("k"))).toBe("logs");
    await again.close();
  });

  it("writes a batch across families as one WAL record, atomically", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    const a = await db.createColumnFamily("a");
    const b = await db.createColumnFamily("b", { mergeOperator: "stringappend" });
    const seq = db.latestSequence;
    const batch = new WriteBatch()
      .put("x", "1", a)
      .put("x", "2", b)
      .put("x", "0")
      .merge("m", "p", b);
    db.write(batch);
    expect(db.latestSequence).toBe(seq + 4);
    expect(str(a.get("x"))).toBe("1");
    expect(str(b.get("x"))).toBe("2");
    expect(str(db.get("x"))).toBe("0");
    expect(str(b.get("m"))).toBe("p");
    // A merge into a family without a merge operator is refused before anything is written.
    expect(code(() => db.write(new WriteBatch().put("y", "1").merge("m", "p", a)))).toMatch(
      /InvalidArgument.*"a"/,
    );
    expect(db.get("y")).toBeUndefined();
    const copy = crashCopy(fs, "/db");
    await db.close();
    // The WAL holds the batch as one record with RocksDB's column-family record types.
    const logs = copy.list("/db").filter((n) => n.endsWith(".log"));
    const records: Uint8Array[] = [];
    for (const n of logs) {
      const r = new LogReader(copy.openSequential(`/db/${n}`));
      for (let rec = r.readRecord(); rec !== undefined; rec = r.readRecord()) records.push(rec);
    }
    const batchRecord = records.find((r) => r.length > 12 && r[8] === 4);
    expect(batchRecord).toBeDefined();
    expect(batchRecord![12]).toBe(0x05); // kTypeColumnFamilyValue
    const reopened = await DB.open("/db", {
      fs: copy,
      columnFamilies: { b: { mergeOperator: "stringappend" } },
    });
    expect(str(reopened.columnFamily("a").get("x"))).toBe("1");
    expect(str(reopened.columnFamily("b").get("m"))).toBe("p");
    await reopened.close();
  });

  it("deletes a WAL only when every family with data in it has flushed", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", {
      fs,
      writeBufferSize: 64 * 1024,
      createMissingColumnFamilies: true,
      columnFamilies: { busy: {}, idle: {} },
    });
    const busy = db.columnFamily("busy");
    const idle = db.columnFamily("idle");
    idle.put("idle-key", "kept");
    const value = "v".repeat(400);
    for (let i = 0; i < 2000; i++) {
      busy.put(`k${String(i).padStart(6, "0")}`, value);
      if (i % 200 === 0) await new Promise((r) => setTimeout(r, 0)); // flushes install
    }
    await busy.flush();
    expect(Number(busy.getProperty("shale.num-files-at-level0"))).toBeGreaterThan(0);
    const copy = crashCopy(fs, "/db");
    await db.close();
    const reopened = await DB.open("/db", { fs: copy });
    expect(str(reopened.columnFamily("idle").get("idle-key"))).toBe("kept");
    expect(str(reopened.columnFamily("busy").get("k001999"))).toBe(value);
    await reopened.close();
  });

  it("replays a WAL into a family only once: an open keeps each family's log number (no merge operand applied twice)", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", {
      fs,
      mergeOperator: "stringappend",
      createMissingColumnFamilies: true,
      columnFamilies: { idle: {} },
    });
    // One WAL holds default's merge and idle's put; default flushes (its log number moves
    // past that WAL), idle does not (the WAL stays).
    db.merge("k", "x");
    db.columnFamily("idle").put("i", "1");
    await db.flush();
    db.put("after", "flush");
    const copy = crashCopy(fs, "/db");
    await db.close();
    // Each open replays the kept WAL into idle and must record default's log number as it was.
    for (let open = 0; open < 3; open++) {
      const again = await DB.open("/db", { fs: copy, mergeOperator: "stringappend" });
      expect(str(again.get("k")), `open ${open}`).toBe("x");
      expect(str(again.get("after"))).toBe("flush");
      expect(str(again.columnFamily("idle").get("i"))).toBe("1");
      await again.close();
    }
  });

  it("records each family's id and name in its tables' properties (flush, compaction, recovery)", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", {
      fs,
      createMissingColumnFamilies: true,
      columnFamilies: { a: {} },
      avoidFlushDuringRecovery: false,
    });
    const b = await db.createColumnFamily("b");
    const a = db.columnFamily("a");
    for (const h of [a, b, db.columnFamily("default")]) {
      h.put("k1", h.name);
      await h.flush();
      h.put("k2", h.name);
      await h.flush();
    }
    await a.compactRange();
    a.put("k3", "in the WAL"); // flushed by the next open (avoidFlushDuringRecovery false)
    const copy = crashCopy(fs, "/db");
    await db.close();
    const again = await DB.open("/db", { fs: copy, avoidFlushDuringRecovery: false });
    const seen: string[] = [];
    for (const name of again.listColumnFamilies()) {
      const h = again.columnFamily(name);
      for (const f of again.getLiveFiles().tables.filter((t) => t.columnFamily === h.id)) {
        const path = `/db/${f.name}`;
        const r = TableReader.open(copy.openRandomAccess(path), { fileSize: f.size });
        seen.push(`${name}: ${r.properties.columnFamilyId} ${r.properties.columnFamilyName}`);
        expect(r.properties.columnFamilyId, path).toBe(h.id);
        expect(r.properties.columnFamilyName, path).toBe(name);
        r.close();
      }
    }
    expect(new Set(seen).size).toBe(3);
    expect(seen.filter((x) => x.startsWith("a:")).length).toBe(2); // compacted + recovered
    await again.close();
  });

  it("writes each family's tables with its own table options (filter, codec, format, index), recorded in OPTIONS", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", {
      fs,
      createMissingColumnFamilies: true,
      compression: "none",
      columnFamilies: {
        ribbon: {
          filterPolicy: { type: "ribbon", bitsPerKey: 10 },
          compression: "zstd",
          zstdLevel: 5,
          formatVersion: 6,
          checksum: "xxh3",
          indexType: "twoLevelIndex",
          partitionFilters: true,
          metadataBlockSize: 256,
        },
        lz4: { compression: "lz4", bloomBitsPerKey: 0, formatVersion: 7 },
      },
    });
    for (const name of ["default", "ribbon", "lz4"]) {
      const h = db.columnFamily(name);
      for (let i = 0; i < 2000; i++)
        h.put(`key-${String(i).padStart(5, "0")}`, `value-${i}`.repeat(4));
      await h.flush();
    }
    const props = new Map<string, import("@shale/sstable").TableProperties>();
    for (const f of db.getLiveFiles().tables) {
      const r = TableReader.open(fs.openRandomAccess(`/db/${f.name}`), { fileSize: f.size });
      props.set(r.properties.columnFamilyName, r.properties);
      r.close();
    }
    expect(props.get("default")).toMatchObject({
      formatVersion: 5,
      compression: "NoCompression",
      filterPolicy: "bloomfilter",
    });
    expect(props.get("ribbon")).toMatchObject({
      formatVersion: 6,
      compression: "ZSTD",
      filterPolicy: "ribbonfilter",
      indexType: 2,
    });
    expect(props.get("ribbon")!.compressionOptions).toContain("level=5;");
    expect(props.get("lz4")).toMatchObject({ formatVersion: 7, filterPolicy: "" });
    for (const name of ["default", "ribbon", "lz4"]) {
      const h = db.columnFamily(name);
      expect(str(h.get("key-01234"))).toBe("value-1234".repeat(4));
      expect(h.get("key-99999")).toBeUndefined();
    }
    await db.close();
    const text = new TextDecoder().decode(
      fs.readFile(
        `/db/${fs
          .list("/db")
          .filter((n) => n.startsWith("OPTIONS-"))
          .sort()
          .at(-1)}`,
      ),
    );
    const section = (title: string) => text.slice(text.indexOf(title)).split("\n[")[0]!;
    expect(section('[TableOptions/BlockBasedTable "ribbon"]')).toMatch(/format_version=6/);
    expect(section('[TableOptions/BlockBasedTable "ribbon"]')).toMatch(
      /index_type=kTwoLevelIndexSearch/,
    );
    expect(section('[CFOptions "ribbon"]')).toMatch(/compression=kZSTD/);
    expect(section('[CFOptions "lz4"]')).toMatch(/compression=kLZ4Compression/);
    expect(section('[CFOptions "default"]')).toMatch(/compression=kNoCompression/);
    // A family's own options are checked as the database's, with the database's under them.
    await expect(
      DB.open("/db", {
        fs,
        indexType: "twoLevelIndex",
        columnFamilies: { lz4: { partitionFilters: true, zstdMaxDictBytes: 1024 } },
      }),
    ).rejects.toMatchObject({ code: "NotSupported" });
  });

  it("refuses bad input with InvalidArgument naming it", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    const other = await DB.open("/other", { fs });
    const a = await db.createColumnFamily("a");
    const theirs = await other.createColumnFamily("a");
    expect(await codeAsync(() => db.createColumnFamily("a"))).toMatch(/InvalidArgument.*"a"/);
    expect(await codeAsync(() => db.dropColumnFamily("default"))).toMatch(
      /InvalidArgument.*"default"/,
    );
    expect(await codeAsync(() => db.dropColumnFamily("nope"))).toMatch(/InvalidArgument.*"nope"/);
    expect(code(() => db.columnFamily("nope"))).toMatch(/InvalidArgument.*"nope"/);
    expect(code(() => db.write(new WriteBatch().put("k", "v", theirs)))).toMatch(
      /InvalidArgument.*another database/,
    );
    a.put("k", "v");
    await db.dropColumnFamily("a");
    expect(db.listColumnFamilies()).toEqual(["default"]);
    expect(code(() => a.put("k", "v"))).toMatch(/InvalidArgument: column family dropped: "a"/);
    expect(code(() => a.get("k"))).toMatch(/column family dropped/);
    expect(code(() => db.write(new WriteBatch().put("k", "v", a)))).toMatch(/dropped/);
    await db.close();
    await other.close();
    const again = await DB.open("/db", { fs });
    expect(again.listColumnFamilies()).toEqual(["default"]);
    // A family created again gets a new id.
    const a2 = await again.createColumnFamily("a");
    expect(a2.id).toBe(2);
    expect(a2.get("k")).toBeUndefined();
    await again.close();
    expect(await codeAsync(() => DB.open("/db", { fs, columnFamilies: { zz: {} } }))).toMatch(
      /InvalidArgument.*"zz"/,
    );
  });

  it("opens a family whose comparator shale lacks only with that comparator", async () => {
    const fs = new MemoryFileSystem();
    const reverse: Comparator = {
      name: "test.Reverse",
      compare: (x: Uint8Array, y: Uint8Array) => Buffer.compare(y, x),
      findShortestSeparator: (start: Uint8Array) => start,
      findShortSuccessor: (key: Uint8Array) => key,
    };
    const db = await DB.open("/db", {
      fs,
      createMissingColumnFamilies: true,
      columnFamilies: { r: { comparator: reverse } },
    });
    const r = db.columnFamily("r");
    r.put("a", "1");
    r.put("b", "2");
    await r.flush();
    expect([...r.iterator()].map(([k]) => str(k))).toEqual(["b", "a"]);
    await db.close();
    expect(await codeAsync(() => DB.open("/db", { fs }))).toMatch(
      /InvalidArgument.*"r".*test\.Reverse/,
    );
    const again = await DB.open("/db", { fs, columnFamilies: { r: { comparator: reverse } } });
    expect([...again.columnFamily("r").iterator()].map(([k]) => str(k))).toEqual(["b", "a"]);
    await again.close();
  });

  it("reads several families at one sequence (db.iterators, snapshots)", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    const a = await db.createColumnFamily("a");
    a.put("k", "1");
    db.put("k", "1");
    const snap = db.snapshot();
    a.put("k", "2");
    db.put("k", "2");
    const [ia, id] = db.iterators([a, db.columnFamily("default")], { snapshot: snap });
    expect([...ia!].map(([, v]) => str(v))).toEqual(["1"]);
    expect([...id!].map(([, v]) => str(v))).toEqual(["1"]);
    expect(str(a.get("k", { snapshot: snap }))).toBe("1");
    snap.release();
    await db.close();
  });
});
