import { FaultInjectionFileSystem, MemoryFileSystem, reverseBytewiseComparator } from "@shale/base";
import { describe, expect, it } from "vitest";
import { decodeUint64, encodeUint64 } from "../core/merge-operator.js";
import { DB } from "../db.js";
import { WriteBatch } from "../write/write-batch.js";

const str = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

function walFiles(fs: MemoryFileSystem | FaultInjectionFileSystem, dir = "/db"): string[] {
  return fs.list(dir).filter((n) => n.endsWith(".log"));
}

describe("recovery", () => {
  it("recovers every write after close and reopen, several times", async () => {
    const fs = new MemoryFileSystem();
    for (let round = 0; round < 4; round++) {
      const db = await DB.open("/db", { fs, writeBufferSize: 64 * 1024 });
      for (let i = 0; i < 500; i++)
        expect(str(db.get(`k${i}`))).toBe(round === 0 ? undefined : `v${round - 1}-${i}`);
      for (let i = 0; i < 500; i++) db.put(`k${i}`, `v${round}-${i}`);
      const seq = db.latestSequence;
      await db.close();
      const again = await DB.open("/db", { fs, writeBufferSize: 64 * 1024 });
      expect(again.latestSequence).toBe(seq);
      await again.close();
    }
  });

  it("keeps sequence numbers increasing across reopen", async () => {
    const fs = new MemoryFileSystem();
    let db = await DB.open("/db", { fs });
    db.put("a", "1");
    db.write(new WriteBatch().put("b", "2").put("c", "3"));
    await db.close();
    db = await DB.open("/db", { fs });
    expect(db.latestSequence).toBe(3);
    db.put("a", "4");
    expect(db.latestSequence).toBe(4);
    expect(str(db.get("a"))).toBe("4");
    await db.close();
  });

  it("drops a torn tail of the last WAL, truncates it, and keeps later writes", async () => {
    const fs = new MemoryFileSystem();
    let db = await DB.open("/db", { fs });
    for (let i = 0; i < 10; i++) db.put(`k${i}`, "x".repeat(100));
    await db.close();
    const wal = walFiles(fs).at(-1)!;
    const size = fs.fileSize(`/db/${wal}`);
    fs.truncate(`/db/${wal}`, size - 30); // the last record is torn
    db = await DB.open("/db", { fs });
    expect(str(db.get("k8"))).toBe("x".repeat(100));
    expect(db.get("k9")).toBeUndefined();
    db.put("after", "yes");
    await db.close();
    db = await DB.open("/db", { fs });
    expect(str(db.get("after"))).toBe("yes");
    expect(str(db.get("k8"))).toBe("x".repeat(100));
    await db.close();
  });

  it("fails with Corruption on a damaged record in the middle of a WAL (default mode)", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    for (let i = 0; i < 50; i++) db.put(`k${i}`, "y".repeat(200));
    await db.close();
    const wal = `/db/${walFiles(fs).at(-1)!}`;
    const bytes = fs.readFile(wal).slice();
    bytes[2000]! ^= 0xff;
    fs.writeFile(wal, bytes);
    await expect(DB.open("/db", { fs })).rejects.toThrowError(/Corruption/);
    // SkipAnyCorrupted opens and keeps what is intact.
    const skip = await DB.open("/db", { fs, walRecoveryMode: "SkipAnyCorrupted" });
    expect(str(skip.get("k0"))).toBe("y".repeat(200));
    expect(str(skip.get("k49"))).toBe("y".repeat(200));
    await skip.close();
  });

  it("AbsoluteConsistency refuses even a torn tail", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    db.put("a", "b".repeat(300));
    await db.close();
    const wal = `/db/${walFiles(fs).at(-1)!}`;
    fs.truncate(wal, fs.fileSize(wal) - 10);
    await expect(
      DB.open("/db", { fs, walRecoveryMode: "AbsoluteConsistency" }),
    ).rejects.toThrowError(/Corruption/);
    const ok = await DB.open("/db", { fs });
    expect(ok.get("a")).toBeUndefined();
    await ok.close();
  });

  it("refuses another comparator or merge operator than the database was created with", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, mergeOperator: "max" });
    db.merge("k", "1");
    await db.close();
    await expect(
      DB.open("/db", { fs, comparator: reverseBytewiseComparator }),
    ).rejects.toThrowError(/comparator/);
    await expect(DB.open("/db", { fs, mergeOperator: "uint64add" })).rejects.toThrowError(
      /merge operator/,
    );
    const again = await DB.open("/db", { fs, mergeOperator: "max" });
    expect(str(again.get("k"))).toBe("1");
    await again.close();
  });

  it("recovers merges and range deletions from the WAL", async () => {
    const fs = new MemoryFileSystem();
    let db = await DB.open("/db", { fs, mergeOperator: "uint64add" });
    db.merge("n", encodeUint64(2));
    db.merge("n", encodeUint64(3));
    db.put("r1", "x");
    db.put("r2", "x");
    db.deleteRange("r", "r2");
    await db.close();
    db = await DB.open("/db", { fs, mergeOperator: "uint64add" });
    expect(decodeUint64(db.get("n")!)).toBe(5);
    expect(db.get("r1")).toBeUndefined();
    expect(str(db.get("r2"))).toBe("x");
    await db.close();
  });

  it("loses disableWAL writes on reopen, as documented", async () => {
    const fs = new MemoryFileSystem();
    let db = await DB.open("/db", { fs });
    db.put("logged", "1");
    db.put("unlogged", "2", { disableWAL: true });
    expect(str(db.get("unlogged"))).toBe("2");
    await db.close();
    db = await DB.open("/db", { fs });
    expect(str(db.get("logged"))).toBe("1");
    expect(db.get("unlogged")).toBeUndefined();
    await db.close();
  });

  it("reports a damaged MANIFEST or CURRENT as Corruption", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs });
    await db.close();
    fs.writeFile("/db/CURRENT", new TextEncoder().encode("garbage"));
    await expect(DB.open("/db", { fs })).rejects.toThrowError(/Corruption/);
    fs.writeFile("/db/CURRENT", new TextEncoder().encode("MANIFEST-999999\n"));
    await expect(DB.open("/db", { fs })).rejects.toThrowError(/missing MANIFEST/);
  });

  it("leaves one MANIFEST and no temp files behind", async () => {
    const fs = new MemoryFileSystem();
    for (let i = 0; i < 3; i++) await (await DB.open("/db", { fs })).close();
    const names = fs.list("/db");
    expect(names.filter((n) => n.startsWith("MANIFEST-"))).toHaveLength(1);
    expect(names.filter((n) => n.endsWith(".dbtmp"))).toHaveLength(0);
    expect(names).toContain("CURRENT");
  });
});

