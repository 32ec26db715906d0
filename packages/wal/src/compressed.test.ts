/**
 * Compressed logs (RocksDB's wal_compression): the SetCompressionType record, each record's
 * fragments joined into one compressed stream, and damage in them under every recovery mode.
 * RocksDB 7.8.3's zstd WAL (testdata/rocksdb-zstd.log) is decoded with fzstd; the writer's
 * framing is checked with a reversible stand-in codec (the zstd codec itself lives in
 * @shale/sstable; @shale/db's interop tests run RocksDB on shale's zstd WALs).
 */
import { readFileSync } from "node:fs";
import { getFixed32, MemoryFileSystem } from "@shale/base";
import fc from "fast-check";
import { decompress as fzstdDecompress } from "fzstd";
import { describe, expect, it } from "vitest";
import { BLOCK_SIZE, HEADER_SIZE, RecordType } from "./format.js";
import { LOG, parseFragments, payload, readLog, sequentialFile } from "./log.test-support.js";
import { LogReader } from "./reader.js";
import { type WalDecompressor, WalRecoveryMode } from "./recovery-mode.js";
import { LogWriter, type WalCompressor } from "./writer.js";

const { AbsoluteConsistency, TolerateCorruptedTail, PointInTime, SkipAnyCorrupted } =
  WalRecoveryMode;
const MODES = [AbsoluteConsistency, TolerateCorruptedTail, PointInTime, SkipAnyCorrupted] as const;
const ZSTD = 7;

const fzstd: WalDecompressor = {
  canDecompress: (type) => type === ZSTD,
  decompress: (_type, bytes) => fzstdDecompress(bytes),
};

/**
 * A stand-in codec: fixed32 length ‖ bytes xor 0x5a ‖ 0xc5. Decoding checks the length and
 * the end mark, so a damaged stream fails as a real one does.
 */
const xorCodec: WalCompressor & WalDecompressor = {
  type: ZSTD,
  canDecompress: (type) => type === ZSTD,
  compress(record) {
    const out = new Uint8Array(record.length + 5);
    out[0] = record.length & 0xff;
    out[1] = (record.length >>> 8) & 0xff;
    out[2] = (record.length >>> 16) & 0xff;
    out[3] = record.length >>> 24;
    for (let i = 0; i < record.length; i++) out[4 + i] = record[i]! ^ 0x5a;
    out[out.length - 1] = 0xc5;
    return out;
  },
  decompress(_type, bytes) {
    const n = getFixed32(bytes, 0);
    if (bytes.length !== n + 5 || bytes[bytes.length - 1] !== 0xc5) throw new Error("bad stream");
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = bytes[4 + i]! ^ 0x5a;
    return out;
  },
};

/** Records as base64 strings of their lengths and bytes (vitest's deep equality is slow on big arrays). */
function keys(records: readonly Uint8Array[]): string[] {
  return records.map((r) => `${r.length}:${Buffer.from(r).toString("base64")}`);
}

function writeCompressed(records: readonly Uint8Array[], recycleLogNumber?: number): Uint8Array {
  const fs = new MemoryFileSystem();
  const options: { compressor: WalCompressor; recycleLogNumber?: number } = {
    compressor: xorCodec,
  };
  if (recycleLogNumber !== undefined) options.recycleLogNumber = recycleLogNumber;
  const writer = new LogWriter(fs.openWritable(LOG), options);
  for (const r of records) writer.addRecord(r);
  writer.close();
  return fs.readFile(LOG);
}

const recordSizes = fc.array(
  fc.oneof(fc.nat(100), fc.nat(3 * BLOCK_SIZE), fc.constant(0), fc.constant(BLOCK_SIZE - 12)),
  { maxLength: 12 },
);

