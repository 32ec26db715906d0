/**
 * Recovery never drops WAL data silently. A torn tail dropped under PointInTime or
 * TolerateCorruptedTail, and anything skipped under SkipAnyCorrupted (damaged bytes, or a
 * record whose WriteBatch does not decode), shows in the statistics tickers
 * WalRecoveryDroppedBytes / WalRecoveryDrops, in the property `shale.recovery-dropped`
 * (file, offset, bytes, reason, mode) and as a process warning (code SHALE_WAL_DROPPED).
 */
import { MemoryFileSystem, Statistics, Ticker } from "@shale/base";
import { LogWriter } from "@shale/wal";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DB } from "../db.js";

type Mode = "TolerateCorruptedTail" | "PointInTime" | "SkipAnyCorrupted" | "AbsoluteConsistency";

interface Drop {
  file: string;
  offset: number;
  bytes: number;
  reason: string;
  mode: string;
}

const str = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

/** A database with `n` puts of 100-byte values in its WAL (closed: the WAL is kept). */
async function filled(n: number): Promise<{ fs: MemoryFileSystem; wal: string; name: string }> {
  const fs = new MemoryFileSystem();
  const db = await DB.open("/db", { fs });
  for (let i = 0; i < n; i++) db.put(`k${i}`, String(i % 10).repeat(100));
  await db.close();
  const name = fs
    .list("/db")
    .filter((f) => f.endsWith(".log"))
    .sort()
    .at(-1)!;
  return { fs, wal: `/db/${name}`, name };
}

/** Each record of these WALs: 7-byte header + 12-byte batch header + 1 + 1+2/3 + 1+1 + 100. */
function recordOffsets(n: number): number[] {
  const out: number[] = [];
  let at = 0;
  for (let i = 0; i < n; i++) {
    out.push(at);
    at += 7 + 12 + 1 + 1 + `k${i}`.length + 1 + 100;
  }
  return out;
}

let warnings: Array<{ message: string; code: string | undefined }> = [];
const onWarning = (w: Error & { code?: string }) => {
  if (w.name === "ShaleWarning") warnings.push({ message: w.message, code: w.code });
};
beforeEach(() => {
  warnings = [];
  process.on("warning", onWarning);
});
afterEach(() => {
  process.off("warning", onWarning);
});

/** Opens in `mode` with statistics; returns the db's report of what recovery dropped. */
async function reopen(fs: MemoryFileSystem, mode: Mode) {
  const stats = new Statistics();
  const db = await DB.open("/db", { fs, walRecoveryMode: mode, statistics: stats });
  const drops = JSON.parse(db.getProperty("shale.recovery-dropped")!) as Drop[];
  await new Promise((r) => setImmediate(r)); // process warnings are emitted on the next tick
  return {
    db,
    drops,
    bytes: stats.getTicker(Ticker.WalRecoveryDroppedBytes),
    count: stats.getTicker(Ticker.WalRecoveryDrops),
  };
}

