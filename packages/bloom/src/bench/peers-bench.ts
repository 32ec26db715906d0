/**
 * @shale/bloom beside the Bloom filters users pick on npm (not a test; figures only).
 *
 *   npx tsc -b && node dist/bench/peers-bench.js [--keys=1000000] [--bits=10] [--rounds=5]
 *     [--only=NAME,...] [--skip=NAME,...] [--queries=2000000] [--fp-table] [--fp-keys=200000]
 *     [--baseline=PATH]
 *
 * bloom-filters takes ~8 us per key (its hashing goes through xxhashjs's objects): measure
 * it at 100k keys with `--only=shale,bloom-filters --queries=100000`, and pass
 * `--skip=bloom-filters` otherwise.
 *
 * Contenders, each given the same memory: the bits shale's filter holds for `--keys` keys at
 * `--bits` bits/key (whole 64-byte lines, so a hair above bits x keys); a peer gets exactly
 * that many bits and the number of hash functions that is optimal for it,
 * k = round(ln 2 x bits/key), as its own sizing would pick.
 *
 *   shale          BloomFilterBuilder.addKey / finish, BloomFilterReader.mayMatch
 *                  (RocksDB's FastLocalBloom: every probe of a key in one 64-byte line)
 *   shale@+0.5     the same at `--bits` + 0.5 bits/key, which about matches a standard
 *                  Bloom filter's false-positive rate at `--bits` (see --fp-table)
 *   bloomfilter    BloomFilter(m, k).add / test (FNV-1a 64, enhanced double hashing)
 *   bloom-filters  BloomFilter(m, k).add / has (XXH64 via xxhashjs, double hashing)
 *   minibloom      @mcrowe/minibloom filter(m, k).add / test (FNV-1a 32, double hashing)
 *   baseline       with `--baseline=PATH`: another build of @shale/bloom (the `dist/index.js`
 *                  of, say, an earlier commit's checkout) at `--bits`, for before/after ratios
 *
 * Keys are 16-byte strings `key` + a 13-digit number drawn from a 64-bit mix of the counter
 * (so neighbours share no long prefix). The peers take JS strings, shale takes bytes: each
 * contender gets its own input type, precomputed before any timing (shale: views into one
 * buffer holding the UTF-8 bytes of the same strings). Absent keys are other numbers.
 *
 * Every round runs every contender (order rotated per round, so none always runs first or
 * last): build (construct + add every key + shale's finish), positive queries (every added
 * key, must all answer true), negative queries (as many absent keys; the share answering
 * true is the measured false-positive rate). Times are CPU time (user + system of the
 * process, steadier than the wall clock on a shared machine) per key; small filters repeat
 * the query passes up to about `--queries` queries (Default: 2M). Printed: the median of the rounds and the
 * spread (min-max), ratios to shale, bits/key as held, the measured FP rate and the
 * estimate for the filter's geometry.
 *
 * `--fp-table`: for 6..20 bits/key, the measured FP rate of shale and of a standard Bloom
 * filter (bloomfilter, the same bits, optimal k) on `--fp-keys` keys, with the estimates,
 * and the bits/key shale needs to match the standard filter's rate.
 */
import { createRequire } from "node:module";
import { chooseNumProbes, millibitsPerKey } from "../format.js";
import {
  BloomFilterBuilder,
  BloomFilterReader,
  cacheLocalFpRate,
  standardFpRate,
} from "../index.js";

function option(name: string): string | undefined {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg === undefined ? undefined : arg.slice(name.length + 3);
}
const numKeys = Number(option("keys") ?? 1_000_000);
const bitsPerKey = Number(option("bits") ?? 10);
const rounds = Number(option("rounds") ?? 5);
const only = option("only")?.split(",");
const queriesPerPass = Number(option("queries") ?? 2_000_000);
const skip = (option("skip") ?? "").split(",");
const fpTable = process.argv.includes("--fp-table");
const fpKeys = Number(option("fp-keys") ?? 200_000);

// ------------------------------------------------------------------ the peers' shapes

/** The part of @shale/bloom the bench uses (this build's, or a baseline build's). */
interface ShaleBloom {
  BloomFilterBuilder: new (options: {
    bitsPerKey: number;
  }) => {
    addKey(key: Uint8Array): void;
    finish(): Uint8Array;
  };
  BloomFilterReader: new (filter: Uint8Array) => { mayMatch(key: Uint8Array): boolean };
}
const baselinePath = option("baseline");
const baseline =
  baselinePath === undefined ? undefined : ((await import(baselinePath)) as ShaleBloom);

