/**
 * Damage and recovery modes: torn tails (truncation at every offset of the last record),
 * a flipped byte in the middle record, zeroed tails and regions, malformed fragment
 * sequences, and the offsets the reporter is given.
 */
import { ErrorCode } from "@shale/base";
import { describe, expect, it } from "vitest";
import { BLOCK_SIZE, HEADER_SIZE, MAX_FRAGMENT_LENGTH, RecordType } from "./format.js";
import {
  concat,
  expectRecords,
  fragment,
  LOG,
  parseFragments,
  payload,
  type ReadOutcome,
  readLog,
  recordOffsets,
  writeLog,
} from "./log.test-support.js";
import { WalRecoveryMode } from "./recovery-mode.js";

const { AbsoluteConsistency, TolerateCorruptedTail, PointInTime, SkipAnyCorrupted } =
  WalRecoveryMode;
const LENIENT = [TolerateCorruptedTail, PointInTime, SkipAnyCorrupted] as const;
const { Full, First, Middle, Last } = RecordType;
const TORN_REASONS = ["truncated header", "truncated record"];

/** Three records A, B (the middle one) and C, written as a log. */
function threeRecords(sizes: readonly [number, number, number]) {
  const records = sizes.map((n, i) => payload(n, i + 1));
  const { bytes } = writeLog(records);
  const [aStart, bStart, cStart] = recordOffsets(bytes) as [number, number, number];
  return { records, bytes, aStart, bStart, cStart, end: bytes.length };
}

function expectCorruption(out: ReadOutcome, offset: number, reason?: string): void {
  expect(out.error, "expected a Corruption error").toBeDefined();
  expect(out.error).toMatchObject({ code: ErrorCode.Corruption, file: LOG, offset });
  if (reason !== undefined) expect(out.error?.message).toContain(reason);
  expect(out.reports).toEqual([]);
}

/** Layouts: all in block 0; a middle record across blocks; a last record across blocks. */
const SMALL: [number, number, number] = [100, 200, 300];
const MIDDLE_SPANS: [number, number, number] = [32_000, 3_000, 500];
const LAST_SPANS: [number, number, number] = [32_000, 500, 2_000];
const LAST_SPANS_4_BLOCKS: [number, number, number] = [1_000, 500, 100_000];

/**
 * An outcome as one line of text, so exhaustive loops compare cheaply and report every
 * mismatch at once. The error is shown as "Corruption in [lo, hi]" when its offset lies in
 * that range (and its file is LOG); reports as "offset+bytes" when their reason is in
 * `reasons`.
 */
function summarize(
  out: ReadOutcome,
  expected: readonly Uint8Array[],
  errorRange: readonly [number, number],
  reasons: readonly string[],
): string {
  const ok =
    out.records.length === expected.length &&
    out.records.every((r, i) => Buffer.from(r).equals(expected[i]!));
  const [lo, hi] = errorRange;
  const error =
    out.error === undefined
      ? "no error"
      : out.error.file === LOG && out.error.offset! >= lo && out.error.offset! <= hi
        ? `Corruption in [${lo}, ${hi}]`
        : `unexpected error ${out.error.message}`;
  const reports =
    out.reports.length === 0
      ? "no reports"
      : out.reports
          .map((r) =>
            reasons.includes(r.reason) ? `${r.offset}+${r.bytes}` : `reason ${r.reason}`,
          )
          .join(",");
  return `records ${ok ? "ok" : "bad"}; ${error}; ${reports}`;
}

