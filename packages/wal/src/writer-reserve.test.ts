/**
 * LogWriter's in-place path (`reserveRecord` / `recordScratch` / `commitRecord`): a record
 * written into the writer's scratch leaves the same bytes as `addRecord` of it, and the path
 * declines (-1) whenever `addRecord` would not make one FULL fragment in the current block.
 */
import { MemoryFileSystem } from "@shale/base";
import { describe, expect, it } from "vitest";
import { BLOCK_SIZE, HEADER_SIZE, RECYCLABLE_HEADER_SIZE } from "./format.js";
import { LOG, payload } from "./log.test-support.js";
import { LogWriter, type LogWriterOptions } from "./writer.js";

/** The log's bytes after `records`, each written in place when the writer takes it. */
function inPlace(
  records: Uint8Array[],
  options: LogWriterOptions = {},
): {
  bytes: Uint8Array;
  taken: number;
} {
  const fs = new MemoryFileSystem();
  const w = new LogWriter(fs.openWritable(LOG), options);
  let taken = 0;
  for (const r of records) {
    const at = w.reserveRecord(r.length);
    if (at < 0) {
      w.addRecord(r);
      continue;
    }
    w.recordScratch.set(r, at);
    w.commitRecord(r.length);
    taken++;
  }
  w.flush();
  return { bytes: fs.readFile(LOG), taken };
}

function appended(records: Uint8Array[], options: LogWriterOptions = {}): Uint8Array {
  const fs = new MemoryFileSystem();
  const w = new LogWriter(fs.openWritable(LOG), options);
  for (const r of records) w.addRecord(r);
  w.flush();
  return fs.readFile(LOG);
}

describe("LogWriter.reserveRecord", () => {
  // Sizes that walk across several block boundaries: some records end a block exactly,
  // some leave less than a header (a trailer), some are cut into FIRST/LAST.
  const records = Array.from({ length: 700 }, (_, i) => payload(100 + ((i * 37) % 150), i));
  records.push(payload(BLOCK_SIZE - HEADER_SIZE, 1), payload(0, 2), payload(70_000, 3));

  it("leaves the bytes addRecord leaves, and takes every record that fits in its block", () => {
    const { bytes, taken } = inPlace(records);
    expect(Buffer.from(bytes).equals(Buffer.from(appended(records)))).toBe(true);
    // Only the records at a block's end (cut, or after a trailer) and the large one decline.
    expect(taken).toBeGreaterThan(records.length - 20);
    expect(taken).toBeLessThan(records.length);
  });

  it("does the same with recyclable headers (the log number stays covered)", () => {
    const options = { recycleLogNumber: 9 };
    const { bytes, taken } = inPlace(records, options);
    expect(Buffer.from(bytes).equals(Buffer.from(appended(records, options)))).toBe(true);
    expect(taken).toBeGreaterThan(records.length - 20);
  });

  it("offers the header's end while the record fits in the block, else -1", () => {
    const fs = new MemoryFileSystem();
    const w = new LogWriter(fs.openWritable(LOG));
    expect(w.reserveRecord(BLOCK_SIZE - HEADER_SIZE)).toBe(HEADER_SIZE);
    expect(w.reserveRecord(BLOCK_SIZE - HEADER_SIZE + 1)).toBe(-1);
    w.addRecord(payload(BLOCK_SIZE - 2 * HEADER_SIZE, 1)); // HEADER_SIZE bytes left
    expect(w.reserveRecord(0)).toBe(HEADER_SIZE);
    expect(w.reserveRecord(1)).toBe(-1);
    const r = new LogWriter(fs.openWritable("r"), { recycleLogNumber: 3 });
    expect(r.reserveRecord(10)).toBe(RECYCLABLE_HEADER_SIZE);
  });

  it("declines for a compressed log and a closed writer", () => {
    const fs = new MemoryFileSystem();
    const compressor = { type: 7, compress: (d: Uint8Array) => d.slice() };
    const c = new LogWriter(fs.openWritable(LOG), { compressor });
    expect(c.reserveRecord(10)).toBe(-1);
    const w = new LogWriter(fs.openWritable("b"));
    w.close();
    expect(w.reserveRecord(10)).toBe(-1);
  });

  it("fails the writer when the file's append fails, as addRecord does", () => {
    const fs = new MemoryFileSystem();
    const file = fs.openWritable(LOG);
    const w = new LogWriter({
      get size() {
        return file.size;
      },
      append: () => {
        throw new Error("EIO");
      },
      flush: () => file.flush(),
      sync: () => file.sync(),
      close: () => file.close(),
    });
    const at = w.reserveRecord(5);
    w.recordScratch.set(payload(5, 1), at);
    expect(() => w.commitRecord(5)).toThrow("EIO");
    expect(w.reserveRecord(5)).toBe(-1);
    expect(() => w.addRecord(payload(5, 1))).toThrow("EIO");
  });
});
