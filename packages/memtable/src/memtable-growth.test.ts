import {
  bytewiseComparator,
  InternalKeyComparator,
  LookupResult,
  LookupState,
  MAX_SEQ,
  makeInternalKey,
  ValueKind,
} from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Arena, FIRST_CHUNK_SIZE } from "./arena.js";
import { ChunkPool, MemTable } from "./index.js";
import { INDEX_MIN_ENTRIES } from "./memtable-options.js";

const icmp = new InternalKeyComparator(bytewiseComparator);

/** Byte `i` of allocation `a`'s pattern. */
const pattern = (a: number, i: number) => (a * 31 + i * 7 + 1) & 0xff;

describe("Arena growth", () => {
  it("grows entry chunks from the first size, doubling to the full size, SharedArrayBuffers at full size", () => {
    const arena = new Arena(1 << 16, FIRST_CHUNK_SIZE);
    for (let i = 0; i < 200; i++) arena.allocateEntry(1000);
    const sizes = arena.entryChunks.map((c) => c.length);
    expect(sizes.slice(0, 6)).toEqual([4096, 8192, 16384, 32768, 65536, 65536]);
    expect(arena.entryBuffers.slice(0, 4).every((b) => !(b instanceof SharedArrayBuffer))).toBe(
      true,
    );
    expect(arena.entryBuffers[4]).toBeInstanceOf(SharedArrayBuffer);
  });

  it("makes the first entry and node chunks in one buffer, and exports them apart", () => {
    const arena = new Arena(1 << 20, FIRST_CHUNK_SIZE);
    const node = arena.allocateNode(16, 0);
    const entry = arena.allocateEntry(3);
    expect(arena.entryBuffers[0]).toBe(arena.nodeChunks[0]!.buffer);
    arena.nodeChunks[0]![node + 5] = 77;
    arena.entryChunks[0]!.set([1, 2, 3], entry);
    const data = structuredClone(arena.exportShared());
    expect(data.entryChunks[0]!.byteLength).toBe(FIRST_CHUNK_SIZE);
    expect(data.nodeChunks[0]!.byteLength).toBe(FIRST_CHUNK_SIZE);
    const reopened = Arena.fromShared(data);
    expect([...reopened.entryChunks[0]!.subarray(entry, entry + 3)]).toEqual([1, 2, 3]);
    expect(reopened.nodeChunks[0]![node + 5]).toBe(77);
  });

  it("takes full-size chunks from a source given after the first node chunk", () => {
    const arena = new Arena(1 << 16, FIRST_CHUNK_SIZE);
    arena.allocateNode(16, 0); // made with room for the first entry chunk
    const pool = new ChunkPool({ chunkSize: 1 << 16 });
    arena.useSource(pool);
    const entry = arena.allocateEntry(100);
    expect(arena.entryChunks[entry >>> arena.shift]!.length).toBe(1 << 16);
    expect(arena.entryBuffers[0]).toBeInstanceOf(SharedArrayBuffer);
    const mem = new MemTable();
    mem.add(1, ValueKind.Value, new Uint8Array([1]), new Uint8Array([2]));
    mem.useChunkPool(new ChunkPool());
    for (let i = 2; i < 2000; i++)
      mem.add(i, ValueKind.Value, new Uint8Array([i & 0xff, i >> 8]), new Uint8Array(100));
    mem.checkInvariants();
  });

  it("property: growth never moves or corrupts earlier allocations; exports keep every byte", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1 << 12, 1 << 14, 1 << 16),
        fc.array(
          fc.record({
            size: fc.integer({ min: 1, max: 9000 }),
            residue: fc.integer({ min: -1, max: 7 }),
            node: fc.boolean(),
            lane: fc.integer({ min: 0, max: 1 }),
          }),
          { maxLength: 120 },
        ),
        (chunkSize, ops) => {
          const arena = new Arena(chunkSize, 1024);
          const done: { address: number; size: number; node: boolean }[] = [];
          for (const op of ops) {
            if (op.node) {
              const words = 1 + (op.size % 190);
              const address = arena.allocateNode(words, op.lane);
              const chunk = arena.nodeChunks[address >>> arena.nodeShift]!;
              const at = address & arena.nodeMask;
              expect(at + words).toBeLessThanOrEqual(chunk.length);
              for (let i = 0; i < words; i++) {
                expect(chunk[at + i]).toBe(0); // nodes come zeroed
                chunk[at + i] = pattern(done.length, i);
              }
              done.push({ address, size: words, node: true });
            } else {
              const address = arena.allocateEntry(op.size, op.residue);
              const chunk = arena.entryChunks[address >>> arena.shift]!;
              const at = address & arena.mask;
              if (op.residue >= 0) expect(at & 7).toBe(op.residue);
              expect(at + op.size).toBeLessThanOrEqual(chunk.length);
              for (let i = 0; i < op.size; i++) chunk[at + i] = pattern(done.length, i);
              done.push({ address, size: op.size, node: false });
            }
          }
          const check = (a: Arena) => {
            done.forEach((d, k) => {
              const chunk = d.node
                ? a.nodeChunks[d.address >>> a.nodeShift]!
                : a.entryChunks[d.address >>> a.shift]!;
              const at = d.address & (d.node ? a.nodeMask : a.mask);
              for (let i = 0; i < d.size; i++) {
                if (chunk[at + i] !== pattern(k, i)) expect.fail(`allocation ${k} byte ${i}`);
              }
            });
          };
          check(arena);
          const data = arena.exportShared();
          check(arena); // the arena reads its shared copies now
          check(Arena.fromShared(structuredClone(data)));
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("MemTable with growing chunks", () => {
  it("property: iteration (views and in place) is the sorted model; seek finds the first key >= target", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            key: fc.uint8Array({ minLength: 0, maxLength: 12 }),
            value: fc.uint8Array({ minLength: 0, maxLength: 3000 }),
          }),
          { maxLength: 300 },
        ),
        fc.array(fc.uint8Array({ minLength: 0, maxLength: 12 }), { maxLength: 20 }),
        (adds, targets) => {
          const mem = new MemTable({ arenaChunkSize: 1 << 15 });
          const model: { ikey: Uint8Array; value: Uint8Array }[] = [];
          adds.forEach((a, i) => {
            mem.add(i + 1, ValueKind.Value, a.key, a.value);
            model.push({ ikey: makeInternalKey(a.key, i + 1, ValueKind.Value), value: a.value });
          });
          model.sort((x, y) => icmp.compare(x.ikey, y.ikey));
          const it = mem.newIterator();
          let n = 0;
          for (it.seekToFirst(); it.valid(); it.next(), n++) {
            const m = model[n]!;
            expect(it.key()).toEqual(m.ikey);
            expect(it.value()).toEqual(m.value);
            const bytes = it.entryBytes();
            expect(bytes.subarray(it.keyOffset(), it.keyOffset() + it.keyLength())).toEqual(m.ikey);
            expect(bytes.subarray(it.valueOffset(), it.valueOffset() + it.valueLength())).toEqual(
              m.value,
            );
          }
          expect(n).toBe(model.length);
          for (const t of targets) {
            const target = makeInternalKey(t, MAX_SEQ, ValueKind.Value);
            it.seek(target);
            const at = model.findIndex((m) => icmp.compare(m.ikey, target) >= 0);
            if (at < 0) expect(it.valid()).toBe(false);
            else expect(it.key()).toEqual(model[at]!.ikey);
          }
          it.close();
          mem.checkInvariants();
        },
      ),
      { numRuns: 40 },
    );
  });

  it("reuses its key array while keys keep their length", () => {
    const mem = new MemTable();
    for (let i = 0; i < 10; i++)
      mem.add(i + 1, ValueKind.Value, new Uint8Array([i, i]), new Uint8Array(1));
    mem.add(11, ValueKind.Value, new Uint8Array([20, 0, 0]), new Uint8Array(1));
    const it = mem.newIterator();
    it.seekToFirst();
    const first = it.key();
    it.next();
    expect(it.key()).toBe(first);
    expect([...first.subarray(0, 2)]).toEqual([1, 1]);
    for (let i = 0; i < 9; i++) it.next();
    expect(it.key()).not.toBe(first);
    expect(it.key()).toHaveLength(3 + 8);
    it.close();
  });

  it("builds its hash index at INDEX_MIN_ENTRIES with the newest version of each key", () => {
    for (const versions of [1, 3]) {
      const mem = new MemTable();
      const r = new LookupResult();
      const key = (k: number) => new Uint8Array([k >> 8, k & 0xff]);
      let seq = 0;
      for (let k = 0; seq < INDEX_MIN_ENTRIES + 40; k++) {
        for (let v = 0; v < versions; v++) {
          seq++;
          if (v === versions - 1 && k % 5 === 0) mem.add(seq, ValueKind.Deletion, key(k));
          else mem.add(seq, ValueKind.Value, key(k), new Uint8Array([seq & 0xff]));
        }
        mem.checkInvariants();
        for (let j = 0; j <= k; j++) {
          r.reset();
          mem.get(key(j), MAX_SEQ, r);
          const newest = (j + 1) * versions;
          if (j % 5 === 0) expect(r.state).toBe(LookupState.Deleted);
          else expect([r.state, r.value![0]]).toEqual([LookupState.Found, newest & 0xff]);
        }
      }
    }
  });
});
