/**
 * The seams a component user meets: flushMemTable, the defaults for "latest" and
 * the file size, lookups that cannot report a stale answer, the filter-policy interface and
 * the block-cache helper.
 */
import {
  ArrayIterator,
  LookupResult,
  LookupState,
  MemoryFileSystem,
  makeInternalKey,
  type RandomAccessFile,
  ShaleError,
  toBytes,
  ValueKind,
  type WritableFile,
} from "@shale/base";
import { BloomFilterPolicy } from "@shale/bloom";
import { MemTable } from "@shale/memtable";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { newBlockCache } from "../block/block-cache.js";
import type { FilterBitsReader, FilterPolicy } from "../filter/filter-policy.js";
import { MetaBlockName } from "../format/format.js";
import { flushMemTable } from "./flush.js";
import { buildTable, icmp, ikey, openTable } from "./table.test-support.js";
import { TableBuilder } from "./table-builder.js";
import { TableReader } from "./table-reader.js";

const dec = new TextDecoder();
const text = (v: Uint8Array | undefined) => (v === undefined ? undefined : dec.decode(v));

/** A WritableFile that records the calls made on it. */
class RecordingFile implements WritableFile {
  readonly calls: string[] = [];
  constructor(
    private readonly inner: WritableFile,
    private readonly failAppend = false,
  ) {}
  append(data: Uint8Array, start?: number, end?: number): void {
    if (this.failAppend) throw ShaleError.ioError("disk full");
    this.inner.append(data, start, end);
  }
  flush(): void {
    this.calls.push("flush");
    this.inner.flush();
  }
  sync(): void {
    this.calls.push("sync");
    this.inner.sync();
  }
  close(): void {
    this.calls.push("close");
    this.inner.close();
  }
  get size(): number {
    return this.inner.size;
  }
}

describe("flushMemTable", () => {
  it("writes points and range tombstones, syncs and closes", () => {
    const mem = new MemTable();
    mem.add(1, ValueKind.Value, toBytes("apple"), toBytes("red"));
    mem.add(2, ValueKind.Value, toBytes("kiwi"), toBytes("green"));
    mem.add(3, ValueKind.Deletion, toBytes("apple"));
    mem.add(4, ValueKind.RangeDeletion, toBytes("k"), toBytes("l"));
    mem.add(5, ValueKind.Merge, toBytes("plum"), toBytes("+1"));
    const fs = new MemoryFileSystem();
    const file = new RecordingFile(fs.openWritable("1.sst"));
    const props = flushMemTable(mem, file);
    expect(file.calls).toEqual(["sync", "close"]);
    expect(props.numEntries).toBe(4); // the point entries
    expect(props.numRangeDeletions).toBe(1);

    const reader = TableReader.open(fs.openRandomAccess("1.sst"));
    expect(reader.get(toBytes("apple")).state).toBe(LookupState.Deleted);
    expect(reader.get(toBytes("apple"), 2).state).toBe(LookupState.Found);
    expect(reader.get(toBytes("kiwi")).state).toBe(LookupState.Deleted); // [k, l)@4
    expect(text(reader.get(toBytes("kiwi"), 3).value)).toBe("green");
    expect(reader.get(toBytes("plum")).operands.map(text)).toEqual(["+1"]);
    const it = reader.newIterator();
    let n = 0;
    for (it.seekToFirst(); it.valid(); it.next()) n++;
    it.close();
    expect(n).toBe(4); // every version is kept: a flush drops nothing
    reader.close();
  });

  it("takes any structural source and skips the sync on request", () => {
    const keys = [ikey("a", 2, ValueKind.Value), ikey("b", 1, ValueKind.Value)];
    const source = {
      newIterator: () =>
        new ArrayIterator(keys, [toBytes("1"), toBytes("2")], (a, b) => icmp.compare(a, b)),
      rangeTombstones: () => [],
    };
    const fs = new MemoryFileSystem();
    const file = new RecordingFile(fs.openWritable("2.sst"));
    expect(flushMemTable(source, file, { sync: false, bitsPerKey: 0 }).numEntries).toBe(2);
    expect(file.calls).toEqual(["close"]);
    const reader = TableReader.open(fs.openRandomAccess("2.sst"));
    expect(reader.properties.filterPolicy).toBe("");
    expect(text(reader.get(toBytes("b")).value)).toBe("2");
    reader.close();
  });

  it("abandons the table and closes the file when a write fails", () => {
    const mem = new MemTable();
    mem.add(1, ValueKind.Value, toBytes("a"), toBytes("1"));
    const fs = new MemoryFileSystem();
    const file = new RecordingFile(fs.openWritable("3.sst"), true);
    expect(() => flushMemTable(mem, file)).toThrow(/disk full/);
    expect(file.calls).toEqual(["close"]);
  });

  it("rejects a source that is not one", () => {
    const fs = new MemoryFileSystem();
    expect(() => flushMemTable({} as never, fs.openWritable("4.sst"))).toThrow(TypeError);
  });
});

