/**
 * The query test of filter_bench (RocksDB's `FilterBench::RandomQueryTest`).
 *
 * Each round picks inside (a key that was added) or outside (valNum | 2^31, never added)
 * with probability `insideThreshold / 2^32`, then a filter by mode, then queries it. The
 * same loop runs twice from the same seed: once for real ("gross") and once as a dry run
 * that only makes (and, unless --net_includes_hashing, hashes) the keys. net = gross - dry.
 */
import { type BloomFilterReader, hashKey64 } from "@shale/bloom";
import { KeyMaker, type Random32 } from "./key-maker.js";

export interface FilterInfo {
  readonly filterId: number;
  readonly keysAdded: number;
  readonly filter: Uint8Array;
  readonly reader: BloomFilterReader;
  outsideQueries: number;
  falsePositives: number;
}

export const TestMode = {
  /** Every query goes to filter 0 (it stays in CPU cache when small). */
  SingleFilter: "Single filter",
  /** A batch of keys (--batch_size, 8) to a random filter, one `mayMatchMany` call. */
  BatchPrepared: "Batched, prepared",
  /** A batch of keys to a random filter, one `mayMatch` call per key. */
  BatchUnprepared: "Batched, unprepared",
  /** A random filter per query. */
  RandomFilter: "Random filter",
} as const;
export type TestMode = (typeof TestMode)[keyof typeof TestMode];

export interface QueryContext {
  readonly infos: FilterInfo[];
  readonly keySize: number;
  /** Keys per batch in the batched modes. */
  readonly batchSize: number;
  readonly maxQueries: number;
  readonly netIncludesHashing: boolean;
  readonly random: Random32;
  /** The clock, in nanoseconds. */
  readonly now: () => number;
}

/** The "No FN" assertion of RocksDB (ALWAYS_ASSERT): a false negative is a bug. */
export function falseNegative(info: FilterInfo, valNum: number): never {
  throw new Error(`false negative: filter ${info.filterId} key #${valNum}`);
}

/** Runs one query test; returns ns/op and a sink value that keeps the dry run alive. */
export function randomQueryTest(
  ctx: QueryContext,
  insideThreshold: number,
  dryRun: boolean,
  mode: TestMode,
  maxQueries = ctx.maxQueries,
): { nsPerOp: number; sink: number } {
  const { infos, random } = ctx;
  for (const info of infos) {
    info.outsideQueries = 0;
    info.falsePositives = 0;
  }
  const batched = mode === TestMode.BatchPrepared || mode === TestMode.BatchUnprepared;
  const batchSize = batched ? ctx.batchSize : 1;
  const makers: KeyMaker[] = [];
  const keys: Uint8Array[] = [];
  for (let i = 0; i < batchSize; i++) {
    makers.push(new KeyMaker(ctx.keySize));
    keys.push(makers[i]!.key);
  }
  const valNums = new Uint32Array(batchSize);
  const results = new Uint8Array(batchSize);
  const hashOut = new Uint32Array(2);
  const numPrimary = mode === TestMode.SingleFilter ? 1 : infos.length;
  const hashInDryRun = !ctx.netIncludesHashing;
  const prepared = mode === TestMode.BatchPrepared;
  let sink = 0;

  const start = ctx.now();
  for (let q = 0; q < maxQueries; q += batchSize) {
    const inside = random.next() <= insideThreshold;
    random.next(); // RocksDB draws the primary/secondary choice here
    const info = infos[random.uniformish(numPrimary)]!;
    for (let i = 0; i < batchSize; i++) {
      const v = random.uniformish(info.keysAdded);
      valNums[i] = inside ? v : (v | 0x80000000) >>> 0;
      makers[i]!.make(info.filterId, valNums[i]!);
    }
    if (!inside) info.outsideQueries += batchSize;
    if (dryRun) {
      for (let i = 0; i < batchSize; i++) {
        if (hashInDryRun) {
          hashKey64(keys[i]!, hashOut, 0);
          sink = (sink + hashOut[0]!) | 0;
        } else {
          sink = (sink + keys[i]![3]!) | 0;
        }
      }
      continue;
    }
    if (prepared) {
      info.reader.mayMatchMany(keys, results);
      for (let i = 0; i < batchSize; i++) {
        if (inside) {
          if (results[i] === 0) falseNegative(info, valNums[i]!);
        } else info.falsePositives += results[i]!;
      }
    } else {
      for (let i = 0; i < batchSize; i++) {
        const may = info.reader.mayMatch(keys[i]!);
        if (inside) {
          if (!may) falseNegative(info, valNums[i]!);
        } else if (may) info.falsePositives++;
      }
    }
  }
  return { nsPerOp: (ctx.now() - start) / maxQueries, sink };
}

/** Average FP rate over all outside queries of the last test, or NaN if there were none. */
export function averageFpRate(infos: readonly FilterInfo[]): number {
  let q = 0;
  let fp = 0;
  for (const info of infos) {
    q += info.outsideQueries;
    fp += info.falsePositives;
  }
  return q === 0 ? Number.NaN : fp / q;
}
