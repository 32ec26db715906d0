import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ErrorCode, MemoryFileSystem, NodeFileSystem } from "@shale/base";
import { describe, expect, it } from "vitest";
import { BLOCK_SIZE, HEADER_SIZE, MAX_FRAGMENT_LENGTH, RecordType } from "./format.js";
import {
  concat,
  expectRecords,
  fragment,
  LOG,
  payload,
  readLog,
  recordOffsets,
  sequentialFile,
  writeLog,
} from "./log.test-support.js";
import { LogReader } from "./reader.js";
import { WalRecoveryMode } from "./recovery-mode.js";
import { LogWriter } from "./writer.js";

const MODES = [
  WalRecoveryMode.AbsoluteConsistency,
  WalRecoveryMode.TolerateCorruptedTail,
  WalRecoveryMode.PointInTime,
  WalRecoveryMode.SkipAnyCorrupted,
] as const;

const SIZE_CLASSES: Record<string, number> = {
  empty: 0,
  "one byte": 1,
  small: 150,
  "fills a block exactly": MAX_FRAGMENT_LENGTH,
  "one byte under a full block": MAX_FRAGMENT_LENGTH - 1,
  "leaves a 6-byte tail (zero-filled)": MAX_FRAGMENT_LENGTH - 6,
  "leaves exactly a header's room": MAX_FRAGMENT_LENGTH - HEADER_SIZE,
  "leaves one byte more than a header": MAX_FRAGMENT_LENGTH - HEADER_SIZE - 1,
  "one byte over a block": MAX_FRAGMENT_LENGTH + 1,
  "across a block boundary": 40_000,
  "more than 3 blocks": 3 * BLOCK_SIZE + 1234,
  "1 MB": 1 << 20,
};

/** Reads `bytes` in every mode and checks that all of `records` come back, undamaged. */
function expectRoundTrip(bytes: Uint8Array, records: readonly Uint8Array[]): void {
  const offsets = recordOffsets(bytes);
  for (const mode of MODES) {
    const out = readLog(bytes, mode);
    expect(out.error).toBeUndefined();
    expect(out.reports).toEqual([]);
    expectRecords(out.records, records);
    expect(out.offsets).toEqual(offsets);
  }
}

