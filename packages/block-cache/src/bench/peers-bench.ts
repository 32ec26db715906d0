/**
 * @shale/block-cache beside the LRU caches users pick on npm (not a test; figures only).
 *
 *   npx tsc -b && node --expose-gc dist/bench/peers-bench.js [--keys=100000]
 *     [--requests=1000000] [--share=0.3] [--zipf=0.99] [--rounds=5] [--only=NAME,...]
 *     [--baseline=PATH]
 *
 * Workload (each of `zipf`, `uniform`, `scan`): `--requests` requests over `--keys` keys, a
 * request being "get; on a miss, insert the 4 KiB value" (the value is one shared object,
 * charged 4096 bytes, so the caches' own costs are timed, not the values'). Every cache has
 * room for `--share` of the keys (30 %: 30,000 entries). Keys are drawn with a xorshift
 * generator from a fixed seed, the same sequence for every contender:
 *
 *   zipf     rank r (1..keys) with probability proportional to 1 / r^zipf, ranks mapped to
 *            keys by a fixed random permutation
 *   uniform  every key alike
 *   scan     zipf requests, and every 10,000th request starts a scan: 5,000 consecutive keys
 *            read once each (a range read through the cache; a scan-resistant cache keeps
 *            its hot keys)
 *
 * Contenders (the key a peer takes is the number k, 0..keys-1, a small integer — the
 * cheapest key V8 has; shale takes the pair (id, offset) = (1 + k >> 10, (k & 1023) * 4096),
 * a table's block):
 *
 *   shale             LRUCache({ capacity: bytes }): get / insertUnpinned(..., 4096)
 *                     (numShardBits by RocksDB's rule: 64 shards here)
 *   shale-1shard      the same with numShardBits 0 (one LRU list, as the peers have)
 *   lru-cache-size    lru-cache LRUCache({ maxSize: bytes, sizeCalculation: () => 4096 })
 *   lru-cache-max     lru-cache LRUCache({ max: entries })
 *   quick-lru         QuickLRU({ maxSize: entries }): as documented, it keeps up to twice
 *                     maxSize items (two generations), so its hit rate is higher
 *   quick-lru-eq      QuickLRU({ maxSize: 0.72 x entries }): about LRU's hit rate
 *   baseline          with `--baseline=PATH`: another build of @shale/block-cache (the
 *                     `dist/index.js` of an earlier commit's checkout), as `shale`
 *
 * Each contender runs its own copy of the request loop (peers-loop.ts) and of its library's
 * module (imported with a query string), so no contender's classes make another's code
 * polymorphic: lru-cache with both configurations sharing one copy ran 5x slower than alone.
 *
 * A round runs every contender once, in an order rotated per round: a fresh cache, one
 * untimed pass of the requests (fills it, warms the JIT), then the timed pass. Time is CPU
 * time (user + system of the process: steadier than the wall clock on a shared machine).
 * Printed per workload: the median requests/s over the rounds, the spread (min-max), the
 * ratio to the fastest peer at LRU's hit rate (every peer but quick-lru, whose hit rate is
 * higher) and the hit rate of the timed pass.
 *
 * Memory: for each contender, the growth of the V8 heap plus ArrayBuffer memory (typed
 * arrays live outside the heap) after a full `gc()` (run with --expose-gc), from before the
 * cache is made to after it holds `keys * share` entries, divided by that count: the bytes
 * per entry a cache costs beyond its values and keys (the shared value costs nothing).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { LRUCache } from "../index.js";
import type { MapLike, ShaleLike } from "./peers-loop.js";

function option(name: string): string | undefined {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg === undefined ? undefined : arg.slice(name.length + 3);
}
const numKeys = Number(option("keys") ?? 100_000);
const numRequests = Number(option("requests") ?? 1_000_000);
const share = Number(option("share") ?? 0.3);
const zipfExponent = Number(option("zipf") ?? 0.99);
const rounds = Number(option("rounds") ?? 5);
const only = option("only")?.split(",");
const baselinePath = option("baseline");

const VALUE_BYTES = 4096;
const entries = Math.floor(numKeys * share);
const capacityBytes = entries * VALUE_BYTES;
const value = new Uint8Array(16); // one shared value, charged VALUE_BYTES

// ------------------------------------------------------------------ the contenders

/** One cache under test. */
interface Contender {
  name: string;
  /** A fresh cache. */
  make(): unknown;
  /** Serves every request of `keys` from `cache`; returns the number of hits. */
  run(cache: unknown, keys: Int32Array): number;
  /** Inserts keys 0..n-1 (for the memory figure). */
  fill(cache: unknown, n: number): void;
  /** A peer whose hit rate is LRU's (the ratios are to the fastest of these). */
  comparable: boolean;
}

