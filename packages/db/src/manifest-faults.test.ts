/**
 * Faults in the MANIFEST: a damaged MANIFEST is Corruption (file + offset) in every WAL
 * recovery mode, never an older version opened silently; a referenced file that is missing
 * is Corruption naming it; opening never deletes a file the database did not create;
 * `bestEffortsRecovery` opens the newest version whose files all exist and says what it
 * dropped.
 */
import { MemoryFileSystem, ShaleError } from "@shale/base";
import { WalRecoveryMode } from "@shale/wal";
import { describe, expect, it } from "vitest";
import { DB } from "./db.js";

const KEYS = 300;
const str = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

/** Builds a database whose MANIFEST ends with the edit of a flush; returns its files. */
async function build(): Promise<{ files: Map<string, Uint8Array>; model: Map<string, string> }> {
  const fs = new MemoryFileSystem();
  const model = new Map<string, string>();
  const db = await DB.open("/db", { fs, disableAutoCompactions: true });
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < KEYS; i++) {
      const k = `k${String(i).padStart(4, "0")}`;
      if ((i + round) % 7 === 0) {
        db.delete(k);
        model.delete(k);
      } else {
        db.put(k, `v${round}-${i}`);
        model.set(k, `v${round}-${i}`);
      }
    }
    await db.flush();
  }
  await db.close();
  const files = new Map<string, Uint8Array>();
  for (const name of fs.list("/db")) files.set(name, fs.readFile(`/db/${name}`).slice());
  return { files, model };
}

function restore(files: Map<string, Uint8Array>): MemoryFileSystem {
  const fs = new MemoryFileSystem();
  fs.mkdir("/db");
  for (const [name, data] of files) fs.writeFile(`/db/${name}`, data.slice());
  return fs;
}

function manifestName(files: Map<string, Uint8Array>): string {
  const current = new TextDecoder().decode(files.get("CURRENT"));
  return current.trim();
}

/** Start offsets of the MANIFEST's records (it is shorter than one log block). */
function recordOffsets(data: Uint8Array): number[] {
  const out: number[] = [];
  let p = 0;
  while (p + 7 <= data.length) {
    out.push(p);
    p += 7 + (data[p + 4]! | (data[p + 5]! << 8));
  }
  return out;
}

async function checkAll(db: DB, model: Map<string, string>): Promise<void> {
  for (let i = 0; i < KEYS; i++) {
    const k = `k${String(i).padStart(4, "0")}`;
    expect(str(db.get(k)), k).toBe(model.get(k));
  }
}

const MODES = [
  WalRecoveryMode.TolerateCorruptedTail,
  WalRecoveryMode.AbsoluteConsistency,
  WalRecoveryMode.PointInTime,
  WalRecoveryMode.SkipAnyCorrupted,
];

