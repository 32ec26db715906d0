import { toHex } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { uint64AddOperator } from "./core/merge-operator.js";

const key = new Uint8Array(0);
const le = (n: bigint) => {
  const out = new Uint8Array(8);
  for (let i = 0; i < 8; i++) out[i] = Number((n >> BigInt(8 * i)) & 0xffn);
  return out;
};
const MASK = (1n << 64n) - 1n;

describe("uint64add wraps modulo 2^64 like RocksDB's UInt64AddOperator", () => {
  it("sums past 2^53 and past 2^64 exactly (db_bench's mergerandom operands are random 8 bytes)", () => {
    expect(toHex(uint64AddOperator.fullMerge(key, le(MASK), [le(2n)])!)).toBe(toHex(le(1n)));
    const big = 0x9e3779b97f4a7c15n;
    expect(toHex(uint64AddOperator.fullMerge(key, undefined, [le(big), le(big)])!)).toBe(
      toHex(le((big * 2n) & MASK)),
    );
    expect(toHex(uint64AddOperator.partialMerge!(key, le(2n ** 53n), le(1n))!)).toBe(
      toHex(le(2n ** 53n + 1n)),
    );
  });

  it("full and partial merges equal the BigInt sum modulo 2^64 (property)", () => {
    fc.assert(
      fc.property(
        fc.option(fc.bigInt({ min: 0n, max: MASK }), { nil: undefined }),
        fc.array(fc.bigInt({ min: 0n, max: MASK }), { minLength: 1, maxLength: 6 }),
        (base, ops) => {
          const want = ops.reduce((a, b) => (a + b) & MASK, base ?? 0n);
          const full = uint64AddOperator.fullMerge(
            key,
            base === undefined ? undefined : le(base),
            ops.map(le),
          )!;
          expect(toHex(full)).toBe(toHex(le(want)));
          const partial = ops
            .map(le)
            .reduce<Uint8Array>((a, b) => uint64AddOperator.partialMerge!(key, a, b)!, le(0n));
          const viaPartial = uint64AddOperator.fullMerge(
            key,
            base === undefined ? undefined : le(base),
            [partial],
          )!;
          expect(toHex(viaPartial)).toBe(toHex(le(want)));
        },
      ),
    );
  });

  it("an operand that is not 8 bytes fails the merge", () => {
    expect(uint64AddOperator.fullMerge(key, undefined, [new Uint8Array(4)])).toBeUndefined();
    expect(uint64AddOperator.fullMerge(key, new Uint8Array(9), [le(1n)])).toBeUndefined();
    expect(uint64AddOperator.partialMerge!(key, new Uint8Array(7), le(1n))).toBeUndefined();
  });
});
