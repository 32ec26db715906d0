/**
 * One internal-key order: every package's fast path (the memtable's slices and in-place
 * comparisons, the table's block search and index search, the merging iterator's bytewise
 * heap) orders and seeks exactly as `InternalKeyComparator` over bytewise user keys — the
 * reference in @shale/base — and reads back the keys and values it was given (their
 * lengths decoded by inline one-byte fast paths or by base's decoders). Random keys with long shared prefixes (the slice and skip
 * logic), seqs around 2^24, 2^32 and 2^53 (the trailer's two words) and every kind.
 */
import {
  ArrayIterator,
  bytewiseComparator,
  type InternalIterator,
  InternalKeyComparator,
  KIND_FOR_SEEK,
  kindOf,
  MAX_SEQ,
  MemoryFileSystem,
  makeInternalKey,
  seqOf,
  userKeyOf,
  ValueKind,
} from "@shale/base";
import { MemTable } from "@shale/memtable";
import { MergingIterator } from "@shale/merging-iterator";
import { TableBuilder, TableReader } from "@shale/sstable";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const icmp = new InternalKeyComparator(bytewiseComparator);
const compare = (a: Uint8Array, b: Uint8Array) => icmp.compare(a, b);
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

const seqArb = fc.oneof(
  fc.integer({ min: 1, max: 50 }),
  fc.constantFrom(1, 2 ** 24 - 1, 2 ** 24, 2 ** 32 - 1, 2 ** 32, MAX_SEQ - 1),
  fc.integer({ min: 1, max: MAX_SEQ - 1 }),
);
const entryArb = fc.record({
  // A long common prefix and a small alphabet: shared prefixes, equal slices, skips. Some
  // keys are longer than 127 bytes, so their lengths (and shared and unshared lengths in
  // blocks) take two varint bytes: the one-byte fast paths inlined in the memtable, the
  // block iterator, the run scan and the index block meet base's decoders on the same data.
  user: fc
    .tuple(fc.constantFrom(5, 5, 5, 140), fc.uint8Array({ maxLength: 10, max: 2 }))
    .map(([n, tail]) => Uint8Array.from([...new Array<number>(n).fill(7), ...tail])),
  seq: seqArb,
  kind: fc.constantFrom(
    ValueKind.Value,
    ValueKind.Deletion,
    ValueKind.Merge,
    ValueKind.SingleDeletion,
  ),
});

function scan(it: InternalIterator): string[] {
  const out: string[] = [];
  for (it.seekToFirst(); it.valid(); it.next()) {
    out.push(hex(it.key()));
    // Every entry's value is its own internal key.
    const v = hex(it.value());
    if (v !== hex(it.key())) out.push(`bad value ${v}`);
  }
  return out;
}

/** The first key >= target by the reference order, or undefined. */
function lowerBound(sorted: Uint8Array[], target: Uint8Array): string | undefined {
  const k = sorted.find((x) => compare(x, target) >= 0);
  return k === undefined ? undefined : hex(k);
}

describe("one internal-key order across the packages", () => {
  it("memtable, table and merging iterators order and seek as InternalKeyComparator", () => {
    fc.assert(
      fc.property(
        fc.array(entryArb, { minLength: 1, maxLength: 120 }),
        fc.array(entryArb, { maxLength: 8 }),
        (entries, probes) => {
          // Unique internal keys (a memtable refuses a duplicate seq for a key).
          const byKey = new Map<string, Uint8Array>();
          for (const e of entries) {
            const k = makeInternalKey(e.user, e.seq, e.kind);
            byKey.set(hex(k), k);
          }
          const keys = [...byKey.values()];
          const sorted = [...keys].sort(compare);
          const expected = sorted.map(hex);

          const mem = new MemTable({ arenaChunkSize: 4096 });
          for (const k of keys) {
            const t = k.length - 8;
            mem.add(seqOf(k), kindOf(k) as ValueKind, k.subarray(0, t), k);
          }
          const fs = new MemoryFileSystem();
          const file = fs.openWritable("t.sst");
          const builder = new TableBuilder(file, { blockSize: 64, blockRestartInterval: 2 });
          for (const k of sorted) builder.add(k, k);
          builder.finish();
          file.close();
          const reader = TableReader.open(fs.openRandomAccess("t.sst"), {
            fileName: "t.sst",
            fileSize: fs.fileSize("t.sst"),
          });
          const half = Math.floor(sorted.length / 2);
          const children = () => [
            new ArrayIterator(
              sorted.filter((_, i) => i % 2 === 0),
              sorted.filter((_, i) => i % 2 === 0),
              compare,
            ),
            new ArrayIterator(
              sorted.filter((_, i) => i % 2 === 1),
              sorted.filter((_, i) => i % 2 === 1),
              compare,
            ),
          ];
          const iterators: InternalIterator[] = [
            mem.newIterator(),
            reader.newIterator(),
            new MergingIterator(children(), compare, { bytewiseInternalKeys: true }),
          ];
          try {
            for (const it of iterators) {
              expect(scan(it)).toEqual(expected);
              // Seeks: at every probe's seek key and at keys of the set.
              const targets = [
                ...probes.map((p) => makeInternalKey(p.user, p.seq, KIND_FOR_SEEK)),
                sorted[half]!,
                makeInternalKey(userKeyOf(sorted[0]!), MAX_SEQ, KIND_FOR_SEEK),
              ];
              for (const target of targets) {
                it.seek(target);
                expect(it.valid() ? hex(it.key()) : undefined).toBe(lowerBound(sorted, target));
              }
            }
          } finally {
            for (const it of iterators) it.close();
            reader.close();
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
