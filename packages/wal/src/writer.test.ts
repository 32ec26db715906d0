import {
  ErrorCode,
  getFixed32,
  MemoryFileSystem,
  maskedCrc32c,
  type WritableFile,
} from "@shale/base";
import { describe, expect, it } from "vitest";
import {
  BLOCK_SIZE,
  HEADER_SIZE,
  MAX_FRAGMENT_LENGTH,
  RECYCLABLE_HEADER_SIZE,
  RecordType,
} from "./format.js";
import {
  expectRecords,
  LOG,
  parseFragments,
  payload,
  readLog,
  writeLog,
} from "./log.test-support.js";
import { WalRecoveryMode } from "./recovery-mode.js";
import { LogWriter } from "./writer.js";

const { Full, First, Middle, Last } = RecordType;

/** A WritableFile that records what the writer asks of it. */
class RecordingFile implements WritableFile {
  readonly calls: string[] = [];
  bytes = new Uint8Array(0);
  failAppendAt = -1;
  private appends = 0;

  get size(): number {
    return this.bytes.length;
  }
  append(data: Uint8Array, start = 0, end = data.length): void {
    if (this.appends++ === this.failAppendAt) throw new Error("EIO");
    const grown = new Uint8Array(this.bytes.length + end - start);
    grown.set(this.bytes);
    grown.set(data.subarray(start, end), this.bytes.length);
    this.bytes = grown;
    this.calls.push("append");
  }
  flush(): void {
    this.calls.push("flush");
  }
  sync(): void {
    this.calls.push("sync");
  }
  close(): void {
    this.calls.push("close");
  }
}