describe("recovery reports what it dropped", () => {
  it("nothing dropped: an empty report, zero tickers, no warning", async () => {
    const { fs } = await filled(20);
    const r = await reopen(fs, "PointInTime");
    expect(r.drops).toEqual([]);
    expect([r.bytes, r.count]).toEqual([0, 0]);
    expect(warnings).toEqual([]);
    expect(str(r.db.get("k19"))).toBe("9".repeat(100));
    await r.db.close();
  });

  for (const mode of ["TolerateCorruptedTail", "PointInTime", "SkipAnyCorrupted"] as const) {
    it(`a torn tail under ${mode}: ticker, property and warning`, async () => {
      const { fs, wal, name } = await filled(20);
      const size = fs.fileSize(wal);
      fs.truncate(wal, size - 30);
      const last = recordOffsets(20)[19]!;
      const r = await reopen(fs, mode);
      const want = {
        file: name,
        offset: last,
        bytes: size - 30 - last,
        reason: "truncated record",
        mode,
      };
      expect(r.drops).toEqual([want]);
      expect([r.bytes, r.count]).toEqual([want.bytes, 1]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.code).toBe("SHALE_WAL_DROPPED");
      expect(warnings[0]!.message).toContain(`${name} @ ${last}`);
      expect(warnings[0]!.message).toContain("truncated record");
      expect(str(r.db.get("k18"))).toBe("8".repeat(100));
      expect(r.db.get("k19")).toBeUndefined();
      await r.db.close();
    });
  }

  it("AbsoluteConsistency refuses the torn tail: nothing is dropped", async () => {
    const { fs, wal } = await filled(20);
    fs.truncate(wal, fs.fileSize(wal) - 30);
    await expect(
      DB.open("/db", { fs, walRecoveryMode: "AbsoluteConsistency" }),
    ).rejects.toMatchObject({
      code: "Corruption",
    });
    expect(warnings).toEqual([]);
  });

  it("a corrupt last record (checksum) under PointInTime and SkipAnyCorrupted is reported", async () => {
    for (const mode of ["PointInTime", "SkipAnyCorrupted"] as const) {
      const { fs, wal, name } = await filled(20);
      const bytes = fs.readFile(wal).slice();
      const last = recordOffsets(20)[19]!;
      bytes[last + 60]! ^= 0xff;
      fs.writeFile(wal, bytes);
      warnings = [];
      const r = await reopen(fs, mode);
      expect(r.drops).toEqual([
        { file: name, offset: last, bytes: bytes.length - last, reason: "checksum mismatch", mode },
      ]);
      expect([r.bytes, r.count]).toEqual([bytes.length - last, 1]);
      expect(warnings).toHaveLength(1);
      await r.db.close();
    }
  });

  it("a corrupt middle record: skipped and reported under SkipAnyCorrupted; an error otherwise", async () => {
    const { fs, wal, name } = await filled(20);
    const bytes = fs.readFile(wal).slice();
    const offsets = recordOffsets(20);
    bytes[offsets[10]! + 60]! ^= 0xff;
    fs.writeFile(wal, bytes);
    for (const mode of ["TolerateCorruptedTail", "PointInTime", "AbsoluteConsistency"] as const) {
      await expect(DB.open("/db", { fs, walRecoveryMode: mode })).rejects.toMatchObject({
        code: "Corruption",
        offset: offsets[10],
      });
    }
    expect(warnings).toEqual([]);
    const r = await reopen(fs, "SkipAnyCorrupted");
    const want = {
      file: name,
      offset: offsets[10]!,
      bytes: offsets[11]! - offsets[10]!,
      reason: "checksum mismatch",
      mode: "SkipAnyCorrupted",
    };
    expect(r.drops).toEqual([want]);
    expect([r.bytes, r.count]).toEqual([want.bytes, 1]);
    expect(r.db.get("k10")).toBeUndefined();
    expect(str(r.db.get("k11"))).toBe("1".repeat(100));
    expect(warnings).toHaveLength(1);
    await r.db.close();
  });

  it("a record whose WriteBatch does not decode is reported when SkipAnyCorrupted skips it", async () => {
    const { fs, wal, name } = await filled(5);
    const at = fs.fileSize(wal);
    // A well-framed record (valid checksum) holding a batch that claims 3 entries and has 1.
    const batch = new Uint8Array([100, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 1, 1, 0x78, 1, 0x79]);
    const w = new LogWriter(fs.openWritable(wal, { append: true }), { initialOffset: at });
    w.addRecord(batch);
    w.close();
    await expect(DB.open("/db", { fs })).rejects.toMatchObject({ code: "Corruption" });
    const r = await reopen(fs, "SkipAnyCorrupted");
    expect(r.drops).toHaveLength(1);
    expect(r.drops[0]).toMatchObject({
      file: name,
      offset: at,
      bytes: 7 + batch.length,
      mode: "SkipAnyCorrupted",
    });
    expect(r.drops[0]!.reason).toBe("truncated byte"); // the decoder's message, without code or place
    expect(r.db.get("x")).toBeUndefined(); // nothing of the skipped batch was applied
    expect([r.bytes, r.count]).toEqual([7 + batch.length, 1]);
    expect(str(r.db.get("k4"))).toBe("4".repeat(100));
    await r.db.close();
  });

  it("the report is of the last open: a clean reopen reports nothing", async () => {
    const { fs, wal } = await filled(20);
    fs.truncate(wal, fs.fileSize(wal) - 30);
    const first = await reopen(fs, "PointInTime");
    expect(first.drops).toHaveLength(1);
    await first.db.close();
    const second = await reopen(fs, "PointInTime");
    expect(second.drops).toEqual([]);
    await second.db.close();
  });
});
