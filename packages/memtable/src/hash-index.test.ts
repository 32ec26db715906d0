import { Random } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import type { BTree } from "./btree.js";
import { BATCH, HashIndex, hashKey, INITIAL_SLOTS, MAX_LOAD, slotsFor } from "./hash-index.js";

const text = (s: string) => new TextEncoder().encode(s);

describe("hashKey", () => {
  it("is MurmurHash3_x86_32 with seed 0", () => {
    const vectors: [string, number][] = [
      ["", 0],
      ["a", 0x3c2569b2],
      ["abc", 0xb3dd93fa],
      ["Hello, world!", 0xc0363e43],
      ["The quick brown fox jumps over the lazy dog", 0x2e4ff723],
    ];
    for (const [s, h] of vectors) expect(hashKey(text(s), 0, s.length) >>> 0).toBe(h);
  });

  it("reads at an offset", () => {
    const buf = text("xxHello, world!yy");
    expect(hashKey(buf, 2, 13) >>> 0).toBe(0xc0363e43);
  });
});

/**
 * A stand-in for the tree: entry addresses are indexes into `keys`; an entry's "internal
 * key" is its user key and a seq (a larger seq sorts first), as the index sees them.
 */
class FakeTree {
  readonly keys: string[] = [];
  readonly seqs: number[] = [];
  private target = -1;
  setTargetEntry(address: number): void {
    this.target = address;
  }
  setTargetKey(key: string): void {
    this.keys.push(key);
    this.seqs.push(-1);
    this.target = this.keys.length - 1;
  }
  userKeyEquals(address: number): boolean {
    return this.keys[address] === this.keys[this.target];
  }
  compareEntry(address: number): number {
    return this.keys[address] === this.keys[this.target]
      ? this.seqs[this.target]! - this.seqs[address]!
      : 1;
  }
  add(key: string, seq: number): number {
    this.keys.push(key);
    this.seqs.push(seq);
    return this.keys.length - 1;
  }
}

/** The entry the index holds for `key` (hash `hash`), or -1. */
function lookup(index: HashIndex, tree: FakeTree, key: string, hash: number): number {
  index.flush();
  tree.setTargetKey(key);
  const slot = index.find(hash);
  return slot < 0 ? -1 : index.addressAt(slot);
}