describe("compressed logs", () => {
  it("RocksDB 7.8.3's zstd WAL reads as ldb dump_wal reads it, in every mode", () => {
    const bytes = new Uint8Array(
      readFileSync(new URL("../testdata/rocksdb-zstd.log", import.meta.url)),
    );
    const dump = readFileSync(new URL("../testdata/rocksdb-zstd.dump.txt", import.meta.url), "utf8")
      .split("\n")
      .slice(1)
      .filter((l) => /^\d/.test(l))
      .map((l) => l.split(",").slice(0, 3).join(","));
    for (const mode of MODES) {
      const out = readLog(bytes, mode, { decompressor: fzstd });
      expect(out.error).toBeUndefined();
      expect(out.reports).toEqual([]);
      const rows = out.records.map(
        (r) => `${getFixed32(r, 0) + getFixed32(r, 4) * 2 ** 32},${getFixed32(r, 8)},${r.length}`,
      );
      expect(rows).toEqual(dump);
    }
  });

  it("a reader resuming past SetCompressionType reads on with startCompression", () => {
    fc.assert(
      fc.property(recordSizes, fc.nat(), (sizes, cut) => {
        const records = sizes.map((n, i) => payload(n, i + 1));
        const bytes = writeCompressed(records);
        const first = readLog(bytes, AbsoluteConsistency, { decompressor: xorCodec });
        expect(keys(first.records)).toEqual(keys(records));
        if (records.length === 0) return;
        // A first reader sees the type; a second one starts at the end of record `at`.
        const probe = new LogReader(sequentialFile(bytes), { decompressor: xorCodec });
        const at = cut % records.length;
        for (let i = 0; i <= at; i++) probe.readRecord();
        expect(probe.compressionType).toBe(ZSTD);
        const rest = readLog(bytes, AbsoluteConsistency, {
          decompressor: xorCodec,
          startOffset: probe.lastRecordEndOffset,
          startCompression: probe.compressionType,
        });
        expect(rest.error).toBeUndefined();
        expect(keys(rest.records)).toEqual(keys(records.slice(at + 1)));
      }),
    );
    const bytes = writeCompressed([payload(10, 1), payload(10, 2)]);
    const none: WalDecompressor = {
      canDecompress: () => false,
      decompress: () => new Uint8Array(0),
    };
    expect(
      () =>
        new LogReader(sequentialFile(bytes), {
          startOffset: 7,
          startCompression: ZSTD,
          decompressor: none,
        }),
    ).toThrow(/does not read/);
    expect(
      () => new LogReader(sequentialFile(bytes), { startOffset: 7, startCompression: 300 }),
    ).toThrow(TypeError);
  });

  it("a decompressor that lacks the log's compression is NotSupported", () => {
    const bytes = writeCompressed([payload(10, 1)]);
    const none: WalDecompressor = {
      canDecompress: () => false,
      decompress: () => new Uint8Array(0),
    };
    expect(() => readLog(bytes, PointInTime, { decompressor: none })).toThrow(/does not read/);
  });

  it("starts with SetCompressionType (legacy header, fixed32 type), then compressed records", () => {
    const bytes = writeCompressed([payload(5, 1), new Uint8Array(0)]);
    expect(Array.from(bytes.subarray(4, 11))).toEqual([
      4,
      0,
      RecordType.SetCompressionType,
      7,
      0,
      0,
      0,
    ]);
    const fragments = parseFragments(bytes);
    expect(fragments.map((f) => [f.type, f.length])).toEqual([
      [RecordType.SetCompressionType, 4],
      [RecordType.Full, 10],
      [RecordType.Full, 0], // an empty record stays empty, as RocksDB writes it
    ]);
    expect(fragments[1]!.offset).toBe(HEADER_SIZE + 4);
  });

  it("round-trips records of any size, fragmented across blocks, legacy and recyclable (property)", () => {
    fc.assert(
      fc.property(recordSizes, fc.boolean(), (sizes, recycle) => {
        const records = sizes.map((n, i) => payload(n, i + 1));
        const bytes = writeCompressed(records, recycle ? 77 : undefined);
        for (const mode of MODES) {
          const out = readLog(bytes, mode, { decompressor: xorCodec });
          expect(out.error).toBeUndefined();
          expect(keys(out.records)).toEqual(keys(records));
        }
      }),
      { numRuns: 40 },
    );
  });

  it("a torn tail drops the torn record only; AbsoluteConsistency throws (property)", () => {
    fc.assert(
      fc.property(recordSizes, fc.double({ min: 0, max: 1, noNaN: true }), (sizes, cutAt) => {
        const records = sizes.map((n, i) => payload(n, i + 1));
        const bytes = writeCompressed(records);
        const cut = Math.floor(cutAt * bytes.length);
        const torn = bytes.subarray(0, cut);
        const whole = writeCompressed(records).length === cut;
        for (const mode of [TolerateCorruptedTail, PointInTime, SkipAnyCorrupted]) {
          const out = readLog(torn, mode, { decompressor: xorCodec });
          expect(out.error).toBeUndefined();
          // A prefix of the records, all complete.
          expect(keys(out.records)).toEqual(keys(records.slice(0, out.records.length)));
        }
        const strict = readLog(torn, AbsoluteConsistency, { decompressor: xorCodec });
        const prefix = readLog(torn, PointInTime, { decompressor: xorCodec });
        if (strict.error === undefined) expect(keys(strict.records)).toEqual(keys(prefix.records));
        else expect(whole).toBe(false);
      }),
      { numRuns: 60 },
    );
  });

  it("a record whose checksums verify but whose stream does not decode is Corruption, or skipped", () => {
    const records = [payload(100, 1), payload(2 * BLOCK_SIZE, 2), payload(50, 3)];
    // The second record's stream is damaged before the checksums are computed.
    const damaging: WalCompressor = {
      type: ZSTD,
      compress: (r) => {
        const out = xorCodec.compress(r);
        if (r.length === 2 * BLOCK_SIZE) out[out.length - 1] = 0;
        return out;
      },
    };
    const fs = new MemoryFileSystem();
    const writer = new LogWriter(fs.openWritable(LOG), { compressor: damaging });
    for (const r of records) writer.addRecord(r);
    writer.close();
    const bytes = fs.readFile(LOG);
    for (const mode of [AbsoluteConsistency, TolerateCorruptedTail, PointInTime]) {
      const out = readLog(bytes, mode, { decompressor: xorCodec });
      expect(out.records).toEqual([records[0]]);
      expect(out.error?.code).toBe("Corruption");
      expect(out.error?.message).toContain("bad compressed record");
      expect(out.error?.offset).toBe(HEADER_SIZE + 4 + HEADER_SIZE + 105);
    }
    const skipped = readLog(bytes, SkipAnyCorrupted, { decompressor: xorCodec });
    expect(skipped.records).toEqual([records[0], records[2]]);
    expect(skipped.reports.map((r) => r.reason)).toEqual(["bad compressed record"]);
  });
});
