import { MemoryFileSystem } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BLOCK_SIZE } from "./format.js";
import { LogReader } from "./reader.js";
import { WalRecoveryMode } from "./recovery-mode.js";
import { LogWriter } from "./writer.js";

const record = (i: number, size: number): Uint8Array => {
  const r = new Uint8Array(size);
  r.fill(i & 0xff);
  if (size >= 4) new DataView(r.buffer).setUint32(0, i);
  return r;
};

/** Reads every record from `start`; returns them and where a follower resumes. */
function readFrom(fs: MemoryFileSystem, path: string, start: number) {
  const reader = new LogReader(fs.openSequential(path), {
    startOffset: start,
    mode: WalRecoveryMode.TolerateCorruptedTail,
    reporter: () => {},
  });
  const out: Uint8Array[] = [];
  for (let r = reader.readRecord(); r !== undefined; r = reader.readRecord()) out.push(r.slice());
  return { records: out, next: reader.lastRecordEndOffset };
}

describe("LogReader startOffset (tailing a log being appended to)", () => {
  it("resumes at lastRecordEndOffset: every record once, across blocks and torn tails", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: BLOCK_SIZE + 100 }), { minLength: 1, maxLength: 16 }),
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 30 }),
        (sizes, steps) => {
          const fs = new MemoryFileSystem();
          const path = "/000001.log";
          const writer = new LogWriter(fs.openWritable(path));
          const seen: Uint8Array[] = [];
          let offset = 0;
          let written = 0;
          let s = 0;
          while (written < sizes.length) {
            const n = Math.min(steps[s++ % steps.length]!, sizes.length - written);
            for (let k = 0; k < n; k++, written++)
              writer.addRecord(record(written, sizes[written]!));
            writer.flush();
            const got = readFrom(fs, path, offset);
            seen.push(...got.records);
            offset = got.next;
          }
          writer.close();
          expect(seen.length).toBe(sizes.length);
          for (let i = 0; i < seen.length; i++) expect(seen[i]).toEqual(record(i, sizes[i]!));
        },
      ),
      { numRuns: 25 },
    );
  });

  it("a record cut short at the end is read once its end arrives", () => {
    const fs = new MemoryFileSystem();
    const path = "/000002.log";
    const full = new LogWriter(fs.openWritable("/whole.log"));
    full.addRecord(record(1, 100));
    full.addRecord(record(2, BLOCK_SIZE + 500));
    full.close();
    const bytes = fs.readFile("/whole.log");
    // The writer is mid-way through the second record: a reader sees its first fragment only.
    fs.writeFile(path, bytes.subarray(0, 100 + 7 + 2000));
    const first = readFrom(fs, path, 0);
    expect(first.records.map((r) => r.length)).toEqual([100]);
    expect(first.next).toBe(107);
    fs.writeFile(path, bytes);
    const second = readFrom(fs, path, first.next);
    expect(second.records.map((r) => r.length)).toEqual([BLOCK_SIZE + 500]);
    expect(second.next).toBe(bytes.length);
    expect(readFrom(fs, path, second.next).records).toEqual([]);
  });

  it("rejects a bad startOffset", () => {
    const fs = new MemoryFileSystem();
    fs.writeFile("/x.log", new Uint8Array(0));
    expect(() => new LogReader(fs.openSequential("/x.log"), { startOffset: -1 })).toThrow(
      /bad startOffset/,
    );
    expect(
      () => new LogReader(fs.openSequential("/x.log"), { startOffset: "1" as unknown as number }),
    ).toThrow(TypeError);
  });
});