describe("a torn tail: truncation at every offset of the last record", () => {
  for (const [name, sizes, step] of [
    ["all in one block", SMALL, 1],
    ["last record across a block boundary", LAST_SPANS, 1],
    ["last record over 4 blocks (sampled)", LAST_SPANS_4_BLOCKS, 97],
  ] as const) {
    it(name, () => {
      const { records, bytes, cStart, end } = threeRecords(sizes);
      const fragmentEdges = parseFragments(bytes).flatMap((f) => [
        f.offset,
        f.offset + HEADER_SIZE,
      ]);
      const cuts = new Set<number>();
      for (let t = cStart; t <= end; t += step) cuts.add(t);
      for (const e of fragmentEdges) for (let d = -2; d <= 2; d++) cuts.add(e + d);
      const mismatches: string[] = [];
      for (const t of [...cuts].filter((c) => c >= cStart && c <= end)) {
        const torn = bytes.subarray(0, t);
        const whole = t === cStart || t === end;
        const expected = t === end ? records : records.slice(0, 2);
        for (const mode of [AbsoluteConsistency, ...LENIENT]) {
          const got = summarize(readLog(torn, mode), expected, [cStart, t], TORN_REASONS);
          const want = whole
            ? "records ok; no error; no reports"
            : mode === AbsoluteConsistency
              ? `records ok; Corruption in [${cStart}, ${t}]; no reports`
              : `records ok; no error; ${cStart}+${t - cStart}`;
          if (got !== want) mismatches.push(`cut ${t}, mode ${mode}: got "${got}", want "${want}"`);
        }
      }
      expect(mismatches).toEqual([]);
    });
  }

  it("a file that ends inside a block trailer", () => {
    // A fills block 0 up to 3 bytes before its end; the trailer is cut after 1 byte.
    const bytes = writeLog([payload(BLOCK_SIZE - HEADER_SIZE - 3, 1), payload(10, 2)]).bytes;
    const torn = bytes.subarray(0, BLOCK_SIZE - 2);
    expectCorruption(readLog(torn, AbsoluteConsistency), BLOCK_SIZE - 3, "truncated header");
    const out = readLog(torn, PointInTime);
    expect(out.records).toHaveLength(1);
    expect(out.reports).toEqual([{ offset: BLOCK_SIZE - 3, bytes: 1, reason: "truncated header" }]);
    // With the whole trailer present, the log simply ends.
    const clean = readLog(bytes.subarray(0, BLOCK_SIZE), AbsoluteConsistency);
    expect(clean.error).toBeUndefined();
    expect(clean.records).toHaveLength(1);
  });
});

describe("a flipped byte in the middle record", () => {
  for (const [name, sizes, step] of [
    ["all in one block", SMALL, 1],
    ["middle record across a block boundary (sampled)", MIDDLE_SPANS, 7],
  ] as const) {
    it(name, () => {
      const { records, bytes, bStart, cStart } = threeRecords(sizes);
      const fragments = parseFragments(bytes);
      const positions = new Set<number>();
      for (let p = bStart; p < cStart; p += step) positions.add(p);
      for (const f of fragments) for (let d = 0; d < HEADER_SIZE; d++) positions.add(f.offset + d);
      const mismatches: string[] = [];
      for (const p of [...positions].filter((q) => q >= bStart && q < cStart)) {
        const damaged = bytes.slice();
        damaged[p] = damaged[p]! ^ (1 << (p % 8));
        // The error names the damaged fragment, which may be B's second one.
        const hit = fragments.filter((f) => f.offset <= p).at(-1)!.offset;
        const check = (
          mode: WalRecoveryMode,
          expected: readonly Uint8Array[],
          want: string,
          detail = "",
        ) => {
          const out = readLog(damaged, mode);
          const got = summarize(
            out,
            expected,
            [hit, hit],
            ["checksum mismatch", "bad record length"],
          );
          if (got !== want || (detail !== "" && !out.error?.message.includes(detail))) {
            mismatches.push(
              `flip ${p}, mode ${mode}: got "${got}" (${out.error?.message}), want "${want}"`,
            );
          }
        };
        const thrown = `records ok; Corruption in [${hit}, ${hit}]; no reports`;
        check(AbsoluteConsistency, records.slice(0, 1), thrown);
        check(TolerateCorruptedTail, records.slice(0, 1), thrown);
        // PointInTime: C is intact after the damage, so this is not a torn tail.
        check(PointInTime, records.slice(0, 1), thrown, "a valid record follows at offset");
        const skipped = `records ok; no error; ${bStart}+${cStart - bStart}`;
        check(SkipAnyCorrupted, [records[0]!, records[2]!], skipped);
      }
      expect(mismatches).toEqual([]);
    });
  }

  it("a flipped byte in the last record: PointInTime drops it, TolerateCorruptedTail throws", () => {
    const { records, bytes, cStart, end } = threeRecords(SMALL);
    bytes[cStart + 100] = bytes[cStart + 100]! ^ 0x10;
    expectCorruption(readLog(bytes, TolerateCorruptedTail), cStart, "checksum mismatch");
    expectCorruption(readLog(bytes, AbsoluteConsistency), cStart, "checksum mismatch");
    for (const mode of [PointInTime, SkipAnyCorrupted]) {
      const out = readLog(bytes, mode);
      expectRecords(out.records, records.slice(0, 2));
      expect(out.reports).toEqual([
        { offset: cStart, bytes: end - cStart, reason: "checksum mismatch" },
      ]);
    }
  });

  it("a damaged FIRST whose own LAST is intact, at the end of the log, is a torn tail", () => {
    // Out-of-order persistence of an unsynced record: only its last fragment made it.
    const { records, bytes, cStart, end } = threeRecords([10, 20, MAX_FRAGMENT_LENGTH + 100]);
    bytes[cStart + HEADER_SIZE + 3] = bytes[cStart + HEADER_SIZE + 3]! ^ 0x40;
    for (const mode of [PointInTime, SkipAnyCorrupted]) {
      const out = readLog(bytes, mode);
      expect(out.error).toBeUndefined();
      expectRecords(out.records, records.slice(0, 2));
      expect(out.reports).toEqual([
        { offset: cStart, bytes: end - cStart, reason: "checksum mismatch" },
      ]);
    }
  });

  it("garbage over a block boundary: the search finds a record in the middle of the next block", () => {
    const records = [payload(32_000, 1), payload(1_500, 2), payload(300, 3), payload(40, 4)];
    const bytes = writeLog(records).bytes;
    const [, bStart, cStart, dStart] = recordOffsets(bytes) as [number, number, number, number];
    expect(cStart).toBeGreaterThan(BLOCK_SIZE);
    const garbage = payload(cStart - bStart, 99);
    bytes.set(garbage, bStart);
    const pit = readLog(bytes, PointInTime);
    expectCorruption(pit, bStart, `a valid record follows at offset ${cStart}`);
    const skip = readLog(bytes, SkipAnyCorrupted);
    expectRecords(skip.records, [records[0]!, records[2]!, records[3]!]);
    expect(skip.reports).toHaveLength(1);
    expect(skip.reports[0]).toMatchObject({ offset: bStart, bytes: cStart - bStart });
    expect(skip.offsets).toEqual([0, cStart, dStart]);
  });
});

