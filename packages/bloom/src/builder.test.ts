import { ErrorCode, isShaleError } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BloomFilterBuilder, CHUNK_HASHES, type HashStorage } from "./builder.js";
import { hashKey64 } from "./hash.js";
import { counterKey, hashPair, randomKeys, referenceFilter } from "./reference.test-support.js";

const storages: HashStorage[] = ["chunked", "doubling"];
const u32 = fc.nat({ max: 0xffffffff });

function buildFromHashes(
  hashes: readonly (readonly [number, number])[],
  storage: HashStorage,
  bitsPerKey = 10,
) {
  const b = new BloomFilterBuilder({ bitsPerKey, hashStorage: storage });
  for (const [lo, hi] of hashes) b.addHash(lo, hi);
  return b.finish();
}

describe("BloomFilterBuilder", () => {
  it("defaults to 10 bits/key, 6 probes, chunked storage", () => {
    const b = new BloomFilterBuilder();
    expect([b.millibitsPerKey, b.numProbes, b.hashStorage]).toEqual([10000, 6, "chunked"]);
  });

  it("writes the FastLocalBloom metadata after whole 64-byte lines", () => {
    const b = new BloomFilterBuilder({ bitsPerKey: 10 });
    for (let i = 0; i < 3; i++) b.addKey(counterKey(i, 1));
    const f = b.finish();
    expect(f.length).toBe(69);
    expect(Array.from(f.subarray(64))).toEqual([0xff, 0x00, 0x06, 0x00, 0x00]);
    const ones = f.subarray(0, 64).reduce((s, byte) => s + popcount(byte), 0);
    expect(ones).toBeGreaterThan(0);
    expect(ones).toBeLessThanOrEqual(18);

    const b20 = new BloomFilterBuilder({ bitsPerKey: 20 });
    b20.addKey(new Uint8Array([1]));
    expect(Array.from(b20.finish().subarray(64))).toEqual([0xff, 0x00, 11, 0x00, 0x00]);
  });

  it("writes the worked example of docs/formats/filter.md (keys a, b at 10 bits/key)", () => {
    const b = new BloomFilterBuilder({ bitsPerKey: 10 });
    b.addKey(new TextEncoder().encode("a"));
    b.addKey(new TextEncoder().encode("b"));
    expect(Buffer.from(b.finish()).toString("hex")).toBe(
      "0a000000000004000000000000400000" +
        "00000000000000020000040000000000" +
        "20000200020000200000000000000100" +
        "00000000020000000000000000000000" +
        "ff00060000",
    );
  });

  it("writes exactly the reference filter (RocksDB's chained probes, BigInt FastRange32)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(u32, u32), { maxLength: 400 }),
        fc.constantFrom(1, 2.5, 6, 10, 13.7, 20, 30, 60),
        fc.constantFrom(...storages),
        (hashes, bitsPerKey, storage) => {
          expect(buildFromHashes(hashes, storage, bitsPerKey)).toEqual(
            referenceFilter(hashes, bitsPerKey),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it("chunked and doubling storage give byte-identical filters, across chunk boundaries", () => {
    for (const n of [
      0,
      1,
      CHUNK_HASHES - 1,
      CHUNK_HASHES,
      CHUNK_HASHES + 1,
      3 * CHUNK_HASHES + 17,
    ]) {
      const chunked = new BloomFilterBuilder({ hashStorage: "chunked" });
      const doubling = new BloomFilterBuilder({ hashStorage: "doubling" });
      for (let i = 0; i < n; i++) {
        const key = counterKey(i, 77);
        chunked.addKey(key);
        doubling.addKey(key);
      }
      expect(chunked.numEntries).toBe(n);
      expect(chunked.finish()).toEqual(doubling.finish());
    }
  });

  it("addKey(k) is addHash(hashKey64(k))", () => {
    const keys = randomKeys(5, 500);
    const byKey = new BloomFilterBuilder();
    const byHash = new BloomFilterBuilder();
    const out = new Uint32Array(2);
    for (const key of keys) {
      byKey.addKey(key);
      hashKey64(key, out);
      byHash.addHash(out[0]!, out[1]!);
    }
    expect(byKey.finish()).toEqual(byHash.finish());
  });

  it("skips a hash equal to the previous one, but not an earlier one", () => {
    for (const storage of storages) {
      const b = new BloomFilterBuilder({ hashStorage: storage });
      const a = counterKey(1, 0);
      const c = counterKey(2, 0);
      b.addKey(a);
      b.addKey(a);
      b.addKey(a);
      expect(b.numEntries).toBe(1);
      b.addKey(c);
      b.addKey(a);
      expect(b.numEntries).toBe(3);
      // Signed and unsigned spellings of the same hash are the same hash.
      b.addHash(0xffffffff, 0x80000000);
      b.addHash(-1, -0x80000000);
      expect(b.numEntries).toBe(4);
    }
  });

  it("starts fresh after finish(): a reused chunk does not leak old hashes", () => {
    for (const storage of storages) {
      const b = new BloomFilterBuilder({ hashStorage: storage });
      for (let i = 0; i < 3 * CHUNK_HASHES; i++) b.addKey(counterKey(i, 1));
      b.finish();
      const small = [counterKey(5, 9), counterKey(6, 9)];
      for (const k of small) b.addKey(k);
      expect(b.finish()).toEqual(referenceFilter(small.map(hashPair), 10));
      // The duplicate check does not carry over either.
      b.addKey(small[1]!);
      expect(b.numEntries).toBe(1);
    }
  });

  it("reset() drops pending hashes", () => {
    const b = new BloomFilterBuilder();
    for (let i = 0; i < 100; i++) b.addKey(counterKey(i, 3));
    b.reset();
    expect(b.numEntries).toBe(0);
    b.addKey(counterKey(1, 3));
    expect(b.finish()).toEqual(referenceFilter([hashPair(counterKey(1, 3))], 10));
  });

  it("finish() with no keys gives the 5 metadata bytes (the empty filter)", () => {
    for (const storage of storages) {
      const b = new BloomFilterBuilder({ hashStorage: storage });
      expect(b.estimatedSize()).toBe(5);
      expect(Array.from(b.finish())).toEqual([0xff, 0x00, 0x06, 0x00, 0x00]);
    }
  });

  it("estimatedSize() is the size finish() returns", () => {
    fc.assert(
      fc.property(fc.nat(3000), fc.constantFrom(1, 4.2, 10, 23), (n, bitsPerKey) => {
        const b = new BloomFilterBuilder({ bitsPerKey });
        for (let i = 0; i < n; i++) b.addHash(i, i * 7);
        const estimate = b.estimatedSize();
        expect(b.finish().length).toBe(estimate);
      }),
      { numRuns: 50 },
    );
  });

  it("chunked storage holds whole chunks and reuses them; doubling keeps a power-of-two array", () => {
    const chunked = new BloomFilterBuilder({ hashStorage: "chunked" });
    const doubling = new BloomFilterBuilder({ hashStorage: "doubling" });
    const n = 5 * CHUNK_HASHES + 1;
    for (let i = 0; i < n; i++) {
      chunked.addHash(i, 1);
      doubling.addHash(i, 1);
    }
    expect(chunked.allocatedBytes).toBe(6 * CHUNK_HASHES * 8);
    expect(doubling.allocatedBytes).toBe(8 * CHUNK_HASHES * 8); // next power of two
    expect(doubling.peakAllocatedBytes).toBe(12 * CHUNK_HASHES * 8); // 4 + 8 while copying
    expect(chunked.peakAllocatedBytes).toBe(6 * CHUNK_HASHES * 8);
    chunked.finish();
    doubling.finish();
    expect(chunked.allocatedBytes).toBe(6 * CHUNK_HASHES * 8); // all 6 kept for reuse
    // Smaller filters next: drawn from the free list, nothing new allocated or dropped.
    for (const n of [2 * CHUNK_HASHES + 1, 10, 4 * CHUNK_HASHES]) {
      for (let i = 0; i < n; i++) chunked.addHash(i, 2);
      expect(chunked.allocatedBytes).toBe(6 * CHUNK_HASHES * 8);
      chunked.finish();
      expect(chunked.allocatedBytes).toBe(6 * CHUNK_HASHES * 8);
    }
    for (let i = 0; i < 3 * CHUNK_HASHES; i++) chunked.addHash(i, 3);
    chunked.reset();
    expect(chunked.allocatedBytes).toBe(6 * CHUNK_HASHES * 8);
    expect(doubling.allocatedBytes).toBe(8 * CHUNK_HASHES * 8); // like vector::clear()
  });

  it("rejects bad options", () => {
    const invalid = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return isShaleError(e, ErrorCode.InvalidArgument);
      }
      return false;
    };
    expect(invalid(() => new BloomFilterBuilder({ bitsPerKey: 0.5 }))).toBe(true);
    expect(invalid(() => new BloomFilterBuilder({ bitsPerKey: 101 }))).toBe(true);
    expect(invalid(() => new BloomFilterBuilder({ bitsPerKey: Number.NaN }))).toBe(true);
    expect(invalid(() => new BloomFilterBuilder({ hashStorage: "deque" as HashStorage }))).toBe(
      true,
    );
    expect(() => new BloomFilterBuilder({ bitsPerKey: "10" as unknown as number })).toThrow(
      TypeError,
    );
    expect(() => new BloomFilterBuilder().addKey("abc" as unknown as Uint8Array)).toThrow(
      TypeError,
    );
  });
});

function popcount(byte: number): number {
  let n = 0;
  for (let b = byte; b !== 0; b &= b - 1) n++;
  return n;
}
