import { LookupState, Statistics, Ticker, ValueKind } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemTable } from "./memtable.js";
import { MemTableBloom, type MemTableBloomPrefix } from "./memtable-bloom.js";

const enc = (s: string) => new TextEncoder().encode(s);
/** The first two bytes; keys shorter than two are out of the domain. */
const prefix2: MemTableBloomPrefix = {
  transform: (k) => k.subarray(0, 2),
  inDomain: (k) => k.length >= 2,
};

describe("MemTableBloom", () => {
  it("never answers 'not here' for a key added (whole keys and prefixes)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 12 }), { maxLength: 200 }),
        fc.integer({ min: 1, max: 4096 }),
        (keys, bits) => {
          const whole = new MemTableBloom({ bits, wholeKey: true });
          const pre = new MemTableBloom({ bits, prefix: prefix2 });
          for (const k of keys) {
            whole.add(k);
            pre.add(k);
          }
          for (const k of keys) {
            expect(whole.mayContainKey(k)).toBe(true);
            expect(pre.mayContainKey(k)).toBe(true);
            if (k.length >= 2) expect(pre.prefixMayMatch(k.subarray(0, 2))).toBe(true);
          }
        },
      ),
    );
  });

  it("rejects most absent keys at 10 bits a key", () => {
    const bloom = new MemTableBloom({ bits: 10 * 10_000, wholeKey: true });
    for (let i = 0; i < 10_000; i++) bloom.add(enc(`key${i}`));
    let hits = 0;
    for (let i = 0; i < 10_000; i++) if (bloom.mayContainKey(enc(`other${i}`))) hits++;
    expect(hits / 10_000).toBeLessThan(0.03);
  });

  it("by prefix: keys outside the domain may be anywhere; other prefixes are rejected", () => {
    const bloom = new MemTableBloom({ bits: 4096, prefix: prefix2 });
    bloom.add(enc("aa1"));
    expect(bloom.mayContainKey(enc("aa9"))).toBe(true);
    expect(bloom.mayContainKey(enc("z"))).toBe(true);
    expect(bloom.mayContainKey(enc("bb1"))).toBe(false);
    expect(bloom.prefixMayMatch(enc("bb"))).toBe(false);
    expect(bloom.prefixMayMatch(enc("aa"))).toBe(true);
    expect(new MemTableBloom({ bits: 64, wholeKey: true }).prefixMayMatch(enc("x"))).toBe(true);
  });

  it("counts probes in the statistics", () => {
    const statistics = new Statistics();
    const bloom = new MemTableBloom({ bits: 4096, wholeKey: true, statistics });
    bloom.add(enc("a"));
    bloom.mayContainKey(enc("a"));
    bloom.mayContainKey(enc("b"));
    bloom.mayContainKey(enc("c"));
    expect(statistics.getTicker(Ticker.BloomMemtableHit)).toBe(1);
    expect(statistics.getTicker(Ticker.BloomMemtableMiss)).toBe(2);
  });

  it("rejects bad options", () => {
    expect(() => new MemTableBloom({ bits: 0, wholeKey: true })).toThrow(TypeError);
    expect(() => new MemTableBloom({ bits: 1.5, wholeKey: true })).toThrow(TypeError);
    expect(() => new MemTableBloom({ bits: 64 })).toThrow(/prefix extractor or wholeKey/);
    expect(() => new MemTable({ bloom: {} as MemTableBloom })).toThrow(TypeError);
  });
});

describe("MemTable with a bloom", () => {
  it("gets agree with a memtable without one, range tombstones included", () => {
    const entry = fc.record({
      k: fc.constantFrom("aa1", "aa2", "ab1", "b", "bc3", "cc"),
      kind: fc.constantFrom(ValueKind.Value, ValueKind.Deletion, ValueKind.Merge),
      v: fc.string({ maxLength: 3 }),
    });
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 40 }),
        fc.option(fc.tuple(fc.constantFrom("a", "ab", "b"), fc.constantFrom("b", "c", "d"))),
        (entries, range) => {
          const plain = new MemTable();
          const filtered = [
            new MemTable({ bloom: new MemTableBloom({ bits: 256, wholeKey: true }) }),
            new MemTable({ bloom: new MemTableBloom({ bits: 256, prefix: prefix2 }) }),
          ];
          let seq = 1;
          for (const e of entries) {
            for (const m of [plain, ...filtered]) m.add(seq, e.kind, enc(e.k), enc(e.v));
            seq++;
          }
          if (range !== null && range[0] < range[1]) {
            for (const m of [plain, ...filtered])
              m.add(seq, ValueKind.RangeDeletion, enc(range[0]), enc(range[1]));
            seq++;
          }
          for (const k of ["aa1", "aa2", "ab1", "ab9", "b", "bc3", "cc", "zz", "q"]) {
            const want = plain.get(enc(k));
            for (const m of filtered) {
              const got = m.get(enc(k));
              expect(got.state).toBe(want.state);
              expect(got.value).toEqual(want.value);
              expect(got.operands.map((o) => [...o])).toEqual(want.operands.map((o) => [...o]));
              expect(got.maxCoveringSeq).toBe(want.maxCoveringSeq);
            }
          }
        },
      ),
    );
  });

  it("answers a miss without a search, and counts the filter in its memory use", () => {
    const bloom = new MemTableBloom({ bits: 8192, wholeKey: true });
    const m = new MemTable({ bloom });
    const bare = new MemTable();
    m.add(1, ValueKind.Value, enc("a"), enc("1"));
    bare.add(1, ValueKind.Value, enc("a"), enc("1"));
    expect(m.get(enc("a")).state).toBe(LookupState.Found);
    expect(m.get(enc("nope")).state).toBe(bare.get(enc("nope")).state);
    expect(m.approximateMemoryUsage() - bare.approximateMemoryUsage()).toBe(bloom.byteSize);
  });
});
