/** Bloom filter skipping, block cache behaviour and the TableCache. */
import {
  LookupResult,
  LookupState,
  MAX_SEQ,
  MemoryFileSystem,
  Statistics,
  Ticker,
  toBytes,
} from "@shale/base";
import { type CachePriority, LRUCache, SharedBlockCache } from "@shale/block-cache";
import { describe, expect, it } from "vitest";
import type { Block } from "../block/block.js";
import { MetaBlockName } from "../format/format.js";
import {
  type BuiltTable,
  buildTable,
  CountingFile,
  ikey,
  openTable,
  tableLayout,
} from "./table.test-support.js";
import { TableCache } from "./table-cache.js";

const N = 2000;
const userKey = (i: number) => toBytes(`user${String(i).padStart(6, "0")}`);

/** Even keys only, so odd keys are missing but inside the table's key range. */
function evenTable(bitsPerKey: number, fs?: MemoryFileSystem, path?: string): BuiltTable {
  const keys: Uint8Array[] = [];
  const values: Uint8Array[] = [];
  for (let i = 0; i < N; i += 2) {
    keys.push(ikey(userKey(i), i + 1, 1));
    values.push(toBytes(`v${i}`.padEnd(60, "-")));
  }
  return buildTable(keys, values, { bitsPerKey, blockSize: 1024 }, [], fs, path);
}

class RecordingCache extends LRUCache<Block> {
  readonly priorities: { offset: number; priority: CachePriority | undefined }[] = [];
  override insertReferenced(
    id: number,
    offset: number,
    value: Block,
    charge: number,
    priority?: CachePriority,
  ) {
    this.priorities.push({ offset, priority });
    return super.insertReferenced(id, offset, value, charge, priority);
  }
  override insert(
    id: number,
    offset: number,
    value: Block,
    charge: number,
    priority?: CachePriority,
  ) {
    this.priorities.push({ offset, priority });
    return super.insert(id, offset, value, charge, priority);
  }
}

describe("Bloom filter", () => {
  it("skips data block reads for missing keys", () => {
    const reads: Record<string, number> = {};
    for (const bits of [10, 0]) {
      let counter: CountingFile | undefined;
      const reader = openTable(evenTable(bits), {}, (f) => (counter = new CountingFile(f)));
      const before = counter!.reads;
      const r = new LookupResult();
      for (let i = 1; i < N; i += 2) {
        r.reset();
        reader.get(userKey(i), MAX_SEQ, r);
        expect(r.state).toBe(LookupState.NotFound);
      }
      reads[`bits${bits}`] = counter!.reads - before;
      expect(reader.mayContain(userKey(2))).toBe(true);
    }
    // 1000 missing keys: without a filter each costs a data block read but the last, past
    // the last block's index key (the table's last key, RocksDB's kShortenSeparators);
    // with 10 bits/key only the false positives (~1 %) do.
    expect(reads["bits0"]).toBe(N / 2 - 1);
    expect(reads["bits10"]).toBeLessThan(40);
  });

  it("counts BloomChecked / BloomUseful in statistics, and finds every present key", () => {
    const stats = new Statistics();
    const reader = openTable(evenTable(10), { statistics: stats });
    const r = new LookupResult();
    for (let i = 0; i < N; i++) {
      r.reset();
      reader.get(userKey(i), MAX_SEQ, r);
      expect(r.state).toBe(i % 2 === 0 ? LookupState.Found : LookupState.NotFound);
    }
    expect(stats.getTicker(Ticker.BloomChecked)).toBe(N);
    expect(stats.getTicker(Ticker.BloomUseful)).toBeGreaterThan(N / 2 - 40);
  });

  it("a table written with bitsPerKey 0 has no filter block", () => {
    const t = evenTable(0);
    expect(tableLayout(t).meta.has(MetaBlockName.FULL_FILTER)).toBe(false);
    expect(t.properties.filterPolicy).toBe("");
    expect(t.properties.filterSize).toBe(0);
    expect(evenTable(10).properties.filterPolicy).toBe("bloomfilter");
  });
});

