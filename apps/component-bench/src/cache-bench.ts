/**
 * @shale/block-cache beside the LRU caches users pick on npm.
 *
 *   node --expose-gc dist/main.js cache [--keys=100000] [--requests=1000000] [--share=0.3]
 *     [--zipf=0.99] [--rounds=5] [--only=NAME,...] [--quick]
 *
 * Workloads (cache-workloads.ts: zipf, uniform, scan): `--requests` requests over `--keys`
 * keys, a request being "get; on a miss, insert the 4 KiB value" (one shared value object,
 * charged 4096 bytes, so the caches' own costs are timed, not the values'). Every cache has
 * room for `--share` of the keys (30 %: 30,000 entries).
 *
 * Contenders (a peer's key is the number k, 0..keys-1, a small integer — the cheapest key V8
 * has; shale's is the pair (id, offset) = (1 + k >> 10, (k & 1023) * 4096), a table's block):
 *
 *   shale             LRUCache({ capacity: bytes }): get / insertUnpinned(..., 4096)
 *                     (numShardBits by RocksDB's rule: 64 shards at 120 MiB)
 *   shale-1shard      the same with numShardBits 0 (one LRU list, as the peers have)
 *   shale-pinned      as shale, but a hit is lookup + release (the entry pinned while in
 *                     use: what a reader that holds a block while reading it pays)
 *   lru-cache-size    lru-cache LRUCache({ maxSize: bytes, sizeCalculation: () => 4096 })
 *   lru-cache-max     lru-cache LRUCache({ max: entries })
 *   quick-lru         QuickLRU({ maxSize: entries }): as documented, it keeps up to twice
 *                     maxSize items (two generations), so its hit rate is higher
 *   quick-lru-eq      QuickLRU({ maxSize: 0.72 x entries }): about LRU's hit rate
 *
 * Each contender runs its own copy of the request loop (cache-loop.ts) and of its library's
 * module (imported with a query string), so no contender's classes make another's code
 * polymorphic (lru-cache's two configurations sharing one copy ran 5x slower than alone).
 *
 * A round runs every contender once, in an order rotated per round: a fresh cache, one
 * untimed pass of the requests (fills it, warms the JIT), then the timed pass, in CPU time.
 * No full collection runs between contenders: with one before each, lru-cache (which
 * allocates as it inserts and evicts) measured 0.2-0.3x its usual rate in the later
 * workloads, while the caches that allocate nothing did not change.
 * Printed per workload: the median requests/s over the rounds, the spread (min-max), the
 * ratio to the fastest peer at LRU's hit rate (every peer but quick-lru, whose hit rate is
 * higher) and the hit rate of the timed pass.
 *
 * Memory: the growth of the V8 heap plus ArrayBuffer memory after a full `gc()` from before
 * the cache is made to after it holds `keys x share` entries, per entry (median of 3): the
 * bytes a cache costs beyond its values (the shared value costs nothing).
 */
import { LRUCache } from "@shale/block-cache";
import { Args } from "./args.js";
import type { MapLike, ShaleLike } from "./cache-loop.js";
import { generator, scanKeys, uniformKeys, zipfKeys } from "./cache-workloads.js";
import { cpuNs, gc, heapBytes, median, rotated, versionOf, type Write } from "./measure.js";

const VALUE_BYTES = 4096;

/** One cache under test. */
interface Contender {
  name: string;
  label: string;
  /** A fresh cache. */
  make(): unknown;
  /** Serves every request of `keys` from `cache`; returns the number of hits. */
  run(cache: unknown, keys: Int32Array): number;
  /** Inserts keys 0..n-1 (for the memory figure). */
  fill(cache: unknown, n: number): void;
  /** A peer whose hit rate is LRU's (the ratios are to the fastest of these). */
  comparable: boolean;
}

type Loops = typeof import("./cache-loop.js");

/** A copy of the loops of its own for contender `tag` (see cache-loop.ts). */
async function loops(tag: string): Promise<Loops> {
  return (await import(new URL(`./cache-loop.js?${tag}`, import.meta.url).href)) as Loops;
}

/** A copy of package `name`'s module of its own for contender `tag`. */
async function ownCopy<T>(name: string, tag: string): Promise<T> {
  return (await import(`${import.meta.resolve(name)}?${tag}`)) as T;
}

type LruCacheModule = typeof import("lru-cache");
type QuickLruModule = typeof import("quick-lru");

