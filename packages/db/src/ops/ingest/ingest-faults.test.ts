/**
 * Ingestion under storage faults (the fault-injecting file system, as the fault soak's): a
 * failed write or sync at every write and sync an ingestion makes, each ended by a clean
 * close or by a power cut (unsynced bytes and unsynced file creations dropped). Model-checked
 * after the reopen: the older data all there; both ingested files' keys, or neither; if the
 * ingestion resolved, both; no table file the database does not use left in its directory.
 * Run for two files into `default`, and for one file into each of two families
 * (`ingestExternalFiles`, one MANIFEST atomic group).
 */
import {
  FaultInjectionFileSystem,
  type FaultOperation,
  type FileSystem,
  MemoryFileSystem,
} from "@shale/base";
import { SstFileWriter } from "@shale/sstable";
import { describe, expect, it } from "vitest";
import { DB } from "../../db.js";

const key = (prefix: string, j: number) => `${prefix}-k${String(j).padStart(3, "0")}`;
const text = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

function writeFile(fs: FileSystem, path: string, prefix: string, tag: string): void {
  const w = new SstFileWriter({ fs });
  w.open(path);
  for (let j = 0; j < 50; j++) w.put(key(prefix, j), `${tag}${j}`);
  w.finish();
}

const OPTIONS = { createMissingColumnFamilies: true, columnFamilies: { users: {} } };

/** A database with older data (a table and a synced memtable write) and two files to ingest. */
async function setUp() {
  const inner = new MemoryFileSystem();
  inner.mkdir("/ext");
  writeFile(inner, "/ext/a.sst", "old", "a"); // over the older data: a global seqno
  writeFile(inner, "/ext/b.sst", "new", "b"); // apart: sequence 0
  const fs = new FaultInjectionFileSystem(inner);
  const db = await DB.open("/db", { fs, disableAutoCompactions: true, ...OPTIONS });
  for (let j = 0; j < 50; j++) db.put(key("old", j), `o${j}`);
  await db.flush();
  db.put("zzz", "synced", { sync: true });
  return { fs, db };
}

/** Ingests a.sst into `default` and b.sst into `default` or (`families`) `users`. */
function ingest(db: DB, families: boolean): Promise<void> {
  return families
    ? db.ingestExternalFiles([
        { paths: "/ext/a.sst" },
        { columnFamily: db.columnFamily("users"), paths: "/ext/b.sst" },
      ])
    : db.ingestExternalFile(["/ext/a.sst", "/ext/b.sst"]);
}

async function checkAfter(
  fs: FaultInjectionFileSystem,
  resolved: boolean,
  families: boolean,
): Promise<boolean> {
  const db = await DB.open("/db", { fs, disableAutoCompactions: true, ...OPTIONS });
  try {
    const b = families ? db.columnFamily("users") : db;
    const ingested = b.get(key("new", 0)) !== undefined;
    for (let j = 0; j < 50; j++) {
      expect(text(db.get(key("old", j)))).toBe(ingested ? `a${j}` : `o${j}`);
      expect(text(b.get(key("new", j)))).toBe(ingested ? `b${j}` : undefined);
    }
    expect(text(db.get("zzz"))).toBe("synced");
    if (resolved) expect(ingested).toBe(true);
    const live = db.getLiveFiles().tables.map((t) => t.name);
    expect(fs.list("/db").filter((n) => n.endsWith(".sst"))).toEqual(live.sort());
    // And it goes on working.
    db.put(key("old", 1), "later");
    expect(text(db.get(key("old", 1)))).toBe("later");
    return ingested;
  } finally {
    await db.close();
  }
}

describe("ingestion under storage faults", async () => {
  // How many writes and syncs a whole ingestion makes.
  const counts: Record<"write" | "sync", number>[] = [];
  for (const families of [false, true]) {
    const probe = await setUp();
    const before = { ...probe.fs.counters };
    await ingest(probe.db, families);
    counts.push({
      write: probe.fs.counters.writes - before.writes,
      sync: probe.fs.counters.syncs - before.syncs,
    });
    await probe.db.close();
  }

  for (const families of [false, true])
    for (const op of ["write", "sync"] as const satisfies readonly FaultOperation[]) {
      for (const end of ["close", "power cut"] as const) {
        it(`a failed ${op} at each of the ingestion's ${counts[Number(families)]![op]}, then ${end}${families ? ", two families" : ""}: all files or none`, async () => {
          expect(counts[Number(families)]![op]).toBeGreaterThan(2);
          const outcomes = { in: 0, out: 0 };
          for (let n = 1; n <= counts[Number(families)]![op] + 1; n++) {
            const { fs, db } = await setUp();
            fs.failAfter(op, n, "EIO");
            let resolved = false;
            try {
              await ingest(db, families);
              resolved = true;
            } catch (e) {
              expect(e).toMatchObject({ code: "IOError" });
            }
            if (end === "power cut") fs.setFilesystemActive(false);
            await db.close().catch(() => undefined);
            if (end === "power cut") fs.dropUnsyncedData();
            fs.clearFaults();
            if (await checkAfter(fs, resolved, families)) outcomes.in++;
            else outcomes.out++;
            // The caller's files are never touched by a copy.
            expect(fs.exists("/ext/a.sst")).toBe(true);
          }
          expect(outcomes.out).toBeGreaterThan(0);
          expect(outcomes.in).toBeGreaterThan(0); // at least the run past the last operation
        });
      }
    }
});

describe("a power cut after an ingestion", () => {
  for (const families of [false, true])
    it(`keeps the writes acknowledged before it${families ? ", two families" : ""}`, async () => {
      const { fs, db } = await setUp();
      // Unsynced writes of both families before the ingestion, in keys apart from its files.
      db.put("before", "unsynced");
      db.columnFamily("users").put("before", "unsynced too");
      await ingest(db, families);
      fs.setFilesystemActive(false);
      await db.close().catch(() => undefined);
      fs.dropUnsyncedData();
      fs.clearFaults();
      const reopened = await DB.open("/db", { fs, disableAutoCompactions: true, ...OPTIONS });
      try {
        const b = families ? reopened.columnFamily("users") : reopened;
        expect(text(b.get(key("new", 7)))).toBe("b7");
        expect(text(reopened.get(key("old", 7)))).toBe("a7");
        expect(text(reopened.get("before"))).toBe("unsynced");
        expect(text(reopened.columnFamily("users").get("before"))).toBe("unsynced too");
      } finally {
        await reopened.close();
      }
    });
});
