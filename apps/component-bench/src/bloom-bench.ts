/**
 * @shale/bloom beside the Bloom filters users pick on npm (bloom-contenders.ts).
 *
 *   node dist/main.js bloom [--sizes=10000,100000,1000000] [--huge] [--bits=10]
 *     [--key-bytes=16] [--rounds=5] [--queries=2000000] [--slow-max=100000]
 *     [--fp-keys=200000] [--only=NAME,...] [--quick]
 *
 * `--huge` adds 10,000,000 keys. bloom-filters hashes each key through xxhashjs's 64-bit
 * objects (~100x the others' time): it runs only at sizes up to `--slow-max` keys, with one
 * query pass of each kind.
 *
 * Every round runs every contender (order rotated per round): build (construct, add every
 * key, shale's finish), positive queries (every added key; all must answer true), negative
 * queries (as many absent keys: the share answering true is the measured false-positive
 * rate). CPU ns per key; small filters repeat the query passes up to about `--queries`
 * queries. Printed: median (min-max) over the rounds, the filter's bytes and bits/key, the
 * measured FP rate and the estimate for its geometry; then shale over the best peer.
 *
 * Then the FP table: for 6..20 bits/key, on `--fp-keys` keys, the measured FP rate of shale
 * and of the peers given the same bits (optimal k), the estimates, and the fractional
 * bits/key at which shale's estimate matches the standard filter's.
 */

import { chooseNumProbes, millibitsPerKey, standardFpRate } from "@shale/bloom";
import { Args } from "./args.js";
import {
  bitsOfShale,
  bloomFiltersContender,
  bloomfilterContender,
  type Contender,
  optimalK,
  shaleBitsFor,
  shaleContender,
} from "./bloom-contenders.js";
import { type KeySet, makeKeys } from "./bloom-keys.js";
import { cpuNs, fmt, gc, median, rotated, versionOf, type Write, withSpread } from "./measure.js";

interface Sample {
  build: number;
  positive: number;
  negative: number;
  fp: number;
  bytes: number;
}

function runOnce(c: Contender, keys: KeySet, absent: KeySet, queries: number): Sample {
  const n = keys.bytes.length;
  gc?.();
  let t = cpuNs();
  const built = c.build(keys, absent);
  const build = (cpuNs() - t) / n;
  const passes = c.slow === true ? 1 : Math.max(1, Math.ceil(queries / n));
  t = cpuNs();
  let trues = 0;
  for (let p = 0; p < passes; p++) trues += built.positive();
  const positive = (cpuNs() - t) / (n * passes);
  if (trues !== n * passes) {
    throw new Error(`${c.name}: a false negative (${trues} of ${n * passes})`);
  }
  t = cpuNs();
  let fps = 0;
  for (let p = 0; p < passes; p++) fps += built.negative();
  const negative = (cpuNs() - t) / (n * passes);
  return { build, positive, negative, fp: fps / (n * passes), bytes: built.bytes };
}

const pct = (x: number): string => `${(x * 100).toFixed(3)} %`;

const NAMES = ["shale", "shale-matched", "bloomfilter", "bloom-filters"];

