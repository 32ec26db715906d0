/**
 * Test helpers (not built, not exported): write logs into memory, read them back with every
 * outcome captured, and an independent parser of the fragment layout used as an oracle.
 */

import {
  getFixed32,
  isShaleError,
  MemoryFileSystem,
  maskedCrc32c,
  putFixed32,
  type SequentialFile,
  type ShaleError,
} from "@shale/base";
import { expect } from "vitest";
import { BLOCK_SIZE, HEADER_SIZE } from "./format.js";
import { LogReader } from "./reader.js";
import type { LogCorruptionInfo, LogReaderOptions, WalRecoveryMode } from "./recovery-mode.js";
import { LogWriter } from "./writer.js";

export const LOG = "/000001.log";

/** `n` deterministic bytes that differ per `seed` (xorshift). */
export function payload(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** Writes `records` as a fresh log and returns the file's bytes and the writer's size. */
export function writeLog(records: readonly Uint8Array[]): { bytes: Uint8Array; size: number } {
  const fs = new MemoryFileSystem();
  const writer = new LogWriter(fs.openWritable(LOG));
  for (const r of records) writer.addRecord(r);
  writer.flush();
  const size = writer.size;
  writer.close();
  return { bytes: fs.readFile(LOG), size };
}

/** A SequentialFile over `bytes` that returns at most `maxRead` bytes per read. */
export function sequentialFile(
  bytes: Uint8Array,
  maxRead = Number.POSITIVE_INFINITY,
): SequentialFile {
  let position = 0;
  return {
    read(dst: Uint8Array, dstOffset = 0, length = dst.length - dstOffset): number {
      const n = Math.min(length, bytes.length - position, maxRead);
      if (n <= 0) return 0;
      dst.set(bytes.subarray(position, position + n), dstOffset);
      position += n;
      return n;
    },
    skip(n: number): void {
      position += n;
    },
    close(): void {},
  };
}

export interface ReadOutcome {
  /** Copies of the records returned, in order. */
  records: Uint8Array[];
  /** `lastRecordOffset` after each record. */
  offsets: number[];
  /** `lastRecordEndOffset` after each record. */
  ends: number[];
  reports: LogCorruptionInfo[];
  /** The Corruption error thrown, if any. */
  error: ShaleError | undefined;
}

/** Reads every record of `bytes` in `mode`, capturing records, reports and the error. */
export function readLog(
  bytes: Uint8Array,
  mode: WalRecoveryMode,
  options: Omit<LogReaderOptions, "mode" | "reporter"> & { maxRead?: number } = {},
): ReadOutcome {
  const reports: LogCorruptionInfo[] = [];
  const { maxRead, ...rest } = options;
  const reader = new LogReader(sequentialFile(bytes, maxRead), {
    ...rest,
    mode,
    fileName: options.fileName ?? LOG,
    reporter: (info) => reports.push(info),
  });
  const records: Uint8Array[] = [];
  const offsets: number[] = [];
  const ends: number[] = [];
  let error: ShaleError | undefined;
  try {
    for (let r = reader.readRecord(); r !== undefined; r = reader.readRecord()) {
      records.push(r.slice());
      offsets.push(reader.lastRecordOffset);
      ends.push(reader.lastRecordEndOffset);
    }
  } catch (err) {
    if (!isShaleError(err, "Corruption")) throw err;
    error = err;
  }
  return { records, offsets, ends, reports, error };
}

export interface Fragment {
  offset: number;
  type: number;
  length: number;
}

/**
 * The fragments of a well-formed log, parsed independently of LogReader: checks every
 * checksum and that every block tail shorter than a header is zeros. Throws on anything
 * else.
 */
export function parseFragments(bytes: Uint8Array): Fragment[] {
  const out: Fragment[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    const room = BLOCK_SIZE - (pos % BLOCK_SIZE);
    if (room < HEADER_SIZE) {
      for (let i = pos; i < pos + room; i++)
        if (bytes[i] !== 0) throw new Error(`non-zero trailer at ${i}`);
      if (pos + room > bytes.length) throw new Error("file ends inside a trailer");
      pos += room;
      continue;
    }
    const length = bytes[pos + 4]! | (bytes[pos + 5]! << 8);
    const type = bytes[pos + 6]!;
    const end = pos + HEADER_SIZE + length;
    if (length > room - HEADER_SIZE || end > bytes.length) throw new Error(`bad length at ${pos}`);
    if (getFixed32(bytes, pos) !== maskedCrc32c(bytes, pos + 6, end)) {
      throw new Error(`bad checksum at ${pos}`);
    }
    out.push({ offset: pos, type, length });
    pos = end;
  }
  return out;
}

/** Start offsets of records (their FULL or FIRST fragment) in a well-formed log. */
export function recordOffsets(bytes: Uint8Array): number[] {
  return parseFragments(bytes)
    .filter((f) => f.type === 1 || f.type === 2)
    .map((f) => f.offset);
}

/** One hand-made fragment (header with a valid checksum + payload) of any `type`. */
export function fragment(type: number, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(HEADER_SIZE + data.length);
  out.set(data, HEADER_SIZE);
  out[4] = data.length & 0xff;
  out[5] = data.length >>> 8;
  out[6] = type;
  putFixed32(out, 0, maskedCrc32c(out, 6, out.length));
  return out;
}

/** Concatenates byte arrays. */
export function concat(...parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Asserts `actual` are exactly `expected` (fast for large arrays; a diff on mismatch). */
export function expectRecords(
  actual: readonly Uint8Array[],
  expected: readonly Uint8Array[],
): void {
  const same =
    actual.length === expected.length &&
    actual.every((a, i) => Buffer.from(a.buffer, a.byteOffset, a.length).equals(expected[i]!));
  if (!same) {
    const summary = (rs: readonly Uint8Array[]) =>
      rs.map((r) => `${r.length}:${Buffer.from(r.subarray(0, 8)).toString("hex")}`);
    expect(summary(actual)).toEqual(summary(expected));
    expect(actual).toEqual(expected);
  }
}