describe("a damaged MANIFEST", () => {
  it("every byte flip in the last record gives Corruption or the right data, and deletes nothing", async () => {
    const { files, model } = await build();
    const name = manifestName(files);
    const manifest = files.get(name)!;
    const offsets = recordOffsets(manifest);
    const last = offsets.at(-1)!;
    expect(manifest.length - last).toBeGreaterThan(20);
    let corruptions = 0;
    for (let at = last; at < manifest.length; at++) {
      for (const mask of [0x01, 0x80, 0xff]) {
        const damaged = new Map(files);
        const copy = manifest.slice();
        copy[at]! ^= mask;
        damaged.set(name, copy);
        const fs = restore(damaged);
        const mode = MODES[(at + mask) % MODES.length]!;
        let db: DB | undefined;
        try {
          db = await DB.open("/db", { fs, walRecoveryMode: mode });
        } catch (e) {
          expect(ShaleError.isInstance(e) && e.code, `${at}^${mask}: ${e}`).toBe("Corruption");
          expect((e as ShaleError).file).toBe(name);
          corruptions++;
          // Nothing was deleted: with the byte restored the database opens whole.
          fs.writeFile(`/db/${name}`, manifest.slice());
          db = await DB.open("/db", { fs });
        }
        await checkAll(db, model);
        await db.close();
      }
    }
    expect(corruptions).toBeGreaterThan(0);
  });

  it("a flip anywhere before the last record is Corruption too (never an older version)", async () => {
    const { files } = await build();
    const name = manifestName(files);
    const manifest = files.get(name)!;
    const last = recordOffsets(manifest).at(-1)!;
    for (let at = 0; at < last; at++) {
      const copy = manifest.slice();
      copy[at]! ^= 0x20;
      const fs = restore(new Map(files).set(name, copy));
      const mode = MODES[at % MODES.length]!;
      const err = await DB.open("/db", { fs, walRecoveryMode: mode }).then(
        async (db) => {
          await db.close();
          return undefined;
        },
        (e) => e,
      );
      expect(ShaleError.isInstance(err) && err.code, `flip at ${at}`).toBe("Corruption");
      expect(err.file).toBe(name);
    }
  });

  it("a flipped length byte of the last record is Corruption with file and offset in every mode", async () => {
    const { files } = await build();
    const name = manifestName(files);
    const manifest = files.get(name)!;
    const last = recordOffsets(manifest).at(-1)!;
    for (const mode of MODES) {
      const copy = manifest.slice();
      copy[last + 4]! ^= 0x40; // the record now runs past the end of the file
      const fs = restore(new Map(files).set(name, copy));
      const err = await DB.open("/db", { fs, walRecoveryMode: mode }).catch((e) => e);
      expect(ShaleError.isInstance(err) && err.code).toBe("Corruption");
      expect(err.file).toBe(name);
      expect(err.offset).toBe(last);
      // No table was deleted as obsolete.
      for (const n of files.keys())
        if (n.endsWith(".sst")) expect(fs.exists(`/db/${n}`)).toBe(true);
    }
  });

  it("a MANIFEST cut short (by 10 bytes, or anywhere in its last record) is Corruption", async () => {
    const { files } = await build();
    const name = manifestName(files);
    const manifest = files.get(name)!;
    const last = recordOffsets(manifest).at(-1)!;
    const cuts = [manifest.length - 10];
    for (let n = last + 1; n < manifest.length; n += 3) cuts.push(n);
    for (const cut of cuts) {
      for (const mode of MODES) {
        const fs = restore(new Map(files).set(name, manifest.slice(0, cut)));
        const err = await DB.open("/db", { fs, walRecoveryMode: mode }).catch((e) => e);
        expect(ShaleError.isInstance(err) && err.code, `cut at ${cut}: ${err}`).toBe("Corruption");
        expect(err.file).toBe(name);
      }
    }
  });

  it("a table the MANIFEST names that is missing is Corruption naming it", async () => {
    const { files } = await build();
    const table = [...files.keys()].find((n) => n.endsWith(".sst"))!;
    const damaged = new Map(files);
    damaged.delete(table);
    const fs = restore(damaged);
    const err = await DB.open("/db", { fs }).catch((e) => e);
    expect(ShaleError.isInstance(err) && err.code).toBe("Corruption");
    expect(String(err.message)).toContain(table);
    expect(err.file).toBe(table);
  });
});