/** Runs the Bloom bench with `argv` (flags only), writing its report through `write`. */
export async function runBloomBench(argv: readonly string[], write: Write): Promise<void> {
  const args = new Args(argv, [
    "sizes",
    "huge",
    "bits",
    "key-bytes",
    "rounds",
    "queries",
    "slow-max",
    "fp-keys",
    "only",
    "quick",
  ]);
  const quick = args.flag("quick");
  const sizes = args.numbers("sizes", quick ? [10_000] : [10_000, 100_000, 1_000_000]);
  if (args.flag("huge")) sizes.push(10_000_000);
  const bitsList = args.numbers("bits", [10]);
  const keyBytes = args.number("key-bytes", 16);
  const rounds = args.number("rounds", quick ? 1 : 5);
  const queries = args.number("queries", quick ? 20_000 : 2_000_000);
  const slowMax = args.number("slow-max", quick ? 10_000 : 100_000);
  const fpKeys = args.number("fp-keys", quick ? 10_000 : 200_000);
  const only = args.names("only", NAMES);
  const keep = (c: Contender) => only === undefined || only.includes(c.name);

  write(`## Bloom filter: ${keyBytes}-byte keys`);
  write(
    `node ${process.version}; bloomfilter ${versionOf("bloomfilter")}, bloom-filters ${versionOf("bloom-filters")}; ${rounds} rounds, CPU ns/key, median (min-max)`,
  );
  for (const n of sizes) {
    const keys = makeKeys(n, 1, keyBytes);
    const absent = makeKeys(n, 2, keyBytes);
    for (const bits of bitsList) {
      const bitsFor = (count: number) => bitsOfShale(count, bits);
      const held = bitsOfShale(n, bits) / n;
      const matched = shaleBitsFor(standardFpRate(held, optimalK(bitsOfShale(n, bits), n)));
      const contenders = [
        shaleContender("shale", bits),
        shaleContender("shale-matched", matched),
        bloomfilterContender(bitsFor),
        ...(n <= slowMax ? [bloomFiltersContender(bitsFor)] : []),
      ].filter(keep);
      const samples = new Map<string, Sample[]>(contenders.map((c) => [c.name, []]));
      for (let r = 0; r < rounds; r++) {
        for (const c of rotated(contenders, r)) {
          samples.get(c.name)!.push(runOnce(c, keys, absent, queries));
        }
      }
      write("");
      write(
        `### ${n.toLocaleString("en-US")} keys, ${bits} bits/key (shale-matched: ${matched} bits/key)`,
      );
      write("");
      write(
        "| filter | build ns/key | query ns/key, present | query ns/key, absent | bytes (bits/key) | FP rate (estimate) |",
      );
      write("|---|---:|---:|---:|---:|---:|");
      const label = (name: string) =>
        name === "shale"
          ? "@shale/bloom"
          : name === "shale-matched"
            ? `@shale/bloom at ${matched} bits/key`
            : `${name} ${versionOf(name)}`;
      for (const c of contenders) {
        const s = samples.get(c.name)!;
        const bytes = s[0]!.bytes;
        write(
          `| ${label(c.name)} | ${withSpread(s.map((x) => x.build))} | ${withSpread(s.map((x) => x.positive))} | ${withSpread(s.map((x) => x.negative))} | ${bytes.toLocaleString("en-US")} (${((bytes * 8) / n).toFixed(2)}) | ${pct(median(s.map((x) => x.fp)))} (${pct(c.estimate((bytes * 8) / n))}) |`,
        );
      }
      const peers = contenders.filter((c) => !c.name.startsWith("shale"));
      const own = samples.get("shale");
      if (peers.length > 0 && own !== undefined) {
        const cell = (f: (x: Sample) => number) => {
          let best = Number.POSITIVE_INFINITY;
          let who = "";
          for (const p of peers) {
            const m = median(samples.get(p.name)!.map(f));
            if (m < best) {
              best = m;
              who = p.name;
            }
          }
          return `${fmt(median(own.map(f)) / best)}x ${who}`;
        };
        write(
          `| shale / best peer | ${cell((x) => x.build)} | ${cell((x) => x.positive)} | ${cell((x) => x.negative)} | ${cell((x) => x.bytes)} | ${cell((x) => x.fp)} |`,
        );
      }
    }
  }
  fpTable(
    fpKeys,
    keyBytes,
    slowMax,
    quick ? [6, 10, 20] : [6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20],
    write,
  );
}

function fpTable(
  n: number,
  keyBytes: number,
  slowMax: number,
  bitsList: number[],
  write: Write,
): void {
  const keys = makeKeys(n, 1, keyBytes);
  const absent = makeKeys(n, 2, keyBytes);
  const slow = n <= slowMax;
  write("");
  write(
    `### False-positive rate at equal memory: ${n.toLocaleString("en-US")} keys, as many absent keys (estimate in brackets)`,
  );
  write("");
  write(
    `| bits/key | shale probes | @shale/bloom | bloomfilter (k) |${slow ? " bloom-filters |" : ""} shale bits/key for the standard rate |`,
  );
  write(`|---:|---:|---:|---:|${slow ? "---:|" : ""}---:|`);
  for (const bits of bitsList) {
    const bitsFor = (count: number) => bitsOfShale(count, bits);
    const m = bitsOfShale(n, bits);
    const k = optimalK(m, n);
    const stdEstimate = standardFpRate(m / n, k);
    const shale = shaleContender("shale", bits);
    const std = bloomfilterContender(bitsFor);
    const measured = (c: Contender) => c.build(keys, absent).negative() / n;
    const bf = slow ? ` ${pct(measured(bloomFiltersContender(bitsFor)))} |` : "";
    write(
      `| ${bits} | ${chooseNumProbes(millibitsPerKey(bits))} | ${pct(measured(shale))} (${pct(shale.estimate(m / n))}) | ${pct(measured(std))} (${pct(stdEstimate)}) (${k}) |${bf} ${shaleBitsFor(stdEstimate)} |`,
    );
  }
}
