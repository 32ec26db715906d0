import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareBytes } from "./bytes.js";
import { bytewiseComparator, reverseBytewiseComparator } from "./comparator.js";
import {
  formatInternalKey,
  InternalKeyComparator,
  isValueKind,
  KIND_FOR_SEEK,
  kindOf,
  MAX_SEQ,
  makeInternalKey,
  parseInternalKey,
  seqOf,
  userKeyOf,
  ValueKind,
} from "./internal-key.js";

const seqArb = fc.oneof(fc.nat(1000), fc.integer({ min: 0, max: MAX_SEQ }));
const kindArb = fc.constantFrom(...Object.values(ValueKind));
const keyArb = fc.uint8Array({ maxLength: 12 }).map((a) => a.map((b) => b % 4));
const icmp = new InternalKeyComparator(bytewiseComparator);

describe("internal keys", () => {
  it("round-trip (userKey, seq, kind) for seqs up to 2^53-1", () => {
    fc.assert(
      fc.property(keyArb, seqArb, kindArb, (k, seq, kind) => {
        const ik = makeInternalKey(k, seq, kind);
        expect(ik.length).toBe(k.length + 8);
        expect([...userKeyOf(ik)]).toEqual([...k]);
        expect(seqOf(ik)).toBe(seq);
        expect(kindOf(ik)).toBe(kind);
        const p = parseInternalKey(ik);
        expect(p.seq).toBe(seq);
        // The trailer is fixed64 LE of (seq << 8) | kind, as RocksDB writes it.
        const trailer = Buffer.from(ik.subarray(k.length)).readBigUInt64LE(0);
        expect(trailer).toBe((BigInt(seq) << 8n) | BigInt(kind));
      }),
    );
  });

  it("orders by user key ascending, then seq descending, then kind descending", () => {
    fc.assert(
      fc.property(keyArb, seqArb, kindArb, keyArb, seqArb, kindArb, (k1, s1, t1, k2, s2, t2) => {
        const a = makeInternalKey(k1, s1, t1);
        const b = makeInternalKey(k2, s2, t2);
        const expected = compareBytes(k1, k2) || (s1 !== s2 ? s2 - s1 : t2 - t1);
        expect(Math.sign(icmp.compare(a, b))).toBe(Math.sign(expected));
        expect(Math.sign(icmp.compare(b, a))).toBe(-Math.sign(expected));
      }),
    );
  });

  it("uses the user comparator for the user-key part", () => {
    const r = new InternalKeyComparator(reverseBytewiseComparator);
    const a = makeInternalKey(new Uint8Array([1]), 5, ValueKind.Value);
    const b = makeInternalKey(new Uint8Array([2]), 5, ValueKind.Value);
    expect(r.compare(a, b)).toBeGreaterThan(0);
    expect(r.name).toBe("rocksdb.ReverseBytewiseComparator");
  });

  it("prints deterministically", () => {
    const ik = makeInternalKey(new TextEncoder().encode("a"), 12, ValueKind.Value);
    expect(formatInternalKey(ik)).toBe("a#12,SET");
    expect(
      formatInternalKey(makeInternalKey(new Uint8Array([0, 0x61]), 3, ValueKind.RangeDeletion)),
    ).toBe("\\x00a#3,RANGEDEL");
    expect(formatInternalKey(makeInternalKey(new Uint8Array(0), MAX_SEQ, ValueKind.Merge))).toBe(
      `#${MAX_SEQ},MERGE`,
    );
    expect(formatInternalKey(makeInternalKey(new Uint8Array([0x62]), 7, ValueKind.BlobIndex))).toBe(
      "b#7,BLOB_INDEX",
    );
  });

  it("a seek key sorts before every kind of its user key and seq (blob indexes included)", () => {
    const user = new Uint8Array([0x6b]);
    const seek = makeInternalKey(user, 5, KIND_FOR_SEEK);
    for (const kind of [0, 1, 2, 7, 0xf, 0x11]) {
      expect(isValueKind(kind)).toBe(true);
      expect(icmp.compare(seek, makeInternalKey(user, 5, kind))).toBeLessThanOrEqual(0);
    }
  });

  it("rejects short keys and unknown kinds with Corruption", () => {
    expect(() => parseInternalKey(new Uint8Array(7))).toThrowError(/Corruption/);
    const bad = makeInternalKey(new Uint8Array([1]), 1, ValueKind.Value);
    bad[1] = 0x44;
    expect(() => parseInternalKey(bad)).toThrowError(/unknown value kind/);
    expect(() => makeInternalKey(new Uint8Array(0), -1, 1)).toThrowError(/InvalidArgument/);
  });

  it("internal separators stay between their inputs", () => {
    fc.assert(
      fc.property(keyArb, seqArb, keyArb, seqArb, (k1, s1, k2, s2) => {
        let a = makeInternalKey(k1, s1, ValueKind.Value);
        let b = makeInternalKey(k2, s2, ValueKind.Value);
        const c = icmp.compare(a, b);
        if (c === 0) return;
        if (c > 0) [a, b] = [b, a];
        const sep = icmp.findShortestSeparator(a, b);
        expect(icmp.compare(a, sep)).toBeLessThanOrEqual(0);
        expect(icmp.compare(sep, b)).toBeLessThan(0);
        expect(icmp.compare(icmp.findShortSuccessor(a), a)).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});