describe("bestEffortsRecovery", () => {
  it("opens the newest version whose files all exist and reports what it dropped", async () => {
    const { files } = await build();
    const name = manifestName(files);
    const manifest = files.get(name)!;
    const last = recordOffsets(manifest).at(-1)!;
    const fs = restore(new Map(files).set(name, manifest.slice(0, manifest.length - 10)));
    const db = await DB.open("/db", { fs, bestEffortsRecovery: true });
    const report = db.getProperty("shale.best-efforts-recovery");
    expect(report).toContain(name);
    expect(report).toContain(`offset ${last}`);
    // The last flush's edit is gone: the data of the earlier rounds is there, consistently.
    expect(db.get("k0001")).toBeDefined();
    // Nothing was deleted: every file of the damaged directory is still there.
    for (const n of files.keys()) expect(fs.exists(`/db/${n}`), n).toBe(true);
    db.put("after", "1");
    await db.close();
    const again = await DB.open("/db", { fs });
    expect(str(again.get("after"))).toBe("1");
    await again.close();
  });

  it("skips a version whose table is missing and reports the file", async () => {
    const { files } = await build();
    const tables = [...files.keys()].filter((n) => n.endsWith(".sst")).sort();
    const damaged = new Map(files);
    damaged.delete(tables.at(-1)!); // the newest flush's table
    const fs = restore(damaged);
    const db = await DB.open("/db", { fs, bestEffortsRecovery: true });
    expect(db.getProperty("shale.best-efforts-recovery")).toContain(tables.at(-1)!);
    expect(db.get("k0001")).toBeDefined();
    await db.close();
  });

  it("needs no CURRENT: it recovers from the MANIFESTs in the directory", async () => {
    const { files, model } = await build();
    const damaged = new Map(files);
    damaged.delete("CURRENT");
    for (const n of [...damaged.keys()]) if (n.endsWith(".log")) damaged.delete(n);
    const fs = restore(damaged);
    const db = await DB.open("/db", { fs, bestEffortsRecovery: true });
    await checkAll(db, model);
    await db.close();
    expect(fs.exists("/db/CURRENT")).toBe(true);
  });

  it("is off by default and validated", async () => {
    const { files } = await build();
    const fs = restore(files);
    const db = await DB.open("/db", { fs });
    expect(db.getProperty("shale.best-efforts-recovery")).toBe("");
    await db.close();
    await expect(
      DB.open("/db", { fs, bestEffortsRecovery: "yes" as unknown as boolean }),
    ).rejects.toThrow(TypeError);
  });
});

describe("files the database did not create", () => {
  it("opening an empty directory keeps a user's file named 000001.log", async () => {
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    const mine = new TextEncoder().encode("my own notes, not a WAL\n");
    fs.writeFile("/db/000001.log", mine);
    await DB.open("/db", { fs })
      .then((db) => db.close())
      .catch(() => undefined);
    expect(fs.exists("/db/000001.log")).toBe(true);
    expect(fs.readFile("/db/000001.log")).toEqual(mine);
  });

  it("a directory whose CURRENT is gone opens as a new database and keeps the old tables", async () => {
    const { files } = await build();
    const damaged = new Map(files);
    damaged.delete("CURRENT");
    for (const n of [...damaged.keys()]) if (n.endsWith(".log")) damaged.delete(n);
    const fs = restore(damaged);
    const db = await DB.open("/db", { fs });
    expect(db.get("k0001")).toBeUndefined();
    await db.close();
    for (const n of damaged.keys())
      if (n.endsWith(".sst")) expect(fs.exists(`/db/${n}`), n).toBe(true);
  });

  it("opening keeps db-named files numbered at or above the recovered next file number", async () => {
    const fs = new MemoryFileSystem();
    await (await DB.open("/db", { fs })).close();
    const stranger = new TextEncoder().encode("not a table");
    fs.writeFile("/db/999990.sst", stranger);
    fs.writeFile("/db/MANIFEST-999991", stranger);
    fs.writeFile("/db/notes.txt", stranger);
    const db = await DB.open("/db", { fs });
    db.put("a", "1");
    await db.flush();
    await db.close();
    for (const n of ["999990.sst", "MANIFEST-999991", "notes.txt"])
      expect(fs.exists(`/db/${n}`)).toBe(true);
    // A name shale does not use is never touched, however often the database opens.
    await (await DB.open("/db", { fs })).close();
    expect(fs.exists("/db/notes.txt")).toBe(true);
  });
});
