import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytewiseComparator, reverseBytewiseComparator } from "./comparator.js";

const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 10 }),
  fc.uint8Array({ maxLength: 10 }).map((a) => a.map((b) => (b & 1 ? 0xff : b % 3))),
  fc.uint8Array({ minLength: 60, maxLength: 90 }),
);

describe("bytewise comparator", () => {
  it("agrees with Buffer.compare", () => {
    fc.assert(
      fc.property(bytes, bytes, (a, b) => {
        expect(Math.sign(bytewiseComparator.compare(a, b))).toBe(Math.sign(Buffer.compare(a, b)));
      }),
    );
  });

  it("findShortestSeparator returns s with a <= s < b, never longer than a", () => {
    fc.assert(
      fc.property(bytes, bytes, (x, y) => {
        const c = Buffer.compare(x, y);
        if (c === 0) return;
        const [a, b] = c < 0 ? [x, y] : [y, x];
        const s = bytewiseComparator.findShortestSeparator(a, b);
        expect(Buffer.compare(a, s)).toBeLessThanOrEqual(0);
        expect(Buffer.compare(s, b)).toBeLessThan(0);
        expect(s.length).toBeLessThanOrEqual(a.length);
      }),
    );
  });

  it("shortens where it can", () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(
      Buffer.from(bytewiseComparator.findShortestSeparator(enc("abcdef"), enc("abzz"))).toString(),
    ).toBe("abd");
    expect(Buffer.from(bytewiseComparator.findShortSuccessor(enc("abc"))).toString()).toBe("b");
    const ff = new Uint8Array([0xff, 0xff]);
    expect(bytewiseComparator.findShortSuccessor(ff)).toBe(ff);
  });

  it("findShortSuccessor returns s >= a", () => {
    fc.assert(
      fc.property(bytes, (a) => {
        expect(Buffer.compare(bytewiseComparator.findShortSuccessor(a), a)).toBeGreaterThanOrEqual(
          0,
        );
      }),
    );
  });
});

describe("reverse bytewise comparator", () => {
  it("is the mirror of bytewise, and its helpers keep order", () => {
    fc.assert(
      fc.property(bytes, bytes, (a, b) => {
        expect(Math.sign(reverseBytewiseComparator.compare(a, b))).toBe(
          Math.sign(Buffer.compare(b, a)),
        );
        if (reverseBytewiseComparator.compare(a, b) < 0) {
          const s = reverseBytewiseComparator.findShortestSeparator(a, b);
          expect(reverseBytewiseComparator.compare(a, s)).toBeLessThanOrEqual(0);
          expect(reverseBytewiseComparator.compare(s, b)).toBeLessThan(0);
        }
      }),
    );
  });
});