describe("block cache", () => {
  for (const pin of [true, false]) {
    it(`the second get of a key hits the cache and reads nothing (pinIndexAndFilterBlocks ${pin})`, () => {
      const cache = new LRUCache<Block>({ capacity: 1 << 22 });
      let counter: CountingFile | undefined;
      const reader = openTable(
        evenTable(10),
        { blockCache: cache, pinIndexAndFilterBlocks: pin },
        (f) => (counter = new CountingFile(f)),
      );
      expect(cache.stats().pinnedUsage > 0).toBe(pin);
      const r = new LookupResult();
      const s0 = cache.stats();
      reader.get(userKey(500), MAX_SEQ, r);
      const s1 = cache.stats();
      expect(s1.misses - s0.misses).toBe(1); // the data block
      const readsAfterFirst = counter!.reads;
      r.reset();
      reader.get(userKey(500), MAX_SEQ, r);
      expect(r.state).toBe(LookupState.Found);
      const s2 = cache.stats();
      expect(s2.misses).toBe(s1.misses);
      // Pinned: only the data block is looked up; else the filter and the index too.
      expect(s2.hits - s1.hits).toBe(pin ? 1 : 3);
      expect(counter!.reads).toBe(readsAfterFirst);
      reader.close();
      expect(cache.stats().pinnedUsage).toBe(0);
    });
  }

  it("index and filter are inserted with high priority, data blocks with low", () => {
    const table = evenTable(10);
    const layout = tableLayout(table);
    const cache = new RecordingCache({ capacity: 1 << 22 });
    const reader = openTable(table, { blockCache: cache });
    const byOffset = new Map(cache.priorities.map((p) => [p.offset, p.priority]));
    expect(byOffset.get(layout.index.offset)).toBe("high");
    expect(byOffset.get(layout.meta.get(MetaBlockName.FULL_FILTER)!.offset)).toBe("high");
    const r = new LookupResult();
    reader.get(userKey(0), MAX_SEQ, r);
    expect(cache.priorities.at(-1)).toEqual({ offset: layout.data[0]!.offset, priority: "low" });
  });

  it("fillCache false reads without inserting; unpinned index and filter reload after eviction", () => {
    const cache = new LRUCache<Block>({ capacity: 1 << 22 });
    const reader = openTable(evenTable(10), { blockCache: cache, pinIndexAndFilterBlocks: false });
    const before = cache.stats().entries;
    const r = new LookupResult();
    reader.get(userKey(10), MAX_SEQ, r, { fillCache: false });
    expect(r.state).toBe(LookupState.Found);
    expect(cache.stats().entries).toBe(before);
    cache.eraseId(reader.cacheId);
    expect(cache.stats().entries).toBe(0);
    r.reset();
    reader.get(userKey(10), MAX_SEQ, r);
    expect(r.state).toBe(LookupState.Found);
    expect(cache.stats().entries).toBe(3);
  });

  it("pinned index and filter survive eraseId: a get then reads only its data block", () => {
    const cache = new LRUCache<Block>({ capacity: 1 << 22 });
    let counter: CountingFile | undefined;
    const reader = openTable(
      evenTable(10),
      { blockCache: cache },
      (f) => (counter = new CountingFile(f)),
    );
    cache.eraseId(reader.cacheId);
    const reads = counter!.reads;
    const r = new LookupResult();
    reader.get(userKey(10), MAX_SEQ, r);
    expect(r.state).toBe(LookupState.Found);
    expect(counter!.reads - reads).toBe(1);
  });

  it("a strict cache too small for the index holds it outside the cache", () => {
    const cache = new LRUCache<Block>({
      capacity: 100,
      numShardBits: 0,
      strictCapacityLimit: true,
    });
    const reader = openTable(evenTable(10), { blockCache: cache });
    const r = new LookupResult();
    reader.get(userKey(10), MAX_SEQ, r);
    expect(r.state).toBe(LookupState.Found);
    expect(cache.stats().entries).toBe(0);
  });

  it("with cacheIndexAndFilterBlocks false the reader holds index and filter", () => {
    const cache = new LRUCache<Block>({ capacity: 1 << 22 });
    const reader = openTable(evenTable(10), {
      blockCache: cache,
      cacheIndexAndFilterBlocks: false,
    });
    expect(cache.stats().entries).toBe(0);
    const r = new LookupResult();
    reader.get(userKey(10), MAX_SEQ, r);
    expect(cache.stats().entries).toBe(1);
  });

  it("a cache smaller than the table still answers correctly", () => {
    // Room for the pinned index (with its IndexSearch, slots included: 8 bytes a data block)
    // and filter, and a few data blocks.
    const table = evenTable(10);
    const slots = 8 * tableLayout(table).data.length;
    const cache = new LRUCache<Block>({ capacity: 6144 + slots, numShardBits: 0 });
    const reader = openTable(table, { blockCache: cache });
    const r = new LookupResult();
    for (let i = 0; i < N; i += 7) {
      r.reset();
      reader.get(userKey(i), MAX_SEQ, r);
      expect(r.state).toBe(i % 2 === 0 ? LookupState.Found : LookupState.NotFound);
      if (i % 2 === 0) expect(new TextDecoder().decode(r.value).startsWith(`v${i}-`)).toBe(true);
    }
    const it = reader.newIterator();
    let n = 0;
    for (it.seekToFirst(); it.valid(); it.next()) n++;
    it.close();
    expect(n).toBe(N / 2);
    expect(cache.stats().evictions).toBeGreaterThan(0);
  });
});