type Loops = typeof import("./peers-loop.js");

/** A copy of the loops of its own for contender `tag` (see peers-loop.ts). */
async function loops(tag: string): Promise<Loops> {
  return (await import(new URL(`./peers-loop.js?${tag}`, import.meta.url).href)) as Loops;
}

/** A copy of package `name`'s module of its own for contender `tag`. */
async function ownCopy<T>(name: string, tag: string): Promise<T> {
  return (await import(`${import.meta.resolve(name)}?${tag}`)) as T;
}

interface ShaleModule {
  LRUCache: new (options: { capacity: number; numShardBits?: number }) => ShaleLike;
}

async function shaleContender(
  name: string,
  module: ShaleModule,
  numShardBits?: number,
): Promise<Contender> {
  const { runShale, fillShale } = await loops(name);
  return {
    name,
    make: () =>
      new module.LRUCache(
        numShardBits === undefined
          ? { capacity: capacityBytes }
          : { capacity: capacityBytes, numShardBits },
      ),
    run: (c, keys) => runShale(c as ShaleLike, keys, value),
    fill: (c, n) => fillShale(c as ShaleLike, n, value),
    comparable: false,
  };
}

async function peerContender(
  name: string,
  make: () => MapLike,
  comparable = true,
): Promise<Contender> {
  const { runMap, fillMap } = await loops(name);
  return {
    name,
    make,
    run: (c, keys) => runMap(c as MapLike, keys, value),
    fill: (c, n) => fillMap(c as MapLike, n, value),
    comparable,
  };
}

function version(packageName: string): string {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve(packageName));
  for (;;) {
    try {
      const json = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (json.name === packageName) return json.version ?? "?";
    } catch {
      // no package.json at this level
    }
    const up = dirname(dir);
    if (up === dir) return "?";
    dir = up;
  }
}

type LruCacheModule = typeof import("lru-cache");
type QuickLruModule = typeof import("quick-lru");
const lruSize = await ownCopy<LruCacheModule>("lru-cache", "size");
const lruMax = await ownCopy<LruCacheModule>("lru-cache", "max");
const quick = await ownCopy<QuickLruModule>("quick-lru", "quick");
const quickEqual = await ownCopy<QuickLruModule>("quick-lru", "quick-eq");
const contenders: Contender[] = [
  await shaleContender("shale", { LRUCache } as unknown as ShaleModule),
  await shaleContender("shale-1shard", { LRUCache } as unknown as ShaleModule, 0),
  await peerContender(
    `lru-cache-size ${version("lru-cache")}`,
    () =>
      new lruSize.LRUCache<number, Uint8Array>({
        maxSize: capacityBytes,
        sizeCalculation: () => VALUE_BYTES,
      }) as unknown as MapLike,
  ),
  await peerContender(
    `lru-cache-max ${version("lru-cache")}`,
    () => new lruMax.LRUCache<number, Uint8Array>({ max: entries }) as unknown as MapLike,
  ),
  await peerContender(
    `quick-lru ${version("quick-lru")}`,
    () => new quick.default<number, Uint8Array>({ maxSize: entries }) as unknown as MapLike,
    false,
  ),
  await peerContender(
    `quick-lru-eq ${version("quick-lru")}`,
    () =>
      new quickEqual.default<number, Uint8Array>({
        maxSize: Math.round(entries * 0.72),
      }) as unknown as MapLike,
  ),
];
if (baselinePath !== undefined) {
  const module = (await import(baselinePath)) as ShaleModule;
  contenders.push(await shaleContender("baseline", module));
}
const active = contenders.filter(
  (c) => only === undefined || only.some((o) => c.name.split(" ")[0] === o),
);

// ------------------------------------------------------------------ the workloads