describe("zeroed data", () => {
  for (const [name, sizes] of [
    ["all in one block", SMALL],
    ["last record across a block boundary", LAST_SPANS],
  ] as const) {
    it(`a zeroed last record is a torn tail (${name})`, () => {
      const { records, bytes, cStart, end } = threeRecords(sizes);
      bytes.fill(0, cStart);
      expectCorruption(readLog(bytes, AbsoluteConsistency), cStart, "zeroed tail");
      for (const mode of LENIENT) {
        const out = readLog(bytes, mode);
        expect(out.error).toBeUndefined();
        expectRecords(out.records, records.slice(0, 2));
        expect(out.reports).toEqual([
          { offset: cStart, bytes: end - cStart, reason: "zeroed tail" },
        ]);
      }
    });
  }

  it("zeros after the last record (a preallocated file) are a torn tail", () => {
    const { records, bytes, end } = threeRecords(SMALL);
    const padded = concat(bytes, new Uint8Array(3 * BLOCK_SIZE));
    expectCorruption(readLog(padded, AbsoluteConsistency), end, "zeroed tail");
    for (const mode of LENIENT) {
      const out = readLog(padded, mode);
      expectRecords(out.records, records);
      expect(out.reports).toEqual([{ offset: end, bytes: 3 * BLOCK_SIZE, reason: "zeroed tail" }]);
    }
  });

  it("a record zeroed from the middle of its payload is a checksum mismatch", () => {
    const { records, bytes, cStart, end } = threeRecords(SMALL);
    bytes.fill(0, cStart + 50);
    expectCorruption(readLog(bytes, TolerateCorruptedTail), cStart, "checksum mismatch");
    const out = readLog(bytes, PointInTime);
    expectRecords(out.records, records.slice(0, 2));
    expect(out.reports).toEqual([
      { offset: cStart, bytes: end - cStart, reason: "checksum mismatch" },
    ]);
  });

  it("a zeroed middle record is damage before the end", () => {
    const { records, bytes, bStart, cStart } = threeRecords(SMALL);
    bytes.fill(0, bStart, cStart);
    for (const mode of [AbsoluteConsistency, TolerateCorruptedTail, PointInTime]) {
      expectCorruption(readLog(bytes, mode), bStart, "zeroed region");
    }
    const skip = readLog(bytes, SkipAnyCorrupted);
    expectRecords(skip.records, [records[0]!, records[2]!]);
    expect(skip.reports).toEqual([
      { offset: bStart, bytes: cStart - bStart, reason: "zeroed region" },
    ]);
  });

  it("zeros followed by garbage (no valid record) at the end", () => {
    const { records, bytes, cStart, end } = threeRecords(SMALL);
    bytes.fill(0, cStart, cStart + 20);
    bytes.fill(0xab, cStart + 20);
    for (const mode of [AbsoluteConsistency, TolerateCorruptedTail]) {
      expectCorruption(readLog(bytes, mode), cStart, "zeroed region");
    }
    for (const mode of [PointInTime, SkipAnyCorrupted]) {
      const out = readLog(bytes, mode);
      expectRecords(out.records, records.slice(0, 2));
      expect(out.reports).toEqual([
        { offset: cStart, bytes: end - cStart, reason: "zeroed region" },
      ]);
    }
  });
});