describe("power cut (fault-injecting file system)", () => {
  it("keeps every synced write, drops unsynced ones, and always reopens", async () => {
    for (let trial = 0; trial < 20; trial++) {
      const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
      const db = await DB.open("/db", { fs, writeBufferSize: 64 * 1024 });
      const synced: string[] = [];
      const n = 50 + trial * 37;
      for (let i = 0; i < n; i++) {
        const sync = i % 7 === trial % 7;
        db.put(`k${i}`, `v${i}`.repeat(20), { sync });
        if (sync) synced.push(`k${i}`);
      }
      fs.dropUnsyncedData();
      fs.clearFaults();
      // The "process" dies: its handles are dead, so close() cannot write anything.
      await db.close().catch(() => {});
      const after = await DB.open("/db", { fs: fs, writeBufferSize: 64 * 1024 });
      for (const k of synced) expect(str(after.get(k)), k).toBe(`v${k.slice(1)}`.repeat(20));
      // Whatever survived is a prefix of the writes (no holes).
      let seenMissing = false;
      for (let i = 0; i < n; i++) {
        const present = after.get(`k${i}`) !== undefined;
        if (!present) seenMissing = true;
        else expect(seenMissing, `k${i} survived after a lost write`).toBe(false);
      }
      await after.close();
    }
  });

  it("a synced write also makes the logs of earlier memtables durable", async () => {
    const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
    const options = { fs, writeBufferSize: 64 * 1024, maxWriteBufferNumber: 100 };
    const db = await DB.open("/db", options);
    // Unsynced writes over many memtable switches (no flush runs: nothing awaits).
    for (let i = 0; i < 3000; i++) db.put(`k${i}`, `v${i}`.repeat(10));
    expect(Number(db.getProperty("shale.num-immutable-mem-table"))).toBeGreaterThan(3);
    db.put("last", "synced", { sync: true });
    fs.dropUnsyncedData();
    fs.clearFaults();
    await db.close().catch(() => {});
    const after = await DB.open("/db", options);
    for (let i = 0; i < 3000; i++)
      expect(str(after.get(`k${i}`)), `k${i}`).toBe(`v${i}`.repeat(10));
    expect(str(after.get("last"))).toBe("synced");
    await after.close();
  });

  it("a synced write after a reopen also makes the replayed WALs durable", async () => {
    const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
    const db = await DB.open("/db", { fs });
    for (let i = 0; i < 200; i++) db.put(`k${i}`, `v${i}`);
    // The process dies with its writes in the OS, not on disk: close() can sync nothing.
    fs.setFilesystemActive(false);
    await db.close().catch(() => {});
    fs.setFilesystemActive(true);
    // The reopen keeps the replayed data in memory (avoidFlushDuringRecovery), its WAL kept.
    const again = await DB.open("/db", { fs });
    again.put("last", "synced", { sync: true });
    fs.dropUnsyncedData();
    fs.clearFaults();
    await again.close().catch(() => {});
    const after = await DB.open("/db", { fs });
    expect(str(after.get("last"))).toBe("synced");
    // A synced write never survives a power cut that loses an earlier acknowledged one.
    for (let i = 0; i < 200; i++) expect(str(after.get(`k${i}`)), `k${i}`).toBe(`v${i}`);
    await after.close();
  });

  it("makes the database read-only after a failed WAL write, and loses nothing acknowledged", async () => {
    const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
    const db = await DB.open("/db", { fs });
    db.put("a", "1", { sync: true });
    fs.failAfter("write", 1, "ENOSPC");
    expect(() => db.put("b", "2")).toThrowError(/IOError|ENOSPC/);
    expect(() => db.put("c", "3")).toThrowError(/read-only/);
    expect(str(db.get("a"))).toBe("1");
    fs.clearFaults();
    await expect(db.close()).rejects.toMatchObject({ code: "IOError" });
    const again = await DB.open("/db", { fs });
    expect(str(again.get("a"))).toBe("1");
    expect(again.get("c")).toBeUndefined();
    await again.close();
  });
});