describe("LogWriter layout", () => {
  it("writes the bytes of the small worked example (RocksDB's masked CRC32C of type ‖ payload)", () => {
    const { bytes } = writeLog([new TextEncoder().encode("hello"), new Uint8Array(0)]);
    expect(Buffer.from(bytes).toString("hex")).toBe(
      "0bb95758" + "0500" + "01" + "68656c6c6f" + "052b2843" + "0000" + "01",
    );
  });

  it("writes RocksDB's recyclable format: 11-byte headers with the log number, covered by the CRC", () => {
    const fs = new MemoryFileSystem();
    const w = new LogWriter(fs.openWritable(LOG), { recycleLogNumber: 2 ** 32 + 7 });
    w.addRecord(new TextEncoder().encode("hello"));
    w.addRecord(payload(40_000, 1));
    w.flush();
    const bytes = fs.readFile(LOG);
    // type 5 (recyclable FULL), log number 7 (the low 32 bits), then the payload
    expect(Buffer.from(bytes.subarray(4, 16)).toString("hex")).toBe(
      "0500" + "05" + "07000000" + "68656c6c6f",
    );
    expect(getFixed32(bytes, 0)).toBe(maskedCrc32c(bytes, 6, 16));
    // The 40,000-byte record: recyclable FIRST filling block 0, then recyclable LAST.
    expect(bytes[16 + 6]).toBe(RecordType.RecyclableFirst);
    expect(bytes[16 + 4]! | (bytes[16 + 5]! << 8)).toBe(BLOCK_SIZE - 16 - RECYCLABLE_HEADER_SIZE);
    expect(bytes[BLOCK_SIZE + 6]).toBe(RecordType.RecyclableLast);
    expect(bytes.length).toBe(
      BLOCK_SIZE + RECYCLABLE_HEADER_SIZE + 40_000 - (BLOCK_SIZE - 16 - RECYCLABLE_HEADER_SIZE),
    );
  });

  it("pads a block tail shorter than the recyclable header (up to 10 bytes) with zeros", () => {
    for (const left of [1, 7, 10, 11]) {
      const fs = new MemoryFileSystem();
      const w = new LogWriter(fs.openWritable(LOG), { recycleLogNumber: 3 });
      w.addRecord(payload(BLOCK_SIZE - RECYCLABLE_HEADER_SIZE - left, 1));
      w.addRecord(payload(5, 2));
      w.flush();
      const bytes = fs.readFile(LOG);
      if (left < RECYCLABLE_HEADER_SIZE) {
        expect([...bytes.subarray(BLOCK_SIZE - left, BLOCK_SIZE)]).toEqual(new Array(left).fill(0));
        expect(bytes[BLOCK_SIZE + 6]).toBe(RecordType.RecyclableFull);
      } else {
        // exactly a header's room: an empty recyclable FIRST there, the LAST in the next block
        expect(bytes[BLOCK_SIZE - left + 6]).toBe(RecordType.RecyclableFirst);
        expect(bytes[BLOCK_SIZE + 6]).toBe(RecordType.RecyclableLast);
      }
      const out = readLog(bytes, WalRecoveryMode.AbsoluteConsistency, { logNumber: 3 });
      expect(out.error).toBeUndefined();
      expectRecords(out.records, [
        payload(BLOCK_SIZE - RECYCLABLE_HEADER_SIZE - left, 1),
        payload(5, 2),
      ]);
    }
  });

  it("matches the worked example of writer.ts and docs/formats/log.md", () => {
    const { bytes, size } = writeLog([payload(100_000, 1), payload(31_034, 2), payload(5, 3)]);
    expect(size).toBe(131_084);
    expect(bytes.length).toBe(131_084);
    expect(parseFragments(bytes)).toEqual([
      { offset: 0, type: First, length: 32_761 },
      { offset: 32_768, type: Middle, length: 32_761 },
      { offset: 65_536, type: Middle, length: 32_761 },
      { offset: 98_304, type: Last, length: 1_717 },
      { offset: 100_028, type: Full, length: 31_034 },
      { offset: 131_072, type: Full, length: 5 },
    ]);
    expect([...bytes.subarray(131_069, 131_072)]).toEqual([0, 0, 0]);
  });

  it("writes an empty record as a 7-byte FULL fragment", () => {
    const { bytes } = writeLog([new Uint8Array(0)]);
    expect(bytes.length).toBe(HEADER_SIZE);
    expect(parseFragments(bytes)).toEqual([{ offset: 0, type: Full, length: 0 }]);
  });

  it("zero-fills a block tail of 1..6 bytes and starts the next record in the next block", () => {
    for (let tail = 1; tail < HEADER_SIZE; tail++) {
      const first = MAX_FRAGMENT_LENGTH - tail;
      const { bytes } = writeLog([payload(first, 1), payload(10, 2)]);
      expect(bytes.length).toBe(BLOCK_SIZE + HEADER_SIZE + 10);
      expect([...bytes.subarray(BLOCK_SIZE - tail, BLOCK_SIZE)]).toEqual(new Array(tail).fill(0));
      expect(parseFragments(bytes)).toEqual([
        { offset: 0, type: Full, length: first },
        { offset: BLOCK_SIZE, type: Full, length: 10 },
      ]);
    }
  });

  it("starts a record with an empty FIRST fragment when exactly a header's room is left", () => {
    const first = MAX_FRAGMENT_LENGTH - HEADER_SIZE;
    const { bytes } = writeLog([payload(first, 1), payload(10, 2)]);
    expect(parseFragments(bytes)).toEqual([
      { offset: 0, type: Full, length: first },
      { offset: BLOCK_SIZE - HEADER_SIZE, type: First, length: 0 },
      { offset: BLOCK_SIZE, type: Last, length: 10 },
    ]);
  });

  it("fills a block exactly with one FULL fragment, and splits one byte more", () => {
    expect(parseFragments(writeLog([payload(MAX_FRAGMENT_LENGTH, 1)]).bytes)).toEqual([
      { offset: 0, type: Full, length: MAX_FRAGMENT_LENGTH },
    ]);
    expect(parseFragments(writeLog([payload(MAX_FRAGMENT_LENGTH + 1, 1)]).bytes)).toEqual([
      { offset: 0, type: First, length: MAX_FRAGMENT_LENGTH },
      { offset: BLOCK_SIZE, type: Last, length: 1 },
    ]);
  });

  it("appends each fragment with a single file.append and never flushes on its own", () => {
    const file = new RecordingFile();
    const writer = new LogWriter(file);
    writer.addRecord(payload(150, 1));
    writer.addRecord(payload(3 * BLOCK_SIZE, 2));
    expect(file.calls).toEqual(["append", "append", "append", "append", "append"]);
    writer.flush();
    writer.sync();
    writer.close();
    expect(file.calls.slice(5)).toEqual(["flush", "sync", "close"]);
    expect(writer.size).toBe(file.bytes.length);
  });

  it("writes data[start, end) only", () => {
    const data = payload(100, 7);
    const fs = new MemoryFileSystem();
    const writer = new LogWriter(fs.openWritable(LOG));
    writer.addRecord(data, 10, 60);
    writer.addRecord(data, 99);
    writer.addRecord(Buffer.from(data), 0, 0);
    writer.close();
    const out = readLog(fs.readFile(LOG), WalRecoveryMode.AbsoluteConsistency);
    expectRecords(out.records, [data.slice(10, 60), data.slice(99), new Uint8Array(0)]);
  });
});