describe("malformed fragments", () => {
  const a = fragment(Full, payload(10, 1));
  const c = fragment(Full, payload(12, 3));
  const aEnd = a.length;

  /** Every non-Skip mode throws at `offset`; Skip returns [a, c] and reports `report`. */
  function expectSkippable(
    bytes: Uint8Array,
    offset: number,
    reason: string,
    dropped: number,
  ): void {
    for (const mode of [AbsoluteConsistency, TolerateCorruptedTail, PointInTime]) {
      const out = readLog(bytes, mode);
      expectCorruption(out, offset, reason);
      expectRecords(out.records, [payload(10, 1)]);
    }
    const skip = readLog(bytes, SkipAnyCorrupted);
    expect(skip.error).toBeUndefined();
    expectRecords(skip.records, [payload(10, 1), payload(12, 3)]);
    expect(skip.reports).toEqual([{ offset: aEnd, bytes: dropped, reason }]);
  }

  it("a FIRST without its LAST, followed by a FULL: partial record without end", () => {
    const first = fragment(First, payload(20, 2));
    expectSkippable(
      concat(a, first, c),
      aEnd + first.length,
      "partial record without end",
      first.length,
    );
  });

  it("a FIRST, MIDDLE, then a FIRST: partial record without end", () => {
    const first = fragment(First, payload(20, 2));
    const middle = fragment(Middle, payload(20, 2));
    const bytes = concat(
      a,
      first,
      middle,
      fragment(First, payload(6, 3)),
      fragment(Last, payload(6, 4)),
    );
    const skip = readLog(bytes, SkipAnyCorrupted);
    expectRecords(skip.records, [payload(10, 1), concat(payload(6, 3), payload(6, 4))]);
    expect(skip.reports).toEqual([
      { offset: aEnd, bytes: first.length + middle.length, reason: "partial record without end" },
    ]);
    expect(skip.offsets).toEqual([0, aEnd + first.length + middle.length]);
  });

  it("a MIDDLE and LAST without a FIRST: missing start of fragmented record", () => {
    const middle = fragment(Middle, payload(20, 2));
    const last = fragment(Last, payload(5, 2));
    const reason = "missing start of fragmented record";
    expectSkippable(concat(a, middle, last, c), aEnd, reason, middle.length + last.length);
  });

  it("an unknown type below 128", () => {
    const odd = fragment(12, payload(20, 2));
    expectSkippable(concat(a, odd, c), aEnd, "unknown record type", odd.length);
  });

  it("an unknown type with checksums off: its length is not trusted", () => {
    const odd = fragment(20, payload(20, 2));
    const skip = readLog(concat(a, odd, c), SkipAnyCorrupted, { verifyChecksums: false });
    expectRecords(skip.records, [payload(10, 1), payload(12, 3)]);
    expect(skip.reports).toEqual([
      { offset: aEnd, bytes: odd.length, reason: "unknown record type" },
    ]);
  });

  it("a length beyond the block: bad record length", () => {
    const bad = fragment(Full, payload(20, 2));
    bad[5] = 0x90; // length 0x90xx > 32 KiB
    const tail = concat(a, bad);
    expectCorruption(readLog(tail, TolerateCorruptedTail), aEnd, "bad record length");
    const pit = readLog(tail, PointInTime);
    expectRecords(pit.records, [payload(10, 1)]);
    expect(pit.reports).toEqual([{ offset: aEnd, bytes: bad.length, reason: "bad record length" }]);
    // With a valid record in the next block, PointInTime throws and Skip resumes there.
    const gap = new Uint8Array(BLOCK_SIZE - tail.length);
    const bytes = concat(tail, gap, c);
    expectCorruption(
      readLog(bytes, PointInTime),
      aEnd,
      `a valid record follows at offset ${BLOCK_SIZE}`,
    );
    const skip = readLog(bytes, SkipAnyCorrupted);
    expectRecords(skip.records, [payload(10, 1), payload(12, 3)]);
    expect(skip.reports).toEqual([
      { offset: aEnd, bytes: BLOCK_SIZE - aEnd, reason: "bad record length" },
    ]);
  });

  it("a length past the end of file with valid data inside it is a damaged length, not a torn tail", () => {
    const bad = fragment(Full, payload(20, 2));
    bad[4] = 200; // the payload would run over c, past the end of file
    const bytes = concat(a, bad, c);
    expectCorruption(readLog(bytes, PointInTime), aEnd, "bad record length");
    expectCorruption(readLog(bytes, TolerateCorruptedTail), aEnd, "bad record length");
    expectCorruption(readLog(bytes, AbsoluteConsistency), aEnd, "truncated record");
    const skip = readLog(bytes, SkipAnyCorrupted);
    expectRecords(skip.records, [payload(10, 1), payload(12, 3)]);
  });

  it("a FIRST at the end of the file is a torn tail", () => {
    const first = fragment(First, payload(20, 2));
    const bytes = concat(a, first);
    expectCorruption(readLog(bytes, AbsoluteConsistency), aEnd, "truncated record");
    for (const mode of LENIENT) {
      const out = readLog(bytes, mode);
      expectRecords(out.records, [payload(10, 1)]);
      expect(out.reports).toEqual([
        { offset: aEnd, bytes: first.length, reason: "truncated record" },
      ]);
    }
  });
});