interface JsBloom {
  add(key: string): void;
  test(key: string): boolean;
}
interface BloomFiltersBloom {
  add(key: string): void;
  has(key: string): boolean;
  _filter: { array: Uint8Array };
}
interface MiniBloom extends JsBloom {
  buckets: Int32Array;
}
const require = createRequire(import.meta.url);
const { BloomFilter: JasonDaviesBloom } = (await import("bloomfilter" as string)) as {
  BloomFilter: new (m: number, k: number) => JsBloom & { buckets: Uint32Array };
};
const { BloomFilter: BloomFiltersBloomClass } = require("bloom-filters") as {
  BloomFilter: new (m: number, k: number) => BloomFiltersBloom;
};
const minibloom = require("@mcrowe/minibloom") as {
  filter(numBits: number, numHashes: number): MiniBloom;
};

function version(name: string): string {
  try {
    return (require(`${name}/package.json`) as { version: string }).version;
  } catch {
    // bloomfilter's exports map hides package.json: read it next to the resolved main.
    const main = require.resolve(name);
    const dir = main.slice(0, main.lastIndexOf("/"));
    return (require(`${dir}/package.json`) as { version: string }).version;
  }
}

// ------------------------------------------------------------------ keys

/** A 64-bit-ish mix of i into a 13-digit number (two 32-bit mixes: no BigInt). */
function keyNumber(i: number, salt: number): number {
  let a = Math.imul(i ^ salt, 0x9e3779b1);
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  let b = Math.imul(a ^ 0x27d4eb2f, 0xc2b2ae35);
  b ^= b >>> 16;
  return ((a >>> 0) * 2048 + (b >>> 21)) % 1e13;
}

interface KeySet {
  strings: string[];
  bytes: Uint8Array[];
}

/** `n` distinct 16-byte keys; salt 1 for added keys, 2 for absent ones (disjoint: checked). */
function makeKeys(n: number, salt: number): KeySet {
  const strings = new Array<string>(n);
  const buffer = new Uint8Array(16 * n);
  const bytes = new Array<Uint8Array>(n);
  const enc = new TextEncoder();
  for (let i = 0; i < n; i++) {
    const s = `${salt === 1 ? "key" : "abs"}${String(keyNumber(i, salt)).padStart(13, "0")}`;
    strings[i] = s;
    enc.encodeInto(s, buffer.subarray(16 * i, 16 * i + 16));
    bytes[i] = buffer.subarray(16 * i, 16 * i + 16);
  }
  return { strings, bytes };
}

// ------------------------------------------------------------------ contenders

interface Built {
  bits: number;
  positive(): number;
  negative(): number;
}

interface Contender {
  name: string;
  build(keys: KeySet): Built;
  /** The FP rate its geometry predicts for `numKeys` keys. */
  estimate(bits: number, n: number): number;
}

/** shale at `bits` bits/key; the query passes return how many keys answered true. */
function shaleContender(name: string, bits: number, absent: KeySet): Contender {
  return {
    name,
    build(keys) {
      const builder = new BloomFilterBuilder({ bitsPerKey: bits });
      const added = keys.bytes;
      for (let i = 0; i < added.length; i++) builder.addKey(added[i]!);
      const filter = builder.finish();
      const reader = new BloomFilterReader(filter);
      const absentBytes = absent.bytes;
      return {
        bits: (filter.length - 5) * 8,
        positive() {
          let t = 0;
          for (let i = 0; i < added.length; i++) if (reader.mayMatch(added[i]!)) t++;
          return t;
        },
        negative() {
          let t = 0;
          for (let i = 0; i < absentBytes.length; i++) if (reader.mayMatch(absentBytes[i]!)) t++;
          return t;
        },
      };
    },
    estimate: (m, n) => cacheLocalFpRate(m / n, chooseNumProbes(millibitsPerKey(bits))),
  };
}

/**
 * The same loops for a baseline build (its own function, so that its calls to the other
 * build's classes do not make shale's call sites polymorphic).
 */