describe("LogReader round trip", () => {
  for (const [name, size] of Object.entries(SIZE_CLASSES)) {
    it(`a record that ${name} (${size} B), followed by small ones`, () => {
      const records = [payload(size, 1), payload(10, 2), payload(0, 3), payload(200, 4)];
      const { bytes, size: written } = writeLog(records);
      expect(written).toBe(bytes.length);
      expectRoundTrip(bytes, records);
    });
  }

  it("every size class in one log, each one after a small record", () => {
    const records = Object.values(SIZE_CLASSES).flatMap((size, i) => [
      payload(33, i),
      payload(size, 100 + i),
    ]);
    const { bytes } = writeLog(records);
    expectRoundTrip(bytes, records);
  });

  it("works with a file that returns short reads", () => {
    const records = [payload(5, 1), payload(70_000, 2), payload(300, 3)];
    const { bytes } = writeLog(records);
    for (const maxRead of [1, 7, 1000, BLOCK_SIZE + 3]) {
      const out = readLog(bytes, WalRecoveryMode.AbsoluteConsistency, { maxRead });
      expectRecords(out.records, records);
    }
  });

  it("reads an empty file as an empty log", () => {
    for (const mode of MODES) {
      expect(readLog(new Uint8Array(0), mode)).toEqual({
        records: [],
        offsets: [],
        ends: [],
        reports: [],
        error: undefined,
      });
    }
  });

  it("reads through MemoryFileSystem and NodeFileSystem", () => {
    const records = [payload(100, 1), payload(100_000, 2), payload(1, 3)];
    const dir = mkdtempSync(join(tmpdir(), "shale-wal-"));
    try {
      for (const [fs, path] of [
        [new MemoryFileSystem(), LOG],
        [new NodeFileSystem(), join(dir, "000001.log")],
      ] as const) {
        const writer = new LogWriter(fs.openWritable(path));
        for (const r of records) writer.addRecord(r);
        writer.sync();
        writer.close();
        const file = fs.openSequential(path);
        const reader = new LogReader(file);
        const got: Uint8Array[] = [];
        for (let r = reader.readRecord(); r !== undefined; r = reader.readRecord())
          got.push(r.slice());
        file.close();
        expectRecords(got, records);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("returns undefined again and again at the end", () => {
    const reader = new LogReader(sequentialFile(writeLog([payload(3, 1)]).bytes));
    expect(reader.readRecord()).toEqual(payload(3, 1));
    expect(reader.readRecord()).toBeUndefined();
    expect(reader.readRecord()).toBeUndefined();
  });

  it("rethrows the same error after a Corruption", () => {
    const bytes = writeLog([payload(30, 1), payload(30, 2), payload(30, 3)]).bytes;
    bytes[37 + 10] = bytes[37 + 10]! ^ 1;
    const reader = new LogReader(sequentialFile(bytes), {
      mode: WalRecoveryMode.AbsoluteConsistency,
      fileName: LOG,
    });
    expect(reader.readRecord()).toEqual(payload(30, 1));
    let first: unknown;
    try {
      reader.readRecord();
    } catch (err) {
      first = err;
    }
    expect(first).toMatchObject({ code: ErrorCode.Corruption, file: LOG, offset: 37 });
    expect(() => reader.readRecord()).toThrow(first as Error);
  });
});

describe("LogReader read errors", () => {
  it("propagates a read error and rethrows it on later calls", () => {
    const failure = new Error("EIO");
    const good = sequentialFile(writeLog([payload(40_000, 1)]).bytes);
    let reads = 0;
    const file = {
      ...good,
      read(dst: Uint8Array, dstOffset?: number, length?: number): number {
        if (++reads === 2) throw failure;
        return good.read(dst, dstOffset, length);
      },
    };
    const reader = new LogReader(file);
    expect(() => reader.readRecord()).toThrow(failure);
    expect(() => reader.readRecord()).toThrow(failure);
  });
});

describe("LogReader options", () => {
  it("verifyChecksums: false returns a record whose payload was damaged", () => {
    const bytes = writeLog([payload(30, 1), payload(30, 2)]).bytes;
    bytes[HEADER_SIZE + 5] = bytes[HEADER_SIZE + 5]! ^ 0xff;
    const damaged = payload(30, 1);
    damaged[5]! ^= 0xff;
    const out = readLog(bytes, WalRecoveryMode.AbsoluteConsistency, { verifyChecksums: false });
    expectRecords(out.records, [damaged, payload(30, 2)]);
    expect(readLog(bytes, WalRecoveryMode.AbsoluteConsistency).error?.message).toContain(
      "checksum mismatch",
    );
  });

  it("rejects a bad mode, file or reporter", () => {
    const file = sequentialFile(new Uint8Array(0));
    expect(() => new LogReader(file, { mode: 7 as WalRecoveryMode })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidArgument }),
    );
    expect(() => new LogReader(file, { mode: "2" as unknown as WalRecoveryMode })).toThrow(
      TypeError,
    );
    expect(() => new LogReader({} as never)).toThrow(TypeError);
    expect(() => new LogReader(file, { reporter: 1 as never })).toThrow(TypeError);
  });

  it("the error has no file when no fileName is given", () => {
    const bytes = writeLog([payload(30, 1)]).bytes.subarray(0, 20);
    const reader = new LogReader(sequentialFile(bytes), {
      mode: WalRecoveryMode.AbsoluteConsistency,
    });
    expect(() => reader.readRecord()).toThrow(
      expect.objectContaining({ file: undefined, offset: 0 }),
    );
  });
});

describe("LogReader fragment types", () => {
  const { Full, First, Middle, Last } = RecordType;

  it("skips types >= 128 silently, even inside a fragmented record", () => {
    const bytes = concat(
      fragment(Full, payload(10, 1)),
      fragment(200, payload(20, 2)),
      fragment(First, payload(5, 3)),
      fragment(128, payload(0, 4)),
      fragment(Middle, payload(6, 5)),
      fragment(255, payload(9, 6)),
      fragment(Last, payload(7, 7)),
    );
    for (const mode of MODES) {
      const out = readLog(bytes, mode);
      expect(out.error).toBeUndefined();
      expect(out.reports).toEqual([]);
      expectRecords(out.records, [
        payload(10, 1),
        concat(payload(5, 3), payload(6, 5), payload(7, 7)),
      ]);
      expect(out.offsets).toEqual([0, 17 + 27]);
    }
  });
});
