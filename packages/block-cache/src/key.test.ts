import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashKey, isKeyPart } from "./key.js";
import { LRUCache } from "./lru-cache.js";
import { defaultShardBits } from "./options.js";

describe("hashKey", () => {
  it("is a deterministic int32 that depends on every half of both numbers", () => {
    const part = fc.oneof(fc.nat(), fc.maxSafeNat());
    fc.assert(
      fc.property(part, part, (id, offset) => {
        const h = hashKey(id, offset);
        expect(h | 0).toBe(h);
        expect(hashKey(id, offset)).toBe(h);
      }),
    );
    const max = Number.MAX_SAFE_INTEGER;
    const hashes = new Set([
      hashKey(0, 0),
      hashKey(1, 0),
      hashKey(0, 1),
      hashKey(2 ** 32, 0),
      hashKey(0, 2 ** 32),
      hashKey(max, 0),
      hashKey(0, max),
      hashKey(max, max),
      hashKey(max - 2 ** 32, max),
    ]);
    expect(hashes.size).toBe(9);
  });

  it("spreads table ids x block offsets evenly over 64 shards", () => {
    // 16 tables x 4096 blocks of 4 KiB: the keys a block cache of 256 MiB sees.
    const cache = new LRUCache<number>({ capacity: 1 << 30 });
    expect(cache.numShards).toBe(64);
    for (let id = 1; id <= 16; id++) {
      for (let block = 0; block < 4096; block++) cache.insertUnpinned(id, block * 4096, 0, 1);
    }
    const counts = cache["shards"].map((s) => s.count);
    const mean = (16 * 4096) / 64;
    expect(Math.min(...counts)).toBeGreaterThan(mean * 0.85);
    expect(Math.max(...counts)).toBeLessThan(mean * 1.15);
    // And the chains of the table the shards share stay short (load <= 1).
    let probes = 0;
    for (const shard of cache["shards"]) {
      for (const e of shard.tableSlots()) probes += shard.table.chainPosition(e);
    }
    expect(probes / (16 * 4096)).toBeLessThan(2);
  });

  it("spreads large ids and offsets too", () => {
    const cache = new LRUCache<number>({ capacity: 1 << 30, numShardBits: 4 });
    for (let i = 0; i < 16_384; i++) {
      cache.insertUnpinned(2 ** 40 + (i >> 8), 2 ** 45 + (i & 255) * 2 ** 33, 0, 1);
    }
    const counts = cache["shards"].map((s) => s.count);
    expect(Math.min(...counts)).toBeGreaterThan(1024 * 0.85);
    expect(Math.max(...counts)).toBeLessThan(1024 * 1.15);
  });
});

describe("isKeyPart", () => {
  it("accepts exactly the non-negative safe integers", () => {
    expect([0, 1, 2 ** 53 - 1].map(isKeyPart)).toEqual([true, true, true]);
    expect([-1, 0.5, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY].map(isKeyPart)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe("defaultShardBits", () => {
  it("follows RocksDB: at least 512 KiB per shard, at most 6 bits", () => {
    const KiB = 1024;
    const MiB = 1024 * KiB;
    expect(defaultShardBits(0)).toBe(0);
    expect(defaultShardBits(1023 * KiB)).toBe(0);
    expect(defaultShardBits(MiB)).toBe(1);
    expect(defaultShardBits(2 * MiB - 1)).toBe(1);
    expect(defaultShardBits(2 * MiB)).toBe(2);
    expect(defaultShardBits(16 * MiB)).toBe(5);
    expect(defaultShardBits(32 * MiB)).toBe(6);
    expect(defaultShardBits(8 * 1024 * MiB)).toBe(6);
    expect(new LRUCache({ capacity: 8 * MiB }).numShards).toBe(16);
  });
});