function baselineContender(bits: number, absent: KeySet, lib: ShaleBloom): Contender {
  return {
    name: "baseline",
    build(keys) {
      const builder = new lib.BloomFilterBuilder({ bitsPerKey: bits });
      const added = keys.bytes;
      for (let i = 0; i < added.length; i++) builder.addKey(added[i]!);
      const filter = builder.finish();
      const reader = new lib.BloomFilterReader(filter);
      const absentBytes = absent.bytes;
      return {
        bits: (filter.length - 5) * 8,
        positive() {
          let t = 0;
          for (let i = 0; i < added.length; i++) if (reader.mayMatch(added[i]!)) t++;
          return t;
        },
        negative() {
          let t = 0;
          for (let i = 0; i < absentBytes.length; i++) if (reader.mayMatch(absentBytes[i]!)) t++;
          return t;
        },
      };
    },
    estimate: (m, n) => cacheLocalFpRate(m / n, chooseNumProbes(millibitsPerKey(bits))),
  };
}

const optimalK = (m: number, n: number) => Math.max(1, Math.round((Math.LN2 * m) / n));

/**
 * The peers, each with its own loops calling its own methods directly, so that every call
 * site sees one class (a shared wrapper would make them polymorphic and slow the peers).
 */
function peers(bitsFor: (n: number) => number, absent: KeySet): Contender[] {
  const estimate = (m: number, n: number) => standardFpRate(m / n, optimalK(m, n));
  const absentStrings = absent.strings;
  return [
    {
      name: "bloomfilter",
      estimate,
      build(keys) {
        const added = keys.strings;
        const m = bitsFor(added.length);
        const f = new JasonDaviesBloom(m, optimalK(m, added.length));
        for (let i = 0; i < added.length; i++) f.add(added[i]!);
        return {
          bits: f.buckets.byteLength * 8,
          positive() {
            let t = 0;
            for (let i = 0; i < added.length; i++) if (f.test(added[i]!)) t++;
            return t;
          },
          negative() {
            let t = 0;
            for (let i = 0; i < absentStrings.length; i++) if (f.test(absentStrings[i]!)) t++;
            return t;
          },
        };
      },
    },
    {
      name: "bloom-filters",
      estimate,
      build(keys) {
        const added = keys.strings;
        const m = bitsFor(added.length);
        const f = new BloomFiltersBloomClass(m, optimalK(m, added.length));
        for (let i = 0; i < added.length; i++) f.add(added[i]!);
        return {
          bits: f._filter.array.byteLength * 8,
          positive() {
            let t = 0;
            for (let i = 0; i < added.length; i++) if (f.has(added[i]!)) t++;
            return t;
          },
          negative() {
            let t = 0;
            for (let i = 0; i < absentStrings.length; i++) if (f.has(absentStrings[i]!)) t++;
            return t;
          },
        };
      },
    },
    {
      name: "minibloom",
      estimate,
      build(keys) {
        const added = keys.strings;
        const m = bitsFor(added.length);
        const f = minibloom.filter(m, optimalK(m, added.length));
        for (let i = 0; i < added.length; i++) f.add(added[i]!);
        return {
          bits: f.buckets.byteLength * 8,
          positive() {
            let t = 0;
            for (let i = 0; i < added.length; i++) if (f.test(added[i]!)) t++;
            return t;
          },
          negative() {
            let t = 0;
            for (let i = 0; i < absentStrings.length; i++) if (f.test(absentStrings[i]!)) t++;
            return t;
          },
        };
      },
    },
  ];
}

// ------------------------------------------------------------------ timing

function cpuNs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

interface Sample {
  build: number;
  positive: number;
  negative: number;
  fp: number;
  bitsPerKey: number;
}

