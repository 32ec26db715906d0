/**
 * RocksDB's log format beyond LevelDB's, and interop with RocksDB 7.8.3:
 * - WALs RocksDB wrote (testdata/, made by testdata/make-rocksdb-wals.cc) read record for
 *   record as RocksDB's own `ldb dump_wal` reads them (testdata/*.dump.txt), and shale's
 *   writer reproduces their bytes exactly from the same records;
 * - recyclable records (types 5-8): the log number, old records ending the log;
 * - SetCompressionType: none is accepted, a compression refused (NotSupported);
 * - `ldb dump_wal` decodes a WAL shale writes (skipped, with a printed reason, without ldb).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ErrorCode, getFixed32, isShaleError, MemoryFileSystem, putFixed32 } from "@shale/base";
import { describe, expect, it } from "vitest";
import { BLOCK_SIZE, RECYCLABLE_HEADER_SIZE, RecordType } from "./format.js";
import {
  concat,
  expectRecords,
  fragment,
  LOG,
  payload,
  readLog,
  sequentialFile,
} from "./log.test-support.js";
import { LogReader } from "./reader.js";
import { WalRecoveryMode } from "./recovery-mode.js";
import { LogWriter } from "./writer.js";

const { AbsoluteConsistency, TolerateCorruptedTail, PointInTime, SkipAnyCorrupted } =
  WalRecoveryMode;
const MODES = [AbsoluteConsistency, TolerateCorruptedTail, PointInTime, SkipAnyCorrupted] as const;

const testdata = new URL("../testdata/", import.meta.url);
const fixture = (name: string) => new Uint8Array(readFileSync(new URL(name, testdata)));
const logNumberOf = (name: string) =>
  Number(readFileSync(new URL(`rocksdb-${name}.lognumber`, testdata), "utf8").trim());

/** `ldb dump_wal --header`'s first four columns: sequence, count, byte size, offset. */
function dumpRows(text: string): string[] {
  return text
    .split("\n")
    .slice(1)
    .filter((l) => /^\d/.test(l))
    .map((l) => l.split(",").slice(0, 4).join(","));
}

/** The same columns from shale's reader: WriteBatch seq (fixed64) and count (fixed32). */
function readRows(reader: LogReader): { rows: string[]; records: Uint8Array[] } {
  const rows: string[] = [];
  const records: Uint8Array[] = [];
  for (let r = reader.readRecord(); r !== undefined; r = reader.readRecord()) {
    const seq = getFixed32(r, 0) + getFixed32(r, 4) * 2 ** 32;
    rows.push(`${seq},${getFixed32(r, 8)},${r.length},${reader.lastRecordOffset}`);
    records.push(r.slice());
  }
  return { rows, records };
}

/** Rewrites `records` with LogWriter and returns the file's bytes. */
function rewrite(records: readonly Uint8Array[], recycleLogNumber?: number): Uint8Array {
  const fs = new MemoryFileSystem();
  const w = new LogWriter(
    fs.openWritable(LOG),
    recycleLogNumber === undefined ? {} : { recycleLogNumber },
  );
  for (const r of records) w.addRecord(r);
  w.flush();
  return fs.readFile(LOG);
}