const NAMES = [
  "shale",
  "shale-1shard",
  "shale-pinned",
  "lru-cache-size",
  "lru-cache-max",
  "quick-lru",
  "quick-lru-eq",
] as const;

async function contenders(entries: number, value: unknown): Promise<Contender[]> {
  const capacity = entries * VALUE_BYTES;
  const shale = async (
    name: string,
    label: string,
    numShardBits?: number,
    pinned = false,
  ): Promise<Contender> => {
    const { runShale, runShalePinned, fillShale } = await loops(name);
    const options =
      numShardBits === undefined ? { capacity } : { capacity, numShardBits: numShardBits };
    const run = pinned ? runShalePinned : runShale;
    return {
      name,
      label,
      make: () => new LRUCache<unknown>(options),
      run: (c, keys) => run(c as unknown as ShaleLike, keys, value),
      fill: (c, n) => fillShale(c as unknown as ShaleLike, n, value),
      comparable: false,
    };
  };
  const peer = async (
    name: string,
    label: string,
    make: () => MapLike,
    comparable = true,
  ): Promise<Contender> => {
    const { runMap, fillMap } = await loops(name);
    return {
      name,
      label,
      make,
      run: (c, keys) => runMap(c as MapLike, keys, value),
      fill: (c, n) => fillMap(c as MapLike, n, value),
      comparable,
    };
  };
  const lru = versionOf("lru-cache");
  const quick = versionOf("quick-lru");
  const lruSize = await ownCopy<LruCacheModule>("lru-cache", "size");
  const lruMax = await ownCopy<LruCacheModule>("lru-cache", "max");
  const quickLru = await ownCopy<QuickLruModule>("quick-lru", "quick");
  const quickEqual = await ownCopy<QuickLruModule>("quick-lru", "quick-eq");
  return [
    await shale("shale", "@shale/block-cache"),
    await shale("shale-1shard", "@shale/block-cache (numShardBits 0)", 0),
    await shale(
      "shale-pinned",
      "@shale/block-cache (hits pinned: `lookup` + `release`)",
      undefined,
      true,
    ),
    await peer(
      "lru-cache-size",
      `lru-cache ${lru} (\`maxSize\` + \`sizeCalculation\`)`,
      () =>
        new lruSize.LRUCache<number, object>({
          maxSize: capacity,
          sizeCalculation: () => VALUE_BYTES,
        }) as unknown as MapLike,
    ),
    await peer(
      "lru-cache-max",
      `lru-cache ${lru} (\`max\`)`,
      () => new lruMax.LRUCache<number, object>({ max: entries }) as unknown as MapLike,
    ),
    await peer(
      "quick-lru",
      `quick-lru ${quick} (\`maxSize\` = entries: up to 2x the items)`,
      () => new quickLru.default<number, object>({ maxSize: entries }) as unknown as MapLike,
      false,
    ),
    await peer(
      "quick-lru-eq",
      `quick-lru ${quick} (\`maxSize\` 0.72 x entries: LRU's hit rate)`,
      () =>
        new quickEqual.default<number, object>({
          maxSize: Math.round(entries * 0.72),
        }) as unknown as MapLike,
    ),
  ];
}

interface Result {
  rates: number[];
  hitRate: number;
}

function runWorkload(active: Contender[], keys: Int32Array, rounds: number): Map<string, Result> {
  const out = new Map<string, Result>();
  for (const c of active) out.set(c.name, { rates: [], hitRate: 0 });
  for (let round = 0; round < rounds; round++) {
    for (const c of rotated(active, round)) {
      const cache = c.make();
      c.run(cache, keys);
      const t0 = cpuNs();
      const hits = c.run(cache, keys);
      const ns = cpuNs() - t0;
      const r = out.get(c.name)!;
      r.rates.push(keys.length / (ns / 1e9));
      r.hitRate = hits / keys.length;
    }
  }
  return out;
}

/** The cache being measured, held here so that no liveness analysis frees it early. */
let measured: unknown;

/**
 * One sample: the heap growth of making and filling a cache, per entry. Its own function, so
 * that no slot of the caller's frame still holds the previous sample's cache at `before`.
 */
function sampleBytes(c: Contender, entries: number): number {
  const before = heapBytes();
  measured = c.make();
  c.fill(measured, entries);
  const after = heapBytes();
  measured = undefined;
  return (after - before) / entries;
}