describe("reporter", () => {
  it("merges adjacent drops, even across a block trailer", () => {
    const a = fragment(Full, payload(10, 1));
    // A MIDDLE that ends 3 bytes before the end of block 0, then a LAST in block 1.
    const middle = fragment(Middle, payload(BLOCK_SIZE - a.length - HEADER_SIZE - 3, 2));
    const last = fragment(Last, payload(30, 3));
    const c = fragment(Full, payload(12, 4));
    const bytes = concat(a, middle, new Uint8Array(3), last, c);
    const skip = readLog(bytes, SkipAnyCorrupted);
    expectRecords(skip.records, [payload(10, 1), payload(12, 4)]);
    expect(skip.reports).toEqual([
      {
        offset: a.length,
        bytes: BLOCK_SIZE + last.length - a.length,
        reason: "missing start of fragmented record",
      },
    ]);
  });

  it("reports separate damage separately, in file order, before the record that follows", () => {
    const records = [10, 20, 30, 40, 50].map((n, i) => payload(n, i));
    const bytes = writeLog(records).bytes;
    const offsets = recordOffsets(bytes);
    bytes[offsets[1]! + 9] = bytes[offsets[1]! + 9]! ^ 1;
    bytes[offsets[3]! + 9] = bytes[offsets[3]! + 9]! ^ 1;
    const seen: string[] = [];
    const out = readLog(bytes, SkipAnyCorrupted);
    expectRecords(out.records, [records[0]!, records[2]!, records[4]!]);
    for (const r of out.reports) seen.push(`${r.offset}+${r.bytes}:${r.reason}`);
    expect(seen).toEqual([
      `${offsets[1]}+${offsets[2]! - offsets[1]!}:checksum mismatch`,
      `${offsets[3]}+${offsets[4]! - offsets[3]!}:checksum mismatch`,
    ]);
  });
});
