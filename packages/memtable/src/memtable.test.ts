import {
  bytewiseComparator,
  compareBytes,
  InternalKeyComparator,
  LookupResult,
  LookupState,
  MAX_SEQ,
  toHex,
  ValueKind,
} from "@shale/base";
import { expectShaleError, Random } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import { FIRST_CHUNK_SIZE } from "./arena.js";
import { INNER_WORDS, LEAF_WORDS } from "./btree-layout.js";
import { slotsFor } from "./hash-index.js";
import { MemTable } from "./index.js";
import { INDEX_MIN_ENTRIES } from "./memtable-options.js";

const text = (s: string) => new TextEncoder().encode(s);

describe("MemTable", () => {
  it("starts empty", () => {
    const mem = new MemTable();
    expect(mem.numEntries).toBe(0);
    expect(mem.numRangeTombstones).toBe(0);
    expect(mem.firstSeq).toBe(0);
    expect(mem.largestSeq).toBe(0);
    expect(mem.isSealed).toBe(false);
    expect(mem.rangeTombstones()).toEqual([]);
    const it = mem.newIterator();
    it.seekToFirst();
    expect(it.valid()).toBe(false);
    it.seekToLast();
    expect(it.valid()).toBe(false);
    const r = new LookupResult();
    mem.get(text("k"), MAX_SEQ, r);
    expect(r.state).toBe(LookupState.NotFound);
  });

  it("counts entries and tracks the smallest and largest seq", () => {
    const mem = new MemTable();
    mem.add(10, ValueKind.Value, text("a"), text("1"));
    mem.add(4, ValueKind.Deletion, text("b"), text(""));
    mem.add(12, ValueKind.RangeDeletion, text("c"), text("d"));
    mem.add(7, ValueKind.Merge, text("a"), text("2"));
    expect(mem.numEntries).toBe(3);
    expect(mem.numRangeTombstones).toBe(1);
    expect(mem.firstSeq).toBe(4);
    expect(mem.largestSeq).toBe(12);
  });

  it("keeps range tombstones in insertion order, as views", () => {
    const mem = new MemTable();
    mem.add(5, ValueKind.RangeDeletion, text("m"), text("p"));
    mem.add(3, ValueKind.RangeDeletion, text("a"), text("c"));
    mem.add(9, ValueKind.RangeDeletion, text("a"), text("z"));
    mem.add(6, ValueKind.RangeDeletion, text("k"), text("k")); // empty range: covers nothing
    expect(
      mem.rangeTombstones().map((t) => `${Buffer.from(t.start)}-${Buffer.from(t.end)}@${t.seq}`),
    ).toEqual(["m-p@5", "a-c@3", "a-z@9", "k-k@6"]);
    // Views into the arena's first chunk (a growing one: an ArrayBuffer until exported).
    expect(mem.rangeTombstones()[0]!.start.buffer.byteLength).toBeGreaterThanOrEqual(
      FIRST_CHUNK_SIZE,
    );
    expect(mem.maxCoveringTombstoneSeq(text("n"), MAX_SEQ)).toBe(9);
    expect(mem.maxCoveringTombstoneSeq(text("n"), 8)).toBe(5);
    expect(mem.maxCoveringTombstoneSeq(text("k"), 8)).toBe(0);
    expect(mem.numEntries).toBe(0);
  });

  it("rejects bad arguments", () => {
    const mem = new MemTable();
    const k = text("k");
    expect(() => mem.add(1, ValueKind.Value, "k" as unknown as Uint8Array, k)).toThrow(TypeError);
    expect(() => mem.add(1, ValueKind.Value, k, null as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => mem.add("1" as unknown as number, ValueKind.Value, k, k)).toThrow(TypeError);
    expectShaleError(() => mem.add(-1, ValueKind.Value, k, k), "InvalidArgument");
    expectShaleError(() => mem.add(1.5, ValueKind.Value, k, k), "InvalidArgument");
    expectShaleError(() => mem.add(MAX_SEQ + 1, ValueKind.Value, k, k), "InvalidArgument");
    expectShaleError(() => mem.add(1, 3 as ValueKind, k, k), "InvalidArgument");
    expectShaleError(
      () => mem.add(1, ValueKind.RangeDeletion, text("b"), text("a")),
      "InvalidArgument",
    );
    expect(mem.numEntries + mem.numRangeTombstones).toBe(0);
    expect(() => new MemTable({ arenaChunkSize: "1" as unknown as number })).toThrow(TypeError);
    for (const size of [0, 127, 1.5, 2 ** 31]) {
      expectShaleError(() => new MemTable({ arenaChunkSize: size }), "InvalidArgument");
    }
    expect(() => new MemTable({ comparator: {} as typeof bytewiseComparator })).toThrow(TypeError);
  });

  it("rejects duplicate (userKey, seq, kind) and leaves the table unchanged", () => {
    const mem = new MemTable();
    mem.add(5, ValueKind.Value, text("k"), text("v1"));
    mem.add(5, ValueKind.Merge, text("k"), text("v2")); // same seq, other kind: allowed
    mem.add(5, ValueKind.RangeDeletion, text("k"), text("z")); // tombstones are separate
    expectShaleError(() => mem.add(5, ValueKind.Value, text("k"), text("v3")), "InvalidArgument");
    expectShaleError(
      () => mem.add(5, ValueKind.RangeDeletion, text("k"), text("y")),
      "InvalidArgument",
    );
    expect(mem.numEntries).toBe(2);
    expect(mem.numRangeTombstones).toBe(1);
    const r = new LookupResult();
    mem.get(text("k"), MAX_SEQ, r);
    expect(Buffer.from(r.value!).toString()).toBe("v1");
    mem.checkInvariants();
  });

  it("refuses adds once sealed, and still answers reads", () => {
    const mem = new MemTable();
    mem.add(1, ValueKind.Value, text("k"), text("v"));
    mem.seal();
    mem.seal();
    expect(mem.isSealed).toBe(true);
    expectShaleError(() => mem.add(2, ValueKind.Value, text("k"), text("w")), "Closed");
    expectShaleError(() => mem.add(2, ValueKind.RangeDeletion, text("a"), text("b")), "Closed");
    const r = new LookupResult();
    mem.get(text("k"), MAX_SEQ, r);
    expect(Buffer.from(r.value!).toString()).toBe("v");
    expect(mem.numEntries).toBe(1);
  });

  it("accounts memory: grows with every add by at least the entry's bytes", () => {
    const mem = new MemTable({ arenaChunkSize: 4096 });
    let last = mem.approximateMemoryUsage();
    const rnd = new Random(3);
    let points = 0;
    /**
     * The hash index's bytes for `n` point entries: none below INDEX_MIN_ENTRIES; then,
     * built or not (no get comes here), a table sized for them.
     */
    const indexBytes = (n: number) => (n < INDEX_MIN_ENTRIES ? 0 : 8 * slotsFor(n));
    for (let i = 0; i < 3000; i++) {
      const key = rnd.bytes(1 + rnd.uniform(20));
      const value = rnd.bytes(rnd.uniform(rnd.oneIn(50) ? 3000 : 100));
      const kind = rnd.oneIn(20) ? ValueKind.RangeDeletion : ValueKind.Value;
      const keysBefore = points;
      if (kind !== ValueKind.RangeDeletion) points++;
      mem.add(i, kind, key, kind === ValueKind.RangeDeletion ? key : value);
      const now = mem.approximateMemoryUsage();
      const payload =
        key.length + 8 + (kind === ValueKind.RangeDeletion ? key.length : value.length);
      expect(now - last).toBeGreaterThanOrEqual(payload);
      // Entry framing and padding (<= 10 + 7 B), a leaf and up to 3 inner nodes from
      // splits (the tree has at most 3 levels here) with the abandoned tail of a node
      // chunk, an entry chunk's tail (< 4096 B), the tombstone address, the index doubling.
      const nodes = 4 * (LEAF_WORDS + 4 * INNER_WORDS);
      const index = indexBytes(points) - indexBytes(keysBefore);
      expect(now - last).toBeLessThan(payload + 17 + nodes + 4096 + 4 + index);
      last = now;
    }
    expect(last).toBeGreaterThan(3000 * 8 + indexBytes(points));
    // A get builds the table that was counted: the figure does not move.
    mem.get(new Uint8Array([1]));
    expect(mem.approximateMemoryUsage()).toBe(last);
  });

  it("stores entries larger than a chunk whole", () => {
    for (const chunk of [256, 4096]) {
      const mem = new MemTable({ arenaChunkSize: chunk });
      const rnd = new Random(chunk);
      const values = new Map<string, Uint8Array>();
      for (let i = 0; i < 40; i++) {
        const key = text(`key${i}`);
        const value = rnd.bytes(i % 3 === 0 ? chunk * (1 + (i % 5)) + 17 : 10);
        values.set(`key${i}`, value);
        mem.add(i + 1, ValueKind.Value, key, value);
      }
      const bigKey = rnd.bytes(chunk * 3);
      mem.add(100, ValueKind.Value, bigKey, text("v"));
      mem.checkInvariants();
      const r = new LookupResult();
      for (const [k, v] of values) {
        r.reset();
        mem.get(text(k), MAX_SEQ, r);
        expect(toHex(r.value!)).toBe(toHex(v));
      }
      r.reset();
      mem.get(bigKey, MAX_SEQ, r);
      expect(Buffer.from(r.value!).toString()).toBe("v");
      const it = mem.newIterator();
      let n = 0;
      for (it.seekToFirst(); it.valid(); it.next()) n++;
      expect(n).toBe(41);
    }
    const mem = new MemTable();
    const huge = new Uint8Array(3 * 1024 * 1024).fill(7);
    mem.add(1, ValueKind.Value, text("huge"), huge);
    mem.add(2, ValueKind.Value, text("small"), text("s"));
    const r = new LookupResult();
    mem.get(text("huge"), MAX_SEQ, r);
    expect(r.value!.length).toBe(huge.length);
    expect(r.value![huge.length - 1]).toBe(7);
    expect(mem.approximateMemoryUsage()).toBeGreaterThan(huge.length);
  });

  it("holds 1e5 entries in order and finds every one", () => {
    const mem = new MemTable();
    const rnd = new Random(99);
    const keys: Uint8Array[] = [];
    for (let i = 0; i < 100_000; i++) {
      const key = rnd.bytes(16);
      keys.push(key);
      mem.add(i + 1, ValueKind.Value, key, key.subarray(0, 8));
    }
    expect(mem.numEntries).toBe(100_000);
    const it = mem.newIterator();
    const icmp = new InternalKeyComparator(bytewiseComparator);
    let prev: Uint8Array | undefined;
    let n = 0;
    for (it.seekToFirst(); it.valid(); it.next()) {
      const k = it.key().slice();
      if (prev !== undefined) expect(icmp.compare(prev, k)).toBeLessThan(0);
      prev = k;
      n++;
    }
    expect(n).toBe(100_000);
    const r = new LookupResult();
    for (let i = 0; i < keys.length; i++) {
      r.reset();
      mem.get(keys[i]!, MAX_SEQ, r);
      if (
        r.state !== LookupState.Found ||
        r.seq !== i + 1 ||
        compareBytes(r.value!, keys[i]!.subarray(0, 8)) !== 0
      ) {
        expect.fail(`key ${i} not found as written`);
      }
    }
    mem.checkInvariants();
    // Arena, not objects: ~100k entries live in a few dozen chunks (of them, 8 entry and
    // 8 node chunks growing from 4 KiB to 512 KiB).
    mem.seal();
    const data = mem.exportShared();
    expect(data.entryChunks.length + data.nodeChunks.length).toBeLessThan(40);
  });
});

describe("MemTable range tombstones, made on first use", () => {
  it("a memtable of points makes no tombstone state; the first tombstone or listing does", () => {
    const state = (m: MemTable) => m as unknown as { rangeDels: unknown };
    const mem = new MemTable();
    mem.add(1, ValueKind.Value, text("a"), text("1"));
    expect(mem.get(text("a")).value).toEqual(text("1"));
    expect(mem.maxCoveringTombstoneSeq(text("a"), 5)).toBe(0);
    expect(mem.numRangeTombstones).toBe(0);
    expect(mem.approximateMemoryUsage()).toBeGreaterThan(0);
    expect(state(mem).rangeDels).toBeUndefined();
    mem.add(2, ValueKind.RangeDeletion, text("a"), text("b"));
    expect(state(mem).rangeDels).toBeDefined();
    expect(mem.numRangeTombstones).toBe(1);
    expect(mem.maxCoveringTombstoneSeq(text("a"), 5)).toBe(2);

    // The list handed out before the first tombstone is the one later tombstones join.
    const listed = new MemTable();
    const list = listed.rangeTombstones();
    expect(list).toHaveLength(0);
    listed.add(3, ValueKind.RangeDeletion, text("c"), text("d"));
    expect(list).toHaveLength(1);
    expect(listed.rangeTombstones()).toBe(list);
    mem.unref();
    listed.unref();
  });
});