function bytesPerEntry(c: Contender, entries: number): number {
  sampleBytes(c, entries); // a warm-up: the first fill also compiles the fill's code
  const samples: number[] = [];
  for (let r = 0; r < 3; r++) samples.push(sampleBytes(c, entries));
  if (process.env.PROBE) console.error(c.name, samples.join(" "));
  return median(samples);
}

const rate = (x: number): string =>
  x >= 1e6 ? `${(x / 1e6).toFixed(2)}M` : `${(x / 1e3).toFixed(0)}k`;

/** Runs the cache bench with `argv` (flags only), writing its report through `write`. */
export async function runCacheBench(argv: readonly string[], write: Write): Promise<void> {
  const args = new Args(argv, ["keys", "requests", "share", "zipf", "rounds", "only", "quick"]);
  const quick = args.flag("quick");
  const numKeys = args.number("keys", quick ? 5000 : 100_000);
  const numRequests = args.number("requests", quick ? 50_000 : 1_000_000);
  const share = args.number("share", 0.3);
  const exponent = args.number("zipf", 0.99);
  const rounds = args.number("rounds", quick ? 2 : 5);
  const only = args.names("only", NAMES);
  if (share >= 1) throw new Error(`--share must be below 1, got ${share}`);
  const entries = Math.floor(numKeys * share);
  const value = new Uint8Array(16); // one shared value, charged 4096 bytes
  const active = (await contenders(entries, value)).filter(
    (c) => only === undefined || only.includes(c.name),
  );

  write(
    `## block cache: ${numRequests.toLocaleString("en-US")} requests over ${numKeys.toLocaleString("en-US")} keys, room for ${entries.toLocaleString("en-US")} (${(share * 100).toFixed(0)} %), 4 KiB values`,
  );
  write(
    `node ${process.version}; lru-cache ${versionOf("lru-cache")}, quick-lru ${versionOf("quick-lru")}; ${rounds} rounds, CPU time, median (min-max)`,
  );
  const random = generator(0x5eed);
  const workloads: [string, Int32Array][] = [
    [`Zipf (s=${exponent})`, zipfKeys(numKeys, numRequests, exponent, random)],
    ["uniform", uniformKeys(numKeys, numRequests, random)],
    ["scan (Zipf + scans)", scanKeys(numKeys, numRequests, exponent, random)],
  ];
  const results = workloads.map(([, keys]) => runWorkload(active, keys, rounds));
  const memory = new Map<string, number>();
  if (gc !== undefined) for (const c of active) memory.set(c.name, bytesPerEntry(c, entries));

  const best = results.map((byName) => {
    let top = 0;
    for (const c of active) {
      if (c.comparable) top = Math.max(top, median(byName.get(c.name)!.rates));
    }
    return top;
  });
  let bestBytes = Number.POSITIVE_INFINITY;
  for (const c of active) {
    if (c.comparable && memory.has(c.name)) bestBytes = Math.min(bestBytes, memory.get(c.name)!);
  }
  write("");
  write(
    `| cache | bytes/entry | ${workloads.map(([w]) => `${w} requests/s`).join(" | ")} | hit rate ${workloads.map(([w]) => w.split(" ")[0]).join(" / ")} |`,
  );
  write(`|---|---:|${workloads.map(() => "---:").join("|")}|---:|`);
  for (const c of active) {
    const bytes = memory.get(c.name);
    const bytesCell =
      bytes === undefined
        ? "-"
        : `${bytes.toFixed(1)}${Number.isFinite(bestBytes) ? ` (${(bytes / bestBytes).toFixed(2)}x)` : ""}`;
    const cells = results.map((byName, w) => {
      const r = byName.get(c.name)!;
      const m = median(r.rates);
      const ratio = best[w]! > 0 ? ` ${(m / best[w]!).toFixed(2)}x` : "";
      return `${rate(m)} (${rate(Math.min(...r.rates))}-${rate(Math.max(...r.rates))})${ratio}`;
    });
    const hits = results.map((byName) => (100 * byName.get(c.name)!.hitRate).toFixed(1));
    write(`| ${c.label} | ${bytesCell} | ${cells.join(" | ")} | ${hits.join(" / ")} % |`);
  }
  write("");
  write(
    "Ratios: requests/s over the fastest peer's at LRU's hit rate (above 1: faster); bytes over the smallest such peer's (below 1: smaller)." +
      (gc === undefined ? " Memory not measured: run node with --expose-gc." : ""),
  );
}
