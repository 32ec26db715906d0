/**
 * Micro-benchmark of @shale/block-cache (not a test; figures, no assertions).
 *
 *   npx tsc -b && node dist/bench/cache-bench.js [ops]        (ops default 1000000)
 *
 * Each benchmark runs one warm-up pass and then 5 timed passes of `ops` operations and prints
 * the median ns/op. Keys are (table id, block offset) pairs precomputed in Float64Arrays, so
 * the loops time the cache alone. All entries are charged 4 KiB.
 *
 *   lookup+release (hit)     128 MiB cache (64 shards) holding 256 blocks (CPU cost: all in
 *                            L1/L2) or 16 Ki blocks (adds memory latency); random keys
 *   lookup (miss)            same caches, keys of an id never inserted
 *   insertUnpinned (churn)   16 MiB cache, 4 Ki blocks resident; every insert of a new key
 *                            evicts the least recently used block
 *   insert+release (churn)   same, with a pinned insert released at once
 *   insert high/low (churn)  as insertUnpinned, one block in 8 with priority "high"
 *   baseline: nested Map get Map<id, Map<offset, value>> holding the same blocks (no LRU)
 *
 * The machine may be shared: the min column is the least disturbed pass.
 */
import { LRUCache } from "../index.js";

const OPS = Number(process.argv[2] ?? 1_000_000);
const BLOCK = 4096;
const RUNS = 5;

let sink = 0;

function measure(name: string, pass: () => void): void {
  pass(); // warm-up (and JIT)
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = process.hrtime.bigint();
    pass();
    times.push(Number(process.hrtime.bigint() - t0) / OPS);
  }
  times.sort((a, b) => a - b);
  const median = times[RUNS >> 1]!;
  console.log(
    `${name.padEnd(40)} ${median.toFixed(1).padStart(7)} ns/op   (min ${times[0]!.toFixed(1)}, ${(1000 / median).toFixed(1)} Mops/s)`,
  );
}

/** Random (id, offset) keys over `ids` tables x `blocks` blocks, `OPS` of them. */
function randomKeys(ids: number, blocks: number, firstId: number): [Float64Array, Float64Array] {
  const idOf = new Float64Array(OPS);
  const offsetOf = new Float64Array(OPS);
  let x = 0x9e3779b9;
  for (let i = 0; i < OPS; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const r = x >>> 0;
    idOf[i] = firstId + (r % ids);
    offsetOf[i] = (Math.floor(r / ids) % blocks) * BLOCK;
  }
  return [idOf, offsetOf];
}

function hitAndMiss(name: string, ids: number, blocks: number): void {
  const cache = new LRUCache<Uint8Array>({ capacity: 128 << 20 });
  const block = new Uint8Array(16);
  for (let id = 1; id <= ids; id++) {
    for (let b = 0; b < blocks; b++) cache.insertUnpinned(id, b * BLOCK, block, BLOCK);
  }
  const [idOf, offsetOf] = randomKeys(ids, blocks, 1);
  measure(`lookup+release (hit, ${name})`, () => {
    let bytes = 0;
    for (let i = 0; i < OPS; i++) {
      const h = cache.lookup(idOf[i]!, offsetOf[i]!);
      if (h !== undefined) {
        bytes += h.value.length;
        cache.release(h);
      }
    }
    sink += bytes;
  });
  const [missId, missOffset] = randomKeys(1, blocks, 1000);
  measure(`lookup (miss, ${name})`, () => {
    let misses = 0;
    for (let i = 0; i < OPS; i++) {
      if (cache.lookup(missId[i]!, missOffset[i]!) === undefined) misses++;
    }
    sink += misses;
  });
  const s = cache.stats();
  console.log(`  (${cache.numShards} shards, ${s.entries} entries, ${s.evictions} evictions)`);

  const maps = new Map<number, Map<number, Uint8Array>>();
  for (let id = 1; id <= ids; id++) {
    const inner = new Map<number, Uint8Array>();
    for (let b = 0; b < blocks; b++) inner.set(b * BLOCK, block);
    maps.set(id, inner);
  }
  measure(`baseline: nested Map get (${name})`, () => {
    let bytes = 0;
    for (let i = 0; i < OPS; i++) {
      const v = maps.get(idOf[i]!)?.get(offsetOf[i]!);
      if (v !== undefined) bytes += v.length;
    }
    sink += bytes;
  });
}

function churn(): void {
  const value = new Uint8Array(16);
  // Keys never repeat across passes: every insert is a new key and evicts one block. Key n is
  // (1 + n / 4096, (n % 4096) * 4 KiB), computed inline (two integer ops).
  let next = 0;
  const fill = (cache: LRUCache<Uint8Array>): void => {
    while (cache.usage + BLOCK <= cache.capacity) {
      cache.insertUnpinned(1 + (next >>> 12), (next & 4095) * BLOCK, value, BLOCK);
      next++;
    }
  };
  const unpinned = new LRUCache<Uint8Array>({ capacity: 16 << 20 });
  fill(unpinned);
  measure("insertUnpinned (churn)", () => {
    for (let i = 0; i < OPS; i++, next++) {
      unpinned.insertUnpinned(1 + (next >>> 12), (next & 4095) * BLOCK, value, BLOCK);
    }
  });
  console.log(`  (${unpinned.stats().entries} entries, ${unpinned.stats().evictions} evictions)`);
  const pinned = new LRUCache<Uint8Array>({ capacity: 16 << 20 });
  fill(pinned);
  measure("insert+release (churn)", () => {
    for (let i = 0; i < OPS; i++, next++) {
      pinned.release(pinned.insert(1 + (next >>> 12), (next & 4095) * BLOCK, value, BLOCK));
    }
  });
  const mixed = new LRUCache<Uint8Array>({ capacity: 16 << 20 });
  fill(mixed);
  measure("insert high/low (churn)", () => {
    for (let i = 0; i < OPS; i++, next++) {
      mixed.insertUnpinned(
        1 + (next >>> 12),
        (next & 4095) * BLOCK,
        value,
        BLOCK,
        (i & 7) === 0 ? "high" : "low",
      );
    }
  });
}

console.log(`@shale/block-cache bench: ${OPS} ops per pass, median of ${RUNS} passes`);
hitAndMiss("256 hot keys", 4, 64);
hitAndMiss("16 Ki keys", 16, 1024);
churn();
if (sink === -1) console.log("unreachable");