describe("shared block cache over the block cache", () => {
  it.each([
    { fillCache: true, title: "inserting it into the shared cache" },
    { fillCache: false, title: "inserting nothing (fillCache false)" },
  ])(
    "a miss takes the data block from the block cache, reading nothing from the file, $title",
    ({ fillCache }) => {
      const cache = new LRUCache<Block>({ capacity: 1 << 22 });
      const shared = SharedBlockCache.create(1 << 20);
      let counter: CountingFile | undefined;
      const reader = openTable(
        evenTable(10),
        { blockCache: cache, sharedBlockCache: shared, fileNumber: 9 },
        (f) => (counter = new CountingFile(f)),
      );
      // An iterator puts every data block into the block cache.
      const it = reader.newIterator();
      for (it.seekToFirst(); it.valid(); it.next()) {}
      it.close();
      const reads = counter!.reads;
      const r = new LookupResult();
      for (let i = 0; i < N; i += 3) {
        r.reset();
        reader.get(userKey(i), MAX_SEQ, r, { fillCache });
        expect(r.state).toBe(i % 2 === 0 ? LookupState.Found : LookupState.NotFound);
        if (i % 2 === 0) expect(new TextDecoder().decode(r.value).startsWith(`v${i}-`)).toBe(true);
      }
      expect(counter!.reads).toBe(reads);
      if (fillCache) expect(shared.stats().inserts).toBeGreaterThan(10);
      else expect(shared.stats().inserts).toBe(0);
      reader.close();
    },
  );
});

describe("TableCache", () => {
  function setup(capacity: number) {
    const fs = new MemoryFileSystem();
    fs.mkdir("db");
    const sizes = new Map<number, number>();
    for (let n = 1; n <= 4; n++) sizes.set(n, evenTable(10, fs, `db/${n}.sst`).size);
    const blockCache = new LRUCache<Block>({ capacity: 1 << 22 });
    const cache = new TableCache({ fs, path: (n) => `db/${n}.sst`, capacity, blockCache });
    return { fs, sizes, blockCache, cache };
  }

  it("returns the same reader while open and bounds the open tables (LRU)", () => {
    const { sizes, cache } = setup(2);
    const r1 = cache.get(1, sizes.get(1)!);
    expect(cache.get(1, sizes.get(1)!)).toBe(r1);
    const r2 = cache.get(2, sizes.get(2)!);
    cache.get(1, sizes.get(1)!); // 1 is now the most recent
    cache.get(3, sizes.get(3)!); // evicts 2
    expect(cache.size).toBe(2);
    expect(r2.isClosed).toBe(true);
    expect(r1.isClosed).toBe(false);
    const again = cache.get(2, sizes.get(2)!);
    expect(again).not.toBe(r2);
    const r = new LookupResult();
    again.get(userKey(4), MAX_SEQ, r);
    expect(r.state).toBe(LookupState.Found);
  });

  it("an iterator keeps working on a reader closed by the LRU bound", () => {
    const { sizes, cache } = setup(1);
    const it = cache.get(1, sizes.get(1)!).newIterator();
    it.seekToFirst();
    cache.get(2, sizes.get(2)!); // closes reader 1
    let n = 0;
    for (; it.valid(); it.next()) n++;
    expect(n).toBe(N / 2);
    it.close();
  });

  it("a reopened table finds its blocks still cached; evict erases them in the next macrotask", async () => {
    const { sizes, cache, blockCache } = setup(1);
    const r = new LookupResult();
    cache.get(1, sizes.get(1)!).get(userKey(8), MAX_SEQ, r);
    cache.get(2, sizes.get(2)!); // closes reader 1
    const misses = blockCache.stats().misses;
    r.reset();
    cache.get(1, sizes.get(1)!).get(userKey(8), MAX_SEQ, r);
    expect(r.state).toBe(LookupState.Found);
    // Reopen: every block came from the cache (index, filter at open; filter, index, data at get).
    expect(blockCache.stats().misses).toBe(misses);
    const entries = blockCache.stats().entries;
    cache.evict(1);
    expect(cache.size).toBe(0);
    // Not at once (a compaction's inputs can hold thousands of blocks): soon.
    expect(blockCache.stats().entries).toBe(entries);
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(blockCache.stats().entries).toBe(entries - 3);
    cache.evict(99);
  });

  it("close closes every reader; later gets fail with Closed", () => {
    const { sizes, cache } = setup(10);
    const r1 = cache.get(1, sizes.get(1)!);
    cache.close();
    cache.close();
    expect(r1.isClosed).toBe(true);
    expect(() => cache.get(1, sizes.get(1)!)).toThrow(expect.objectContaining({ code: "Closed" }));
  });

  it("a missing or damaged table throws and leaks no reader", () => {
    const { fs, cache } = setup(10);
    expect(() => cache.get(42, 100)).toThrow(expect.objectContaining({ code: "IOError" }));
    fs.writeFile("db/5.sst", new Uint8Array(100));
    expect(() => cache.get(5, 100)).toThrow(expect.objectContaining({ code: "Corruption" }));
    expect(cache.size).toBe(0);
  });
});
