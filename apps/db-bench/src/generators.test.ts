import { describe, expect, it } from "vitest";
import { KeyGenerator, keyGenerator } from "./generators.js";

describe("KeyGenerator", () => {
  it("lays keys out as db_bench does without a prefix", () => {
    const k = new KeyGenerator(16).key(0x0102);
    expect(k.toString("hex")).toBe(`0000000000000102${"30".repeat(8)}`);
  });

  it("puts db_bench's prefix (n mod num/keys_per_prefix) first with --keys_per_prefix", () => {
    // num 100, 10 keys per prefix: 10 prefixes; key 23 has prefix 3.
    const g = keyGenerator({ keySize: 16, prefixSize: 8, keysPerPrefix: 10, num: 100 });
    expect(g.key(23).toString("hex")).toBe("00000000000000030000000000000017");
    // A 12-byte prefix: 8 bytes of it, then '0's, then n in the 4 bytes left.
    const h = keyGenerator({ keySize: 16, prefixSize: 12, keysPerPrefix: 10, num: 100 });
    expect(h.key(23).toString("hex")).toBe("00000000000000033030303000000017");
  });
});