describe("HashIndex", () => {
  it("keeps the newest entry per key through hash collisions, batches and growth", () => {
    const tree = new FakeTree();
    const index = new HashIndex(tree as unknown as BTree);
    const rnd = new Random(8);
    const newest = new Map<string, number>();
    const hashOf = (key: string) => (Number(key.slice(1)) % 37) * 1_000_003; // many collisions
    for (let i = 0; i < 5000; i++) {
      const key = `k${rnd.uniform(2000)}`;
      const seq = rnd.uniform(100_000);
      const address = tree.add(key, seq);
      const best = newest.get(key);
      if (best === undefined || tree.seqs[best]! < seq) newest.set(key, address);
      index.insert(hashOf(key), address);
      if (i % 97 === 0) {
        expect(lookup(index, tree, key, hashOf(key))).toBe(newest.get(key));
      }
    }
    for (const [key, address] of newest)
      expect(lookup(index, tree, key, hashOf(key))).toBe(address);
    expect(lookup(index, tree, "k-absent", hashOf("k5"))).toBe(-1);
    let slots = INITIAL_SLOTS;
    while (newest.size > Math.floor(slots * MAX_LOAD)) slots *= 2;
    expect(index.bytes).toBe(8 * slots);
  });

  it("answers every key while a doubling moves the old table, and exports it whole", () => {
    const tree = new FakeTree();
    const index = new HashIndex(tree as unknown as BTree);
    const limit = Math.floor(INITIAL_SLOTS * MAX_LOAD);
    const newest = new Map<string, number>();
    // One batch past the limit: the table doubles, and this flush moves only MIGRATE_SLOTS.
    const n = limit + BATCH;
    for (let i = 0; i < n; i++) {
      const address = tree.add(`k${i}`, 10);
      newest.set(`k${i}`, address);
      index.insert(i * 7919, address);
    }
    index.flush();
    for (let i = 0; i < n; i++) {
      tree.setTargetKey(`k${i}`);
      expect(index.addressAt(index.find(i * 7919))).toBe(newest.get(`k${i}`));
    }
    // Newer entries of keys at the old table's end (not moved yet), and older ones (ignored).
    for (let i = 0; i < n; i += 5) {
      const newer = tree.add(`k${i}`, 20);
      newest.set(`k${i}`, newer);
      index.insert(i * 7919, newer);
      index.insert(i * 7919, tree.add(`k${i}`, 5));
    }
    for (let i = 0; i < n; i++)
      expect(lookup(index, tree, `k${i}`, i * 7919)).toBe(newest.get(`k${i}`));
    expect(index.size).toBe(n);
    // Exported only once the doubling is over (flushes move MIGRATE_SLOTS at a time).
    let data = index.exportShared();
    for (let i = 0; data === undefined && i < 100; i++) {
      index.insert(0, newest.get("k0")!);
      data = index.exportShared();
    }
    const reopened = new HashIndex(tree as unknown as BTree, structuredClone(data!));
    for (let i = 0; i < n; i++)
      expect(lookup(reopened, tree, `k${i}`, i * 7919)).toBe(newest.get(`k${i}`));
    expect(reopened.size).toBe(n);
  });

  it("counts queued keys in its size and applies them before exporting", () => {
    const tree = new FakeTree();
    const index = new HashIndex(tree as unknown as BTree);
    const limit = Math.floor(INITIAL_SLOTS * MAX_LOAD);
    for (let i = 0; i <= limit; i++) index.insert(i * 7919, tree.add(`k${i}`, 1));
    expect(index.pending).toBe((limit + 1) % BATCH !== 0);
    expect(index.bytes).toBe(16 * INITIAL_SLOTS);
    const exported = index.exportShared();
    expect(index.pending).toBe(false);
    // The limit was just passed: the doubling is under way, so nothing is exported yet.
    expect(exported).toBeUndefined();
    let later = index.exportShared();
    for (let i = 0; later === undefined && i < 100; i++) {
      index.insert(0, 0);
      later = index.exportShared();
    }
    const data = structuredClone(later!);
    expect(data.count).toBe(limit + 1);
    const reopened = new HashIndex(tree as unknown as BTree, data);
    expect(lookup(reopened, tree, "k5", 5 * 7919)).toBe(5);
    expect(lookup(reopened, tree, `k${limit}`, limit * 7919)).toBe(limit);
    expect(lookup(reopened, tree, "k5", 6 * 7919)).toBe(-1);
  });
});

describe("HashIndex presized", () => {
  it("holds the keys it was sized for without doubling; then doubles as usual", () => {
    for (const keys of [0, 1, 89, 90, 1000, 5000]) {
      const tree = new FakeTree();
      const index = new HashIndex(tree as unknown as BTree, undefined, keys);
      expect(index.bytes).toBe(8 * slotsFor(keys));
      const before = index.bytes;
      for (let i = 0; i < keys; i++) {
        const key = `k${i}`;
        index.insert(hashKey(text(key), 0, key.length), tree.add(key, i));
      }
      index.flush();
      expect([index.size, index.bytes]).toEqual([keys, before]);
      for (let i = 0; i < keys; i += 97) {
        const key = `k${i}`;
        expect(lookup(index, tree, key, hashKey(text(key), 0, key.length))).toBe(i);
      }
      // One key more than the table holds at MAX_LOAD doubles it.
      const room = Math.floor(slotsFor(keys) * MAX_LOAD) - keys;
      for (let i = 0; i <= room; i++) {
        const key = `extra${i}`;
        index.insert(hashKey(text(key), 0, key.length), tree.add(key, keys + i));
      }
      index.flush();
      expect(index.bytes).toBe(2 * before);
    }
    expect(slotsFor(0)).toBe(INITIAL_SLOTS);
  });
});