function runOnce(c: Contender, keys: KeySet, n: number): Sample {
  let t = cpuNs();
  const built = c.build(keys);
  const build = (cpuNs() - t) / n;
  const passes = Math.max(1, Math.ceil(queriesPerPass / n));
  t = cpuNs();
  let trues = 0;
  for (let p = 0; p < passes; p++) trues += built.positive();
  const positive = (cpuNs() - t) / (n * passes);
  if (trues !== n * passes)
    throw new Error(`${c.name}: a false negative (${trues} of ${n * passes})`);
  t = cpuNs();
  let fps = 0;
  for (let p = 0; p < passes; p++) fps += built.negative();
  const negative = (cpuNs() - t) / (n * passes);
  return { build, positive, negative, fp: fps / (n * passes), bitsPerKey: built.bits / n };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const spread = (xs: number[]) => `${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}`;

function compare(n: number, bits: number): void {
  const keys = makeKeys(n, 1);
  const absent = makeKeys(n, 2);
  const shaleBits = (count: number) => bitsOfShale(count, bits);
  let contenders: Contender[] = [
    shaleContender("shale", bits, absent),
    shaleContender("shale@+0.5", bits + 0.5, absent),
    ...(baseline === undefined ? [] : [baselineContender(bits, absent, baseline)]),
    ...peers(shaleBits, absent),
  ];
  if (only !== undefined) contenders = contenders.filter((c) => only.includes(c.name));
  contenders = contenders.filter((c) => !skip.includes(c.name));
  const samples = new Map<string, Sample[]>(contenders.map((c) => [c.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (let j = 0; j < contenders.length; j++) {
      const c = contenders[(j + r) % contenders.length]!;
      samples.get(c.name)!.push(runOnce(c, keys, n));
    }
  }
  console.log(
    `\n${n} keys, ${bits} bits/key (shale's filter: ${bitsOfShale(n, bits)} bits), ` +
      `${rounds} rounds; CPU ns/key, median (min-max); ratio = shale / peer`,
  );
  console.log(
    "contender        build ns/key          query+ ns/key        query- ns/key        bits/key   FP rate    estimate",
  );
  const base = samples.get("shale");
  for (const c of contenders) {
    const s = samples.get(c.name)!;
    const col = (f: (x: Sample) => number) => {
      const m = median(s.map(f));
      const ratio =
        base === undefined || c.name === "shale" ? "" : ` ${(median(base.map(f)) / m).toFixed(2)}x`;
      return `${m.toFixed(1).padStart(6)} (${spread(s.map(f))})${ratio}`.padEnd(21);
    };
    const bpk = s[0]!.bitsPerKey;
    console.log(
      `${c.name.padEnd(16)} ${col((x) => x.build)} ${col((x) => x.positive)} ${col((x) => x.negative)} ` +
        `${bpk.toFixed(2).padStart(8)}   ${(median(s.map((x) => x.fp)) * 100).toFixed(3).padStart(6)} %  ` +
        `${(c.estimate(bpk * n, n) * 100).toFixed(3).padStart(6)} %`,
    );
  }
}

/** Bits of shale's filter for n keys at `bits` bits/key (whole 64-byte lines). */
function bitsOfShale(n: number, bits: number): number {
  return Math.ceil((n * millibitsPerKey(bits)) / 512000) * 512;
}

/** Smallest millibits/1000 whose cache-local FP rate is at most `target` (0.01 steps). */
function shaleBitsFor(target: number): number {
  for (let m = 1000; m <= 100000; m += 10) {
    if (cacheLocalFpRate(m / 1000, chooseNumProbes(m)) <= target) return m / 1000;
  }
  return 100;
}

function fpSweep(): void {
  const n = fpKeys;
  const keys = makeKeys(n, 1);
  const absent = makeKeys(n, 2);
  console.log(
    `\nFP rate at equal memory, ${n} keys (measured on ${n} absent keys; estimate in brackets)`,
  );
  console.log(
    "bits/key  shale probes  shale FP             standard k  standard FP          shale bits/key for standard's FP",
  );
  for (const bits of [6, 7, 8, 9, 10, 11, 12, 14, 16, 18, 20]) {
    const shale = runOnceFp(shaleContender("shale", bits, absent), keys, n);
    const std = runOnceFp(peers((m) => bitsOfShale(m, bits), absent)[0]!, keys, n);
    const k = optimalK(bitsOfShale(n, bits), n);
    const stdEstimate = standardFpRate(bitsOfShale(n, bits) / n, k);
    const shaleEstimate = cacheLocalFpRate(
      bitsOfShale(n, bits) / n,
      chooseNumProbes(millibitsPerKey(bits)),
    );
    console.log(
      `${String(bits).padStart(8)}  ${String(chooseNumProbes(millibitsPerKey(bits))).padStart(12)}  ` +
        `${pct(shale)} (${pct(shaleEstimate)})  ${String(k).padStart(10)}  ${pct(std)} (${pct(stdEstimate)})  ` +
        `${shaleBitsFor(stdEstimate).toFixed(2).padStart(8)}`,
    );
  }
}

const pct = (x: number) => `${(x * 100).toFixed(3).padStart(6)} %`;

function runOnceFp(c: Contender, keys: KeySet, n: number): number {
  const built = c.build(keys);
  return built.negative() / n;
}

console.log(
  `@shale/bloom peers bench — Node ${process.version}; bloomfilter ${version("bloomfilter")}, ` +
    `bloom-filters ${version("bloom-filters")}, @mcrowe/minibloom ${version("@mcrowe/minibloom")}`,
);
if (fpTable) fpSweep();
else compare(numKeys, bitsPerKey);