describe("flushMemTable, property", () => {
  it("the table holds exactly the memtable's entries and answers its gets", () => {
    const entry = fc.record({
      key: fc.constantFrom("a", "b", "c", "d", "e"),
      kind: fc.constantFrom(ValueKind.Value, ValueKind.Deletion, ValueKind.Merge),
      value: fc.string({ maxLength: 4 }),
    });
    const tombstone = fc.record({
      start: fc.constantFrom("a", "c"),
      end: fc.constantFrom("d", "f"),
    });
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 25 }),
        fc.array(tombstone, { maxLength: 2 }),
        (es, ts) => {
          const mem = new MemTable();
          let seq = 0;
          for (const e of es) mem.add(++seq, e.kind, toBytes(e.key), toBytes(e.value));
          for (const t of ts)
            mem.add(++seq, ValueKind.RangeDeletion, toBytes(t.start), toBytes(t.end));
          const fs = new MemoryFileSystem();
          flushMemTable(mem, fs.openWritable("p.sst"), { blockSize: 64 });
          const reader = TableReader.open(fs.openRandomAccess("p.sst"));
          const a = mem.newIterator();
          const b = reader.newIterator();
          for (a.seekToFirst(), b.seekToFirst(); a.valid(); a.next(), b.next()) {
            expect(b.valid()).toBe(true);
            expect(b.key()).toEqual(a.key());
            expect(b.value()).toEqual(a.value());
          }
          expect(b.valid()).toBe(false);
          b.close();
          a.close();
          for (const k of ["a", "b", "c", "d", "e", "f"]) {
            for (const snapshot of [0, seq >> 1, seq]) {
              const m = mem.get(toBytes(k), snapshot);
              const t = reader.get(toBytes(k), snapshot);
              // seq is compared for Found only: for a key deleted by a covering tombstone the
              // memtable reports the entry's seq, a table the tombstone's.
              const seqOf = (r: LookupResult) => (r.state === LookupState.Found ? r.seq : -1);
              const view = (r: LookupResult) => [
                r.state,
                seqOf(r),
                text(r.value),
                r.operands.map(text),
                r.maxCoveringSeq,
              ];
              expect(view(t)).toEqual(view(m));
            }
          }
          reader.close();
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("TableReader defaults", () => {
  it("reads the file size itself and looks up the latest version without a sequence", () => {
    const t = buildTable(
      [ikey("k", 9, ValueKind.Value), ikey("k", 4, ValueKind.Value)],
      [toBytes("new"), toBytes("old")],
    );
    const reader = TableReader.open(t.fs.openRandomAccess(t.path));
    expect(reader.fileSize).toBe(t.size);
    const r = reader.get(toBytes("k"));
    expect(r).toBeInstanceOf(LookupResult);
    expect(text(r.value)).toBe("new");
    expect(text(reader.get(toBytes("k"), 5).value)).toBe("old");
    reader.close();
  });

  it("still checks an explicit fileSize", () => {
    const t = buildTable([ikey("k", 1, ValueKind.Value)], [toBytes("v")]);
    const file = t.fs.openRandomAccess(t.path);
    expect(() => TableReader.open(file, { fileSize: -1 })).toThrow(/fileSize/);
  });
});

describe("lookups cannot report a stale answer", () => {
  // Seen failing before LookupResult.enter: the second get left `Found` and "red" in place.
  it("a reused result reports a missing key as NotFound, not the previous value", () => {
    const t = buildTable([ikey("apple", 7, ValueKind.Value)], [toBytes("red")]);
    const reader = openTable(t);
    const result = new LookupResult();
    reader.get(toBytes("apple"), 100, result);
    expect(result.state).toBe(LookupState.Found);
    reader.get(toBytes("banana"), 100, result); // no reset() in between
    expect(result.state).toBe(LookupState.NotFound);
    expect(result.value).toBeUndefined();
    reader.close();
  });

  it("a result that was merging does not carry its operands into the next key", () => {
    const t = buildTable(
      [ikey("a", 5, ValueKind.Merge), ikey("b", 4, ValueKind.Value)],
      [toBytes("+1"), toBytes("base")],
    );
    const reader = openTable(t);
    const result = new LookupResult();
    reader.get(toBytes("a"), 100, result);
    expect(result.state).toBe(LookupState.Merging);
    reader.get(toBytes("b"), 100, result);
    expect(result.state).toBe(LookupState.Found);
    expect(result.operands).toEqual([]);
    reader.close();
  });

  it("the same key asked of the same table again is a new lookup", () => {
    const t = buildTable([ikey("a", 5, ValueKind.Merge)], [toBytes("+1")]);
    const reader = openTable(t);
    const key = toBytes("a");
    const result = new LookupResult();
    reader.get(key, 100, result);
    reader.get(key, 100, result);
    expect(result.operands.map(text)).toEqual(["+1"]); // not ["+1", "+1"]
    reader.close();
  });

  it("a memtable and then a table fold into one lookup (the layered read)", () => {
    const mem = new MemTable();
    mem.add(9, ValueKind.Merge, toBytes("a"), toBytes("+2"));
    const t = buildTable([ikey("a", 5, ValueKind.Value)], [toBytes("1")]);
    const reader = openTable(t);
    const key = toBytes("a");
    const result = new LookupResult();
    mem.get(key, 100, result);
    reader.get(key, 100, result);
    expect(result.state).toBe(LookupState.Found);
    expect(text(result.value)).toBe("1");
    expect(result.operands.map(text)).toEqual(["+2"]);
    // A newer layer that settled the key: the table is not asked.
    const mem2 = new MemTable();
    mem2.add(10, ValueKind.Deletion, key);
    result.reset();
    mem2.get(key, 100, result);
    reader.get(key, 100, result);
    expect(result.state).toBe(LookupState.Deleted);
    expect(result.seq).toBe(10);
    reader.close();
  });

  it("a maxCoveringSeq set by the caller after reset() is kept", () => {
    const t = buildTable([ikey("a", 5, ValueKind.Value)], [toBytes("1")]);
    const reader = openTable(t);
    const result = new LookupResult();
    result.maxCoveringSeq = 6;
    reader.get(toBytes("a"), 100, result);
    expect(result.state).toBe(LookupState.Deleted);
    reader.close();
  });
});

/** A filter that stores the keys themselves: exact, for tests of the policy seam. */
class ExactSetPolicy implements FilterPolicy {
  readonly name = "exactset";
  readonly compatibilityName = "test.ExactSet";
  readers = 0;
  newBuilder() {
    const keys: string[] = [];
    return {
      addKey: (key: Uint8Array) => void keys.push(Buffer.from(key).toString("hex")),
      get numEntries() {
        return keys.length;
      },
      finish: () => toBytes(keys.join(",")),
    };
  }
  newReader(contents: Uint8Array): FilterBitsReader {
    this.readers++;
    const set = new Set(dec.decode(contents).split(","));
    return { mayMatch: (key) => set.has(Buffer.from(key).toString("hex")) };
  }
}

/** Counts the reads of the file (a filter that rules a key out saves the data block read). */
class CountingFile implements RandomAccessFile {
  reads = 0;
  constructor(private readonly inner: RandomAccessFile) {}
  get size() {
    return this.inner.size;
  }
  read(offset: number, length: number, dst: Uint8Array, dstOffset?: number): number {
    this.reads++;
    return this.inner.read(offset, length, dst, dstOffset);
  }
  close() {
    this.inner.close();
  }
}

describe("filter policy", () => {
  const keys = [ikey("a", 1, ValueKind.Value), ikey("c", 1, ValueKind.Value)];
  const values = [toBytes("1"), toBytes("3")];

  it("@shale/bloom's BloomFilterPolicy is a FilterPolicy and writes the bitsPerKey table", () => {
    const policy: FilterPolicy = new BloomFilterPolicy(10);
    const a = buildTable(keys, values, { filterPolicy: policy, creationTime: 1 });
    const b = buildTable(keys, values, { bitsPerKey: 10, creationTime: 1 });
    expect(a.fs.readFile(a.path)).toEqual(b.fs.readFile(b.path));
    expect(a.properties.filterPolicy).toBe("bloomfilter");
  });

  it("a custom policy writes its block under its name and answers the reader's lookups", () => {
    const policy = new ExactSetPolicy();
    const t = buildTable(keys, values, { filterPolicy: policy });
    expect(t.properties.filterPolicy).toBe("exactset");
    expect(t.properties.numFilterEntries).toBe(2);
    const file = new CountingFile(t.fs.openRandomAccess(t.path));
    const reader = TableReader.open(file, { filterPolicy: policy });
    expect(policy.readers).toBe(1);
    expect(reader.mayContain(toBytes("b"))).toBe(false);
    const before = file.reads;
    expect(reader.get(toBytes("b")).state).toBe(LookupState.NotFound);
    expect(file.reads).toBe(before); // ruled out by the filter: no data block read
    expect(text(reader.get(toBytes("c")).value)).toBe("3");
    reader.close();
    // Without the policy the table is read without a filter: same answers.
    const plain = openTable(t);
    expect(plain.mayContain(toBytes("b"))).toBe(true);
    expect(text(plain.get(toBytes("a")).value)).toBe("1");
    plain.close();
  });

  it("the metaindex names the policy's filter", () => {
    const t = buildTable(keys, values, { filterPolicy: new ExactSetPolicy() });
    const bytes = dec.decode(t.fs.readFile(t.path));
    expect(bytes).toContain(`${MetaBlockName.FULL_FILTER_PREFIX}test.ExactSet`);
    expect(bytes).not.toContain(MetaBlockName.FULL_FILTER);
  });

  it("rejects both filterPolicy and bitsPerKey, and a policy that is not one", () => {
    const fs = new MemoryFileSystem();
    const file = fs.openWritable("x.sst");
    expect(
      () => new TableBuilder(file, { filterPolicy: new ExactSetPolicy(), bitsPerKey: 5 }),
    ).toThrow(/not both/);
    expect(() => new TableBuilder(file, { filterPolicy: {} as FilterPolicy })).toThrow(TypeError);
    const t = buildTable(keys, values);
    expect(() =>
      TableReader.open(t.fs.openRandomAccess(t.path), { filterPolicy: 5 as never }),
    ).toThrow(/options.filterPolicy/);
  });

  it("BloomFilterPolicy checks bitsPerKey", () => {
    expect(() => new BloomFilterPolicy(0)).toThrow(/\[1, 100\]/);
    expect(() => new BloomFilterPolicy("10" as never)).toThrow(TypeError);
  });
});

describe("newBlockCache", () => {
  it("makes a cache the reader takes without naming the Block type", () => {
    const cache = newBlockCache(1 << 20);
    const t = buildTable([ikey("a", 1, ValueKind.Value)], [toBytes("1")]);
    const reader = openTable(t, { blockCache: cache });
    expect(text(reader.get(toBytes("a")).value)).toBe("1");
    expect(cache.usage).toBeGreaterThan(0);
    reader.close();
    expect(() => newBlockCache(-1)).toThrow();
  });
});

describe("flushMemTable and TableBuilder", () => {
  it("flushMemTable's output is what a builder given the same entries writes", () => {
    const mem = new MemTable();
    mem.add(2, ValueKind.Value, toBytes("x"), toBytes("1"));
    mem.add(1, ValueKind.Value, toBytes("y"), toBytes("2"));
    const fs = new MemoryFileSystem();
    flushMemTable(mem, fs.openWritable("m.sst"), { creationTime: 7 });
    const t = buildTable(
      [makeInternalKey(toBytes("x"), 2, ValueKind.Value), ikey("y", 1, ValueKind.Value)],
      [toBytes("1"), toBytes("2")],
      { creationTime: 7 },
    );
    expect(fs.readFile("m.sst")).toEqual(t.fs.readFile(t.path));
  });
});