describe("WALs written by RocksDB 7.8.3", () => {
  it("rocksdb-fillseq.log reads as ldb dump_wal reads it, in every mode; rewriting it gives its bytes", () => {
    const bytes = fixture("rocksdb-fillseq.log");
    const want = dumpRows(readFileSync(new URL("rocksdb-fillseq.dump.txt", testdata), "utf8"));
    expect(want).toHaveLength(122);
    for (const mode of MODES) {
      const reports: unknown[] = [];
      const reader = new LogReader(sequentialFile(bytes), {
        mode,
        fileName: "rocksdb-fillseq.log",
        logNumber: logNumberOf("fillseq"),
        reporter: (i) => reports.push(i),
      });
      const { rows, records } = readRows(reader);
      expect(rows).toEqual(want);
      expect(reports).toEqual([]);
      if (mode === PointInTime) expect(Buffer.from(rewrite(records)).equals(bytes)).toBe(true);
    }
  });

  it("rocksdb-recycled.log: the reused file's 20 records, then the older log it held is not replayed", () => {
    const bytes = fixture("rocksdb-recycled.log");
    const logNumber = logNumberOf("recycled");
    const want = dumpRows(readFileSync(new URL("rocksdb-recycled.dump.txt", testdata), "utf8"));
    expect(want).toHaveLength(20);
    expect(bytes[6]).toBe(RecordType.RecyclableFull);
    const newEnd =
      Number(want.at(-1)!.split(",")[3]) +
      RECYCLABLE_HEADER_SIZE +
      Number(want.at(-1)!.split(",")[2]);
    for (const mode of MODES) {
      const out = readLog(bytes, mode, { logNumber });
      const reader = new LogReader(sequentialFile(bytes), { mode: SkipAnyCorrupted, logNumber });
      expect(readRows(reader).rows).toEqual(want);
      expect(out.records).toHaveLength(20);
      if (mode === AbsoluteConsistency) {
        // What follows this log's end is the middle of an older record: damage.
        expect(out.error).toMatchObject({ code: ErrorCode.Corruption, offset: newEnd });
      } else {
        expect(out.error).toBeUndefined();
      }
    }
    // Rewriting the 20 records in the recyclable format gives the file's first bytes.
    const { records } = readRows(new LogReader(sequentialFile(bytes), { logNumber }));
    const again = rewrite(records, logNumber);
    expect(again.length).toBe(newEnd);
    expect(Buffer.from(bytes.subarray(0, newEnd)).equals(again)).toBe(true);
    // Without the logNumber option, the first recyclable record's number is taken.
    expect(readLog(bytes, PointInTime).records).toHaveLength(20);
    // With another log number, every record is "old": an empty log, nothing reported.
    const other = readLog(bytes, PointInTime, { logNumber: logNumber + 1 });
    expect(other.records).toEqual([]);
    expect(other.reports).toEqual([]);
  });

  it("rocksdb-zstd.log (wal_compression=zstd) is refused with NotSupported in every mode", () => {
    const bytes = fixture("rocksdb-zstd.log");
    expect(bytes[6]).toBe(RecordType.SetCompressionType);
    for (const mode of MODES) {
      const reader = new LogReader(sequentialFile(bytes), { mode, fileName: "000004.log" });
      let err: unknown;
      try {
        reader.readRecord();
      } catch (e) {
        err = e;
      }
      expect(isShaleError(err, ErrorCode.NotSupported)).toBe(true);
      expect((err as Error).message).toContain("000004.log @ 0");
      expect((err as Error).message).toContain("zstd");
      expect(() => reader.readRecord()).toThrow(err as Error);
    }
  });
});