describe("LogWriter initialOffset", () => {
  it("continues a log: blocks stay aligned to the file, a short tail is padded", () => {
    for (const firstSize of [
      10,
      MAX_FRAGMENT_LENGTH - 3,
      MAX_FRAGMENT_LENGTH - HEADER_SIZE,
      70_000,
    ]) {
      const fs = new MemoryFileSystem();
      const a = new LogWriter(fs.openWritable(LOG));
      a.addRecord(payload(firstSize, 1));
      a.close();
      const existing = fs.fileSize(LOG);
      const b = new LogWriter(fs.openWritable(LOG, { append: true }), { initialOffset: existing });
      expect(b.size).toBe(existing);
      b.addRecord(payload(40_000, 2));
      b.addRecord(payload(5, 3));
      b.close();
      expect(b.size).toBe(fs.fileSize(LOG));
      const bytes = fs.readFile(LOG);
      expect(parseFragments(bytes).length).toBeGreaterThan(2);
      const out = readLog(bytes, WalRecoveryMode.AbsoluteConsistency);
      expect(out.error).toBeUndefined();
      expectRecords(out.records, [payload(firstSize, 1), payload(40_000, 2), payload(5, 3)]);
    }
  });

  it("rejects a bad initialOffset", () => {
    const file = new RecordingFile();
    expect(() => new LogWriter(file, { initialOffset: -1 })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidArgument }),
    );
    expect(() => new LogWriter(file, { initialOffset: 1.5 })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidArgument }),
    );
    expect(() => new LogWriter(file, { initialOffset: "7" as unknown as number })).toThrow(
      TypeError,
    );
  });
});

describe("LogWriter errors", () => {
  it("rejects wrong types with TypeError and bad ranges with InvalidArgument", () => {
    const writer = new LogWriter(new RecordingFile());
    expect(() => writer.addRecord("abc" as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => writer.addRecord(new Uint8Array(4), "1" as unknown as number)).toThrow(TypeError);
    for (const [start, end] of [
      [-1, 2],
      [3, 2],
      [0, 5],
      [0.5, 2],
    ] as const) {
      expect(() => writer.addRecord(new Uint8Array(4), start, end)).toThrow(
        expect.objectContaining({ code: ErrorCode.InvalidArgument }),
      );
    }
    expect(() => new LogWriter({} as WritableFile)).toThrow(TypeError);
  });

  it("throws Closed after close; close is idempotent", () => {
    const file = new RecordingFile();
    const writer = new LogWriter(file);
    writer.close();
    writer.close();
    expect(file.calls).toEqual(["close"]);
    for (const call of [
      () => writer.addRecord(new Uint8Array(1)),
      () => writer.flush(),
      () => writer.sync(),
    ]) {
      expect(call).toThrow(expect.objectContaining({ code: ErrorCode.Closed }));
    }
  });

  it("becomes unusable after a failed append, rethrowing that error", () => {
    const file = new RecordingFile();
    file.failAppendAt = 2;
    const writer = new LogWriter(file);
    writer.addRecord(payload(10, 1));
    let failure: unknown;
    try {
      writer.addRecord(payload(2 * BLOCK_SIZE, 2));
    } catch (err) {
      failure = err;
    }
    expect(failure).toBeInstanceOf(Error);
    expect(() => writer.addRecord(payload(10, 3))).toThrow(failure as Error);
    expect(() => writer.flush()).toThrow(failure as Error);
    writer.close();
    expect(file.calls.at(-1)).toBe("close");
  });
});
