/**
 * `db.singleDelete` (RocksDB's SingleDelete) through the whole engine: reads see the key
 * deleted at once; a flush or a compaction drops the SingleDelete together with its Put when
 * no snapshot lies between them, and keeps both while one does; the WAL replays it; column
 * family handles have it too; bad input is refused as for `delete`.
 */
import { formatInternalKey, MemoryFileSystem, ShaleError } from "@shale/base";
import { TableReader } from "@shale/sstable";
import { describe, expect, it } from "vitest";
import { DB } from "./db.js";

const str = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

/** Every entry of every live table of the default family, `key#seq,KIND`, by level. */
function treeEntries(db: DB, fs: MemoryFileSystem): string[] {
  const out: string[] = [];
  const levels = db.debugVersion().levels;
  for (let level = 0; level < levels.length; level++) {
    for (const f of levels[level]!) {
      const path = db.tablePath(f.number);
      const reader = TableReader.open(fs.openRandomAccess(path), { fileSize: fs.fileSize(path) });
      const it = reader.newIterator();
      for (it.seekToFirst(); it.valid(); it.next())
        out.push(`L${level} ${formatInternalKey(it.key())}`);
      it.close();
      reader.close();
    }
  }
  return out;
}

async function openDb(fs: MemoryFileSystem) {
  return DB.open("/db", { fs, disableAutoCompactions: true });
}

describe("db.singleDelete", () => {
  it("deletes at once, and the pair vanishes in the flush of one memtable", async () => {
    const fs = new MemoryFileSystem();
    const db = await openDb(fs);
    db.put("a", "1");
    db.put("b", "2");
    db.singleDelete("a");
    expect(db.get("a")).toBeUndefined();
    expect(str(db.get("b"))).toBe("2");
    await db.flush();
    expect(db.get("a")).toBeUndefined();
    expect(treeEntries(db, fs)).toEqual(["L0 b#2,SET"]);
    await db.close();
  });

  it("drops the pair in a compaction across tables; the SingleDelete stays above an older table", async () => {
    const fs = new MemoryFileSystem();
    const db = await openDb(fs);
    db.put("a", "1");
    db.put("z", "z");
    await db.flush(); // L0: a#1
    db.singleDelete("a");
    await db.flush(); // L0: a#3,SINGLEDEL
    expect(treeEntries(db, fs)).toEqual(["L0 a#3,SINGLEDEL", "L0 a#1,SET", "L0 z#2,SET"]);
    expect(db.get("a")).toBeUndefined();
    await db.compactRange();
    expect(treeEntries(db, fs)).toEqual(["L1 z#2,SET"]);
    expect(db.get("a")).toBeUndefined();
    await db.close();
  });

  it("keeps both while a snapshot lies between them, and drops them once it is released", async () => {
    const fs = new MemoryFileSystem();
    const db = await openDb(fs);
    db.put("a", "1");
    const snap = db.snapshot();
    db.singleDelete("a");
    db.put("b", "2");
    await db.flush();
    expect(treeEntries(db, fs)).toEqual(["L0 a#2,SINGLEDEL", "L0 a#1,SET", "L0 b#3,SET"]);
    await db.compactRange();
    expect(str(db.get("a", { snapshot: snap }))).toBe("1");
    expect(db.get("a")).toBeUndefined();
    expect(treeEntries(db, fs)).toEqual(["L1 a#2,SINGLEDEL", "L1 a#1,SET", "L1 b#3,SET"]);
    snap.release();
    // A table overlapping the L1 table brings it into the next compaction.
    db.put("ab", "x");
    await db.flush();
    await db.compactRange();
    expect(treeEntries(db, fs)).toEqual(["L1 ab#4,SET", "L1 b#3,SET"]);
    expect(db.get("a")).toBeUndefined();
    await db.close();
  });

  it("put, singleDelete, put again: the newest Put stays through flush and compaction", async () => {
    const fs = new MemoryFileSystem();
    const db = await openDb(fs);
    db.put("a", "1");
    db.singleDelete("a");
    db.put("a", "2");
    await db.flush();
    expect(treeEntries(db, fs)).toEqual(["L0 a#3,SET"]);
    db.singleDelete("a");
    db.put("a", "3");
    await db.flush();
    await db.compactRange();
    expect(str(db.get("a"))).toBe("3");
    expect(treeEntries(db, fs)).toEqual(["L1 a#5,SET"]);
    await db.close();
  });

  it("is replayed from the WAL", async () => {
    const fs = new MemoryFileSystem();
    const db = await openDb(fs);
    db.put("a", "1");
    await db.flush();
    db.singleDelete("a", { sync: true });
    await db.close();
    const again = await openDb(fs);
    expect(again.get("a")).toBeUndefined();
    await again.close();
  });

  it("works on a column family handle", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", {
      fs,
      createMissingColumnFamilies: true,
      columnFamilies: { users: {} },
    });
    const users = db.columnFamily("users");
    db.put("k", "default");
    users.put("k", "users");
    users.singleDelete("k");
    expect(users.get("k")).toBeUndefined();
    expect(str(db.get("k"))).toBe("default");
    await users.flush();
    await users.compactRange();
    expect(users.get("k")).toBeUndefined();
    expect(users.getProperty("shale.num-files-at-level1")).toBe("0");
    await db.close();
  });

  it("refuses bad input as delete does", async () => {
    const fs = new MemoryFileSystem();
    const db = await openDb(fs);
    expect(() => db.singleDelete(42 as unknown as string)).toThrow(TypeError);
    expect(() => db.singleDelete("a", { bogus: true } as never)).toThrow(
      expect.objectContaining({ code: "InvalidArgument" }),
    );
    expect(() => db.singleDelete("a", { sync: "yes" } as never)).toThrow(TypeError);
    await db.close();
    try {
      db.singleDelete("a");
      expect.unreachable();
    } catch (e) {
      expect(ShaleError.isInstance(e) && e.code).toBe("Closed");
    }
  });
});
