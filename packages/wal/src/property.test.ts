/**
 * Property tests: random records round-trip in every mode; a random cut is a torn tail
 * that loses exactly the records it cuts; a random flipped byte loses exactly the record
 * it hits (SkipAnyCorrupted), or throws unless it hit the last record (PointInTime).
 */
import { MemoryFileSystem } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BLOCK_SIZE, HEADER_SIZE, MAX_FRAGMENT_LENGTH, RecordType } from "./format.js";
import {
  expectRecords,
  LOG,
  parseFragments,
  payload,
  readLog,
  recordOffsets,
  writeLog,
} from "./log.test-support.js";
import { WalRecoveryMode } from "./recovery-mode.js";
import { LogWriter } from "./writer.js";

const { AbsoluteConsistency, TolerateCorruptedTail, PointInTime, SkipAnyCorrupted } =
  WalRecoveryMode;
const MODES = [AbsoluteConsistency, TolerateCorruptedTail, PointInTime, SkipAnyCorrupted] as const;

/** Mostly batch-sized records, some large, and the sizes at block edges. */
const recordSize = fc.oneof(
  { weight: 12, arbitrary: fc.integer({ min: 0, max: 300 }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 80_000 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      MAX_FRAGMENT_LENGTH,
      MAX_FRAGMENT_LENGTH - 1,
      MAX_FRAGMENT_LENGTH - 6,
      MAX_FRAGMENT_LENGTH - HEADER_SIZE,
      MAX_FRAGMENT_LENGTH + 1,
    ),
  },
);

const makeRecords = (sizes: readonly number[]) => sizes.map((n, i) => payload(n, i + 1));

/** [start, end) of each record of a well-formed log. */
function recordRanges(bytes: Uint8Array): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  let start = 0;
  for (const f of parseFragments(bytes)) {
    if (f.type === RecordType.Full || f.type === RecordType.First) start = f.offset;
    if (f.type === RecordType.Full || f.type === RecordType.Last) {
      ranges.push([start, f.offset + HEADER_SIZE + f.length]);
    }
  }
  return ranges;
}

describe("properties", () => {
  it("random records round-trip in every mode, lastRecordOffset/EndOffset at each record's extent", () => {
    fc.assert(
      fc.property(fc.array(recordSize, { maxLength: 60 }), (sizes) => {
        const records = makeRecords(sizes);
        const { bytes, size } = writeLog(records);
        expect(size).toBe(bytes.length);
        const offsets = recordOffsets(bytes);
        for (const mode of MODES) {
          const out = readLog(bytes, mode);
          expect(out.error).toBeUndefined();
          expect(out.reports).toEqual([]);
          expectRecords(out.records, records);
          expect(out.offsets).toEqual(offsets);
          expect(out.ends).toEqual(recordRanges(bytes).map(([, end]) => end));
        }
      }),
      { numRuns: 60 },
    );
  });

  it("thousands of small records round-trip", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1000, maxLength: 4000 }),
        (sizes) => {
          const records = makeRecords(sizes);
          const out = readLog(writeLog(records).bytes, PointInTime);
          expect(out.reports).toEqual([]);
          expectRecords(out.records, records);
        },
      ),
      { numRuns: 8 },
    );
  });

  it("a log continued with initialOffset reads as one log", () => {
    fc.assert(
      fc.property(
        fc.array(recordSize, { minLength: 1, maxLength: 30 }),
        fc.nat(),
        (sizes, split) => {
          const records = makeRecords(sizes);
          const k = split % (records.length + 1);
          const fs = new MemoryFileSystem();
          const first = new LogWriter(fs.openWritable(LOG));
          for (const r of records.slice(0, k)) first.addRecord(r);
          first.close();
          const second = new LogWriter(fs.openWritable(LOG, { append: true }), {
            initialOffset: fs.fileSize(LOG),
          });
          for (const r of records.slice(k)) second.addRecord(r);
          second.close();
          expect(second.size).toBe(fs.fileSize(LOG));
          const out = readLog(fs.readFile(LOG), AbsoluteConsistency);
          expect(out.error).toBeUndefined();
          expectRecords(out.records, records);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("a random cut loses exactly the records it cuts, reported as one run", () => {
    fc.assert(
      fc.property(
        fc.array(recordSize, { minLength: 1, maxLength: 25 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (sizes, at) => {
          const records = makeRecords(sizes);
          const { bytes } = writeLog(records);
          const t = Math.floor(at * bytes.length);
          const ranges = recordRanges(bytes);
          const kept = ranges.filter(([, end]) => end <= t).length;
          const keptEnd = kept === 0 ? 0 : ranges[kept - 1]![1];
          // Cuts at a record's end, or after a whole block trailer, are clean.
          const clean = t === keptEnd || (t % BLOCK_SIZE === 0 && t - keptEnd < HEADER_SIZE);
          const torn = bytes.subarray(0, t);
          for (const mode of [TolerateCorruptedTail, PointInTime, SkipAnyCorrupted]) {
            const out = readLog(torn, mode);
            expect(out.error).toBeUndefined();
            expectRecords(out.records, records.slice(0, kept));
            if (clean) expect(out.reports).toEqual([]);
            else {
              expect(out.reports).toHaveLength(1);
              const [report] = out.reports;
              expect(report!.offset + report!.bytes).toBe(t);
              expect(report!.offset).toBeGreaterThanOrEqual(keptEnd);
            }
          }
          const strict = readLog(torn, AbsoluteConsistency);
          expectRecords(strict.records, records.slice(0, kept));
          expect(strict.error === undefined).toBe(clean);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("a random flipped byte loses the record it hits and nothing else", () => {
    fc.assert(
      fc.property(
        fc.array(recordSize, { minLength: 1, maxLength: 25 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 1, max: 255 }),
        (sizes, at, mask) => {
          const records = makeRecords(sizes);
          const { bytes } = writeLog(records);
          const p = Math.floor(at * bytes.length);
          bytes[p] = bytes[p]! ^ mask;
          const hit = recordRanges(writeLog(records).bytes).findIndex(([s, e]) => p >= s && p < e);
          // A flip in a block trailer damages no record.
          const survivors = hit < 0 ? records : records.filter((_, i) => i !== hit);
          const last = hit === records.length - 1;

          const skip = readLog(bytes, SkipAnyCorrupted);
          expect(skip.error).toBeUndefined();
          expectRecords(skip.records, survivors);
          expect(skip.reports.length).toBe(hit < 0 ? 0 : 1);

          const pit = readLog(bytes, PointInTime);
          if (hit < 0 || last) {
            expect(pit.error).toBeUndefined();
            expectRecords(pit.records, survivors);
          } else {
            expect(pit.error?.offset).toBeGreaterThanOrEqual(
              recordRanges(writeLog(records).bytes)[hit]![0],
            );
            expectRecords(pit.records, records.slice(0, hit));
          }

          for (const mode of [AbsoluteConsistency, TolerateCorruptedTail]) {
            const out = readLog(bytes, mode);
            if (hit < 0) expectRecords(out.records, records);
            else {
              // Only a length that now runs past the end of file can pass as a torn tail.
              if (out.error === undefined)
                expect(mode === TolerateCorruptedTail && last).toBe(true);
              expectRecords(out.records, records.slice(0, hit));
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