describe("recyclable records", () => {
  /** A log of `n` records written with recycleLogNumber `number`. */
  const recycledLog = (number: number, sizes: readonly number[]) =>
    rewrite(
      sizes.map((s, i) => payload(s, number * 100 + i)),
      number,
    );

  it("a reused file: this log's records, then the older log's end the log without a report", () => {
    // Old records of 100 bytes are 111 bytes each: two new ones end where an old one starts.
    const old = recycledLog(3, [100, 100, 100, 40_000, 100]);
    const fresh = recycledLog(7, [100, 100]);
    const aligned = concat(fresh, old.subarray(fresh.length));
    for (const mode of MODES) {
      const out = readLog(aligned, mode, { logNumber: 7 });
      expect(out.error).toBeUndefined();
      expectRecords(out.records, [payload(100, 700), payload(100, 701)]);
      expect(out.reports).toEqual([]);
    }
    // Not aligned: the new log ends in the middle of an old record (garbage follows); no
    // record of this log follows, so PointInTime drops the rest (reported) and opens.
    const file = concat(recycledLog(7, [150]), old.subarray(161));
    const pit = readLog(file, PointInTime, { logNumber: 7 });
    expectRecords(pit.records, [payload(150, 700)]);
    expect(pit.error).toBeUndefined();
  });

  it("a record left open when an old record follows is a torn write: dropped and reported", () => {
    const old = recycledLog(3, [100, 100, 100]);
    const fresh = recycledLog(7, [100, 40_000]);
    // The new log's LAST fragment is lost: its FIRST is followed by an old record.
    const firstEnd = BLOCK_SIZE;
    const file = concat(fresh.subarray(0, firstEnd), old.subarray(0, 111));
    const pit = readLog(file, PointInTime, { logNumber: 7 });
    expectRecords(pit.records, [payload(100, 700)]);
    expect(pit.reports).toEqual([
      { offset: 111, bytes: firstEnd - 111, reason: "truncated record" },
    ]);
    expect(readLog(file, AbsoluteConsistency, { logNumber: 7 }).error).toMatchObject({
      code: ErrorCode.Corruption,
      offset: 111,
    });
  });

  it("a flipped log-number byte is caught by the checksum, not taken for an old record", () => {
    const log = recycledLog(7, [100, 100, 100]);
    log[111 + 7]! ^= 1; // the second record's log number
    expect(readLog(log, PointInTime, { logNumber: 7 }).error).toMatchObject({
      code: ErrorCode.Corruption,
      offset: 111,
    });
    const skip = readLog(log, SkipAnyCorrupted, { logNumber: 7 });
    expectRecords(skip.records, [payload(100, 700), payload(100, 702)]);
    expect(skip.reports).toEqual([{ offset: 111, bytes: 111, reason: "checksum mismatch" }]);
  });

  it("TolerateCorruptedTail ends a recycled log at a bad checksum (reported), as RocksDB does", () => {
    const log = recycledLog(7, [100, 100, 100]);
    log[111 + 20]! ^= 1;
    expect(readLog(log, TolerateCorruptedTail, { logNumber: 7 })).toMatchObject({
      error: undefined,
      reports: [{ offset: 111, bytes: log.length - 111, reason: "checksum mismatch" }],
    });
    // A log that is not recycled: corruption in TolerateCorruptedTail throws.
    const plain = rewrite([payload(100, 1), payload(100, 2), payload(100, 3)]);
    plain[107 + 20]! ^= 1;
    expect(readLog(plain, TolerateCorruptedTail).error).toMatchObject({ offset: 107 });
  });

  it("rejects a bad logNumber option", () => {
    expect(() => new LogReader(sequentialFile(new Uint8Array(0)), { logNumber: -1 })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidArgument }),
    );
    expect(
      () =>
        new LogReader(sequentialFile(new Uint8Array(0)), { logNumber: "1" as unknown as number }),
    ).toThrow(TypeError);
    expect(
      () => new LogWriter(new MemoryFileSystem().openWritable(LOG), { recycleLogNumber: 1.5 }),
    ).toThrow(expect.objectContaining({ code: ErrorCode.InvalidArgument }));
  });
});

