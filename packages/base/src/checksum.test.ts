import { describe, expect, it } from "vitest";
import { checksum32, maskChecksum, maskedChecksum32, unmaskChecksum } from "./checksum.js";

describe("checksums", () => {
  it("computes XXH32 with seed 0 (reference vectors)", () => {
    expect(checksum32(new Uint8Array(0))).toBe(0x02cc5d05);
    expect(checksum32(new TextEncoder().encode("a"))).toBe(0x550d7456);
    expect(checksum32(new TextEncoder().encode("abc"))).toBe(0x32d153ff);
  });

  it("hashes a sub-range like the equivalent copy", () => {
    const data = new Uint8Array(1000).map((_, i) => (i * 31) & 0xff);
    expect(checksum32(data, 100, 900)).toBe(checksum32(data.slice(100, 900)));
  });

  it("mask and unmask are inverse, and masking changes the value", () => {
    for (const c of [0, 1, 0xffffffff, 0x12345678, checksum32(new Uint8Array([1, 2, 3]))]) {
      expect(unmaskChecksum(maskChecksum(c))).toBe(c);
      expect(maskChecksum(c)).not.toBe(c);
      expect(maskChecksum(c)).toBeGreaterThanOrEqual(0);
    }
    const d = new Uint8Array([9, 9, 9]);
    expect(maskedChecksum32(d)).toBe(maskChecksum(checksum32(d)));
  });

  it("detects a flipped bit", () => {
    const d = new Uint8Array(4096).map((_, i) => i & 0xff);
    const before = checksum32(d);
    d[2048]! ^= 1;
    expect(checksum32(d)).not.toBe(before);
  });
});
