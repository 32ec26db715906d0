/**
 * A single write (put, delete, merge, deleteRange of one family) is encoded straight into
 * the WAL writer's scratch when it fits in the current log block (write-path.ts
 * `appendOne`). The record must be the one a WriteBatch of that operation makes, and it
 * must be in the log file, as the OS has it, before the call returns; a reopen replays it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryFileSystem, type SequentialFile, ValueKind } from "@shale/base";
import { LogReader } from "@shale/wal";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { WriteBatch } from "./write-batch.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const text = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : new TextDecoder().decode(v);

/** The records of the newest log in `dir`, read from the file as the OS has it now. */
function walRecords(dir: string): Uint8Array[] {
  const logs = readdirSync(dir)
    .filter((n) => n.endsWith(".log"))
    .sort();
  const bytes = new Uint8Array(readFileSync(join(dir, logs[logs.length - 1]!)));
  let pos = 0;
  const file: SequentialFile = {
    read(dst, dstOffset = 0, length = dst.length - dstOffset) {
      const n = Math.min(length, bytes.length - pos);
      dst.set(bytes.subarray(pos, pos + n), dstOffset);
      pos += n;
      return n;
    },
    skip(n) {
      pos += n;
    },
    close() {},
  };
  const reader = new LogReader(file);
  const out: Uint8Array[] = [];
  for (let r = reader.readRecord(); r !== undefined; r = reader.readRecord()) out.push(r.slice());
  return out;
}

describe("a single write's WAL record", () => {
  it("is the WriteBatch's, in the file when the call returns, across block boundaries and families", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shale-single-write-"));
    dirs.push(dir);
    const db = await DB.open(dir, {
      createMissingColumnFamilies: true,
      columnFamilies: { other: {} },
      mergeOperator: "stringappend",
    });
    const other = db.columnFamily("other");
    const expected: Uint8Array[] = [];
    // ~90 KiB of records of 110 to 260 bytes: three block boundaries crossed.
    for (let i = 0; i < 500; i++) {
      const key = new TextEncoder().encode(`key${String(i).padStart(6, "0")}`);
      const value = new TextEncoder().encode("v".repeat(90 + ((i * 37) % 150)));
      const seq = i + 1;
      const family = i % 3 === 0 ? other : undefined;
      const id = family === undefined ? 0 : family.id;
      const kind =
        i % 7 === 3 ? ValueKind.Deletion : i % 11 === 5 ? ValueKind.Merge : ValueKind.Value;
      const store = family ?? db;
      // One write in ten passes options, as db-bench does; sync ones take the batch path.
      const options = i % 10 === 0 ? { sync: i % 20 === 0, disableWAL: false } : undefined;
      if (kind === ValueKind.Deletion) store.delete(key, options);
      else if (kind === ValueKind.Merge) store.merge(key, value, options);
      else store.put(key, value, options);
      expected.push(new WriteBatch().addIn(id, kind, key, value).seal(seq).slice());
      const records = walRecords(dir);
      expect(records.length).toBe(expected.length);
      expect(Buffer.from(records[i]!).equals(Buffer.from(expected[i]!))).toBe(true);
    }
    db.put("unlogged", "x", { disableWAL: true });
    expect(walRecords(dir).length).toBe(expected.length);
    await db.close();

    const again = await DB.open(dir, {
      columnFamilies: { other: {} },
      mergeOperator: "stringappend",
    });
    expect(text(again.get("key000001"))).toBe("v".repeat(90 + 37));
    expect(again.get("key000003")).toBeUndefined(); // deleted
    expect(text(again.get("key000005"))).toBe("v".repeat(90 + ((5 * 37) % 150))); // merged once
    expect(text(again.columnFamily("other").get("key000006"))).toBe(
      "v".repeat(90 + ((6 * 37) % 150)),
    );
    await again.close();
  });

  it("keeps the database's counters: WalBytes and KeysWritten as the batch path", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, statistics: true });
    for (let i = 0; i < 100; i++) db.put(`k${i}`, "v".repeat(100));
    const stats = db.getProperty("shale.stats")!;
    const count = (name: string) =>
      Number(new RegExp(`^${name} COUNT : (\\d+)$`, "m").exec(stats)?.[1]);
    const walBytes = count("WalBytes");
    const keys = count("KeysWritten");
    let total = 0;
    for (let i = 0; i < 100; i++)
      total += new WriteBatch().put(`k${i}`, "v".repeat(100)).seal(1).length;
    expect(walBytes).toBe(total);
    expect(keys).toBe(100);
    await db.close();
  });
});