describe("SetCompressionType", () => {
  const setCompression = (type: number) => {
    const p = new Uint8Array(4);
    putFixed32(p, 0, type);
    return fragment(RecordType.SetCompressionType, p);
  };

  it("with no compression, first: skipped; records follow", () => {
    const file = concat(setCompression(0), fragment(RecordType.Full, payload(10, 1)));
    const out = readLog(file, AbsoluteConsistency);
    expect(out.error).toBeUndefined();
    expectRecords(out.records, [payload(10, 1)]);
    expect(out.offsets).toEqual([11]);
  });

  it("after a record, or undecodable: corruption (skipped in SkipAnyCorrupted)", () => {
    const late = concat(
      fragment(RecordType.Full, payload(10, 1)),
      setCompression(0),
      fragment(RecordType.Full, payload(10, 2)),
    );
    expect(readLog(late, PointInTime).error?.message).toContain(
      "SetCompressionType not the first record",
    );
    const skip = readLog(late, SkipAnyCorrupted);
    expectRecords(skip.records, [payload(10, 1), payload(10, 2)]);
    expect(skip.reports).toEqual([
      { offset: 17, bytes: 11, reason: "SetCompressionType not the first record" },
    ]);
    const short = concat(
      fragment(RecordType.SetCompressionType, new Uint8Array(3)),
      fragment(RecordType.Full, payload(10, 1)),
    );
    expect(readLog(short, PointInTime).error?.message).toContain(
      "could not decode SetCompressionType record",
    );
  });

  it("naming a compression: NotSupported, even in SkipAnyCorrupted", () => {
    const file = concat(setCompression(7), fragment(RecordType.Full, payload(10, 1)));
    const reader = new LogReader(sequentialFile(file), {
      mode: SkipAnyCorrupted,
      fileName: "x.log",
    });
    expect(() => reader.readRecord()).toThrow(
      expect.objectContaining({ code: ErrorCode.NotSupported }),
    );
  });
});

describe("RocksDB's ldb reads what LogWriter writes", () => {
  let ldb = true;
  try {
    execFileSync("ldb", ["--version"], { stdio: "ignore" });
  } catch {
    ldb = false;
    console.log(
      "skipping the ldb dump_wal interop test: RocksDB's ldb is not on the PATH (apt-get install rocksdb-tools)",
    );
  }
  it.skipIf(!ldb)(
    "ldb dump_wal --header lists every record of a WAL shale wrote (legacy and recyclable)",
    () => {
      const records = readRows(
        new LogReader(sequentialFile(fixture("rocksdb-fillseq.log"))),
      ).records;
      const want = dumpRows(readFileSync(new URL("rocksdb-fillseq.dump.txt", testdata), "utf8"));
      const dir = mkdtempSync(join(tmpdir(), "shale-ldb-wal-"));
      try {
        for (const [name, recycle] of [
          ["000004.log", undefined],
          ["000009.log", 9],
        ] as const) {
          const path = join(dir, name);
          writeFileSync(path, rewrite(records, recycle));
          const out = execFileSync("ldb", ["dump_wal", `--walfile=${path}`, "--header"], {
            encoding: "utf8",
          });
          const rows = dumpRows(out);
          if (recycle === undefined) expect(rows).toEqual(want);
          else
            expect(rows.map((r) => r.split(",").slice(0, 3).join(","))).toEqual(
              want.map((r) => r.split(",").slice(0, 3).join(",")),
            );
          expect(out).not.toContain("Corruption");
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

describe("zero padding", () => {
  it("7-10 zero bytes at a block's end are padding in a recyclable log, a zeroed record in a legacy one", () => {
    // Legacy: a 3-byte FULL record in the last 10 bytes of block 0, zeroed by damage, then a
    // record in block 1: the zeroed record must not vanish silently.
    const fill = BLOCK_SIZE - 7 - 10;
    const legacy = rewrite([payload(fill, 1), payload(3, 2), payload(20, 3)]);
    expect(legacy[BLOCK_SIZE - 10 + 6]).toBe(RecordType.Full);
    legacy.fill(0, BLOCK_SIZE - 10, BLOCK_SIZE);
    expect(readLog(legacy, PointInTime).error?.message).toContain("zeroed region");
    const skip = readLog(legacy, SkipAnyCorrupted);
    expectRecords(skip.records, [payload(fill, 1), payload(20, 3)]);
    expect(skip.reports).toEqual([{ offset: BLOCK_SIZE - 10, bytes: 10, reason: "zeroed region" }]);
  });
});
