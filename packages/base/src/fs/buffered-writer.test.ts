import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ErrorCode, isShaleError, ShaleError } from "../errors.js";
import { BufferedWriter, type ByteSink } from "./buffered-writer.js";

/** A file behind a `write(2)` that accepts `cuts[i]` bytes at call i (cycled; 0 = all). */
class ScriptedSink implements ByteSink {
  readonly file: number[] = [];
  calls = 0;
  /** Bytes the OS still takes before failing (a full disk); undefined = unlimited. */
  room: number | undefined;
  constructor(private readonly cuts: number[] = []) {}

  write(data: Uint8Array, start: number, length: number): number {
    const cut = this.cuts.length > 0 ? this.cuts[this.calls % this.cuts.length]! : 0;
    this.calls++;
    let k = cut > 0 ? Math.min(cut, length) : length;
    if (this.room !== undefined) {
      if (this.room === 0) throw Object.assign(new Error("ENOSPC"), { code: "ENOSPC" });
      k = Math.min(k, this.room);
      this.room -= k;
    }
    for (let i = 0; i < k; i++) this.file.push(data[start + i]!);
    return k;
  }
}

const wrap = (err: unknown): ShaleError => ShaleError.ioError(`write failed: ${err}`, "f", err);
const bytes = (n: number, seed: number): Uint8Array =>
  Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

describe("BufferedWriter", () => {
  it("completes a short write from where it stopped", () => {
    const sink = new ScriptedSink([3]);
    const w = new BufferedWriter(sink, 16, 0, wrap);
    w.append(bytes(10, 1), 0, 10);
    w.flush();
    expect(sink.file).toEqual([...bytes(10, 1)]);
    expect(sink.calls).toBe(4); // 3 + 3 + 3 + 1
    expect(w.size).toBe(10);
  });

  it("after a failure mid-flush: exactly the accepted prefix, nothing re-sent, failed handle", () => {
    const sink = new ScriptedSink([4]);
    sink.room = 6;
    const w = new BufferedWriter(sink, 16, 100, wrap);
    w.append(bytes(10, 2), 0, 10);
    const err = (() => {
      try {
        w.flush();
      } catch (e) {
        return e;
      }
    })();
    expect(isShaleError(err, ErrorCode.IOError)).toBe(true);
    expect(sink.file).toEqual([...bytes(10, 2).subarray(0, 6)]);
    expect(w.size).toBe(106);
    sink.room = undefined; // space freed: the handle still sends nothing again
    expect(() => w.flush()).toThrow(/an earlier write failed/);
    expect(() => w.append(bytes(1, 0), 0, 1)).toThrow(/an earlier write failed/);
    expect(sink.file.length).toBe(6);
    expect(w.error).toBe(err);
  });

  it("a failed large direct append leaves its accepted prefix and the right size", () => {
    const sink = new ScriptedSink();
    sink.room = 20;
    const w = new BufferedWriter(sink, 8, 0, wrap);
    w.append(bytes(5, 3), 0, 5);
    expect(() => w.append(bytes(40, 4), 0, 40)).toThrow();
    expect(sink.file).toEqual([...bytes(5, 3), ...bytes(40, 4).subarray(0, 15)]);
    expect(w.size).toBe(20);
  });

  it("rejects a sink that accepts nothing or more than it was given", () => {
    for (const bad of [0, 11]) {
      const w = new BufferedWriter({ write: () => bad }, 16, 0, wrap);
      w.append(bytes(10, 5), 0, 10);
      expect(() => w.flush()).toThrow(/write accepted/);
    }
  });

  it("property: whatever the short writes and appends, the file is the bytes appended, once", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 700 }), { minLength: 1, maxLength: 30 }),
        fc.array(fc.integer({ min: 0, max: 97 }), { maxLength: 12 }),
        fc.integer({ min: 0, max: 512 }),
        fc.array(fc.boolean(), { maxLength: 30 }),
        (sizes, cuts, bufferSize, flushes) => {
          const sink = new ScriptedSink(cuts);
          const w = new BufferedWriter(sink, bufferSize, 0, wrap);
          const expected: number[] = [];
          sizes.forEach((n, i) => {
            const data = bytes(n + 2, i);
            w.append(data, 1, n + 1);
            expected.push(...data.subarray(1, n + 1));
            if (flushes[i] === true) w.flush();
            expect(w.size).toBe(expected.length);
          });
          w.flush();
          expect(sink.file).toEqual(expected);
        },
      ),
    );
  });

  it("property: a disk that fills at any byte keeps exactly a prefix, and size says which", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 20 }),
        fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 8 }),
        fc.integer({ min: 0, max: 256 }),
        fc.integer({ min: 0, max: 3000 }),
        (sizes, cuts, bufferSize, room) => {
          const sink = new ScriptedSink(cuts);
          sink.room = room;
          const w = new BufferedWriter(sink, bufferSize, 0, wrap);
          const expected: number[] = [];
          let failed = false;
          for (let i = 0; i < sizes.length && !failed; i++) {
            const data = bytes(sizes[i]!, i);
            try {
              w.append(data, 0, data.length);
              expected.push(...data);
            } catch {
              failed = true;
              expected.push(...data); // the file holds a prefix of everything appended
            }
          }
          if (!failed) {
            try {
              w.flush();
            } catch {
              failed = true;
            }
          }
          expect(sink.file).toEqual(expected.slice(0, sink.file.length));
          if (failed) expect(w.size).toBe(sink.file.length);
          else expect(sink.file.length).toBe(expected.length);
        },
      ),
    );
  });
});