/** xorshift32 from a fixed seed: the same sequence in every run. */
function generator(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

function permutation(n: number, random: () => number): Int32Array {
  const p = new Int32Array(n);
  for (let i = 0; i < n; i++) p[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const t = p[i]!;
    p[i] = p[j]!;
    p[j] = t;
  }
  return p;
}

function zipfKeys(random: () => number): Int32Array {
  const cdf = new Float64Array(numKeys);
  let sum = 0;
  for (let r = 0; r < numKeys; r++) {
    sum += 1 / (r + 1) ** zipfExponent;
    cdf[r] = sum;
  }
  const ranks = permutation(numKeys, random);
  const keys = new Int32Array(numRequests);
  for (let i = 0; i < numRequests; i++) {
    const u = random() * sum;
    let lo = 0;
    let hi = numKeys - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    keys[i] = ranks[lo]!;
  }
  return keys;
}

function uniformKeys(random: () => number): Int32Array {
  const keys = new Int32Array(numRequests);
  for (let i = 0; i < numRequests; i++) keys[i] = Math.floor(random() * numKeys);
  return keys;
}

function scanKeys(random: () => number): Int32Array {
  const keys = zipfKeys(random);
  for (let start = 0; start + 5000 <= numRequests; start += 10_000) {
    const first = Math.floor(random() * (numKeys - 5000));
    for (let j = 0; j < 5000; j++) keys[start + j] = first + j;
  }
  return keys;
}

// ------------------------------------------------------------------ measuring

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

function fmt(x: number): string {
  return Math.round(x).toLocaleString("en-US");
}

function runWorkload(name: string, keys: Int32Array): void {
  const rates = new Map<string, number[]>();
  const hitRates = new Map<string, number>();
  for (const c of active) rates.set(c.name, []);
  for (let round = 0; round < rounds; round++) {
    for (let j = 0; j < active.length; j++) {
      const c = active[(j + round) % active.length]!;
      const cache = c.make();
      c.run(cache, keys);
      const t0 = cpuSeconds();
      const hits = c.run(cache, keys);
      const seconds = cpuSeconds() - t0;
      rates.get(c.name)!.push(keys.length / seconds);
      hitRates.set(c.name, hits / keys.length);
    }
  }
  let bestPeer = 0;
  for (const c of active) {
    if (c.comparable) bestPeer = Math.max(bestPeer, median(rates.get(c.name)!));
  }
  console.log(
    `\n${name}: requests/s, median of ${rounds} rounds (min-max), CPU time; ratio to the fastest peer at LRU's hit rate`,
  );
  for (const c of active) {
    const r = rates.get(c.name)!;
    const ratio = bestPeer > 0 ? ` ${(median(r) / bestPeer).toFixed(2)}x` : "";
    console.log(
      `  ${c.name.padEnd(24)} ${fmt(median(r)).padStart(11)}  (${fmt(Math.min(...r))}-${fmt(Math.max(...r))})${ratio}  hit rate ${(100 * hitRates.get(c.name)!).toFixed(2)} %`,
    );
  }
}

function memory(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) {
    console.log("\nmemory: run with node --expose-gc");
    return;
  }
  const used = (): number => {
    gc();
    gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  console.log(`\nmemory per entry at ${fmt(entries)} entries (heap + ArrayBuffers), median of 3`);
  for (const c of active) {
    const samples: number[] = [];
    for (let r = 0; r < 3; r++) {
      const before = used();
      let cache: unknown = c.make();
      c.fill(cache, entries);
      const after = used();
      samples.push((after - before) / entries);
      if (cache === null) console.log(""); // keeps `cache` alive up to here
      cache = undefined;
    }
    console.log(`  ${c.name.padEnd(24)} ${median(samples).toFixed(1).padStart(7)} bytes`);
  }
}

console.log(
  `@shale/block-cache beside npm LRU caches: ${fmt(numRequests)} requests over ${fmt(numKeys)} keys, room for ${fmt(entries)} (${(share * 100).toFixed(0)} %), 4 KiB values; node ${process.version}`,
);
console.log(`contenders: ${active.map((c) => c.name).join(", ")}`);
memory();
const random = generator(0x5eed);
runWorkload(`zipf (s=${zipfExponent})`, zipfKeys(random));
runWorkload("uniform", uniformKeys(random));
runWorkload("scan (zipf + 5,000-key scans)", scanKeys(random));
