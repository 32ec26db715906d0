import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ErrorCode, MemoryFileSystem, ShaleError } from "@shale/base";
import { afterEach, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { WriteBatch } from "../write/write-batch.js";

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "shale-ro-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const text = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : Buffer.from(v).toString();
const key = (i: number) => `key${String(i).padStart(6, "0")}`;

function expectNotSupported(f: () => unknown, what: RegExp): void {
  try {
    f();
  } catch (e) {
    expect(ShaleError.isInstance(e) && e.code === ErrorCode.NotSupported).toBe(true);
    expect((e as Error).message).toMatch(what);
    return;
  }
  throw new Error("expected NotSupported");
}

describe("DB.open(dir, { readOnly: true })", () => {
  it("opens beside the writer holding the LOCK, sees tables and WAL, writes nothing", async () => {
    const dir = tempDir();
    const writer = await DB.open(dir, { writeBufferSize: 64 * 1024 });
    for (let i = 0; i < 3000; i++) writer.put(key(i), `v${i}`);
    await writer.flush();
    for (let i = 3000; i < 3500; i++) writer.put(key(i), `v${i}`, { sync: i % 2 === 0 });
    writer.delete(key(7));
    const before = readdirSync(dir).sort();
    const ro = await DB.open(dir, { readOnly: true });
    expect(ro.role).toBe("readOnly");
    expect(text(ro.get(key(0)))).toBe("v0");
    expect(text(ro.get(key(3499)))).toBe("v3499");
    expect(ro.get(key(7))).toBeUndefined();
    let n = 0;
    for (const _ of ro.iterator()) n++;
    expect(n).toBe(3499);
    expectNotSupported(() => ro.put("a", "b"), /read-only/);
    expectNotSupported(() => ro.delete("a"), /read-only/);
    expectNotSupported(() => ro.deleteRange("a", "b"), /read-only/);
    expectNotSupported(() => ro.write(new WriteBatch().put("a", "b")), /read-only/);
    await expect(ro.flush()).rejects.toThrow(/read-only/);
    await expect(ro.compactRange()).rejects.toThrow(/read-only/);
    expectNotSupported(() => ro.tryCatchUpWithPrimary(), /secondary/);
    // A point in time: later writes are not seen.
    writer.put(key(1), "new");
    expect(text(ro.get(key(1)))).toBe("v1");
    await ro.close();
    expect(readdirSync(dir).sort()).toEqual(before);
    await writer.close();
  });

  it("keeps reading tables the writer's compaction deletes", async () => {
    const dir = tempDir();
    const writer = await DB.open(dir, { writeBufferSize: 64 * 1024, disableAutoCompactions: true });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 2000; i++) writer.put(key(i), `r${round}-${i}`);
      await writer.flush();
    }
    const ro = await DB.open(dir, { readOnly: true });
    const tablesBefore = readdirSync(dir).filter((n) => n.endsWith(".sst"));
    await writer.compactRange();
    await writer.waitForCompactions();
    const tablesAfter = readdirSync(dir).filter((n) => n.endsWith(".sst"));
    expect(tablesAfter.some((t) => tablesBefore.includes(t))).toBe(false);
    for (let i = 0; i < 2000; i += 7) expect(text(ro.get(key(i)))).toBe(`r2-${i}`);
    await ro.close();
    await writer.close();
  });

  it("needs an existing database and creates nothing", async () => {
    const dir = join(tempDir(), "missing");
    await expect(DB.open(dir, { readOnly: true })).rejects.toMatchObject({
      code: ErrorCode.InvalidArgument,
    });
    expect(() => readdirSync(dir)).toThrow();
    await expect(DB.open(tempDir(), { readOnly: "yes" as unknown as boolean })).rejects.toThrow(
      TypeError,
    );
    await expect(
      DB.open(tempDir(), { readOnly: true, bestEffortsRecovery: true }),
    ).rejects.toMatchObject({ code: ErrorCode.NotSupported });
  });
});

describe("a table the writer deletes before the reader opened it", () => {
  it("is a clear IOError for the tables beyond maxOpenFiles; the first ones stay readable", async () => {
    const dir = tempDir();
    const writer = await DB.open(dir, { writeBufferSize: 64 * 1024, disableAutoCompactions: true });
    for (let t = 0; t < 20; t++) {
      for (let i = 0; i < 50; i++) writer.put(key(t * 1000 + i), `t${t}`);
      await writer.flush();
    }
    const ro = await DB.open(dir, { readOnly: true, maxOpenFiles: 16 });
    await writer.compactRange(); // every table replaced
    await writer.waitForCompactions();
    let readable = 0;
    let failures = 0;
    for (let t = 0; t < 20; t++) {
      try {
        expect(text(ro.get(key(t * 1000 + 7)))).toBe(`t${t}`);
        readable++;
      } catch (e) {
        expect(ShaleError.isInstance(e) && e.code === ErrorCode.IOError).toBe(true);
        expect((e as Error).message).toMatch(/deleted by the primary.*reopen the read-only/);
        failures++;
      }
    }
    expect(readable).toBeGreaterThanOrEqual(15);
    expect(failures).toBeGreaterThan(0);
    await ro.close();
    const again = await DB.open(dir, { readOnly: true, maxOpenFiles: 16 });
    for (let t = 0; t < 20; t++) expect(text(again.get(key(t * 1000 + 7)))).toBe(`t${t}`);
    await again.close();
    await writer.close();
  });
});

describe("a follower opening while the primary replaces its OPTIONS file", () => {
  /** Renames the newest OPTIONS file to a newer number just before it is first read. */
  class ReplacingOptionsFs extends MemoryFileSystem {
    replaced = 0;
    override readFile(path: string): Uint8Array {
      const m = /OPTIONS-(\d+)$/.exec(path);
      if (m !== null && this.replaced === 0) {
        this.replaced++;
        const newer = String(Number(m[1]) + 100).padStart(m[1]!.length, "0");
        this.rename(path, path.replace(/OPTIONS-\d+$/, `OPTIONS-${newer}`));
      }
      return super.readFile(path);
    }
  }

  it("reads the listing again when the newest OPTIONS file vanished (RocksDB deletes old ones)", async () => {
    const fs = new ReplacingOptionsFs();
    const writer = await DB.open("/db", { fs });
    writer.put("k", "v");
    fs.replaced = 0;
    const reader = await DB.open("/db", { fs, readOnly: true });
    expect(fs.replaced).toBe(1);
    expect(text(reader.get("k"))).toBe("v");
    await reader.close();
    await writer.close();
  });
});
