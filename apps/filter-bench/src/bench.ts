/**
 * One filter_bench run with one builder (RocksDB's `FilterBench::Go`):
 *
 * 1. Build: filters of averageKeysPerFilter ±varyKeysPct % keys until their total size reaches
 *    working_mem_size_mb. Timed per key, hashing included (as in RocksDB).
 * 2. Verify (not with --quick): every added key must match ("No FNs :)"), and
 *    m_queries outside keys spread over the filters give the "Prelim FP rate".
 * 3. Query tests: mixed (50 % inside), mostly inside (95 %), mostly outside (5 % inside),
 *    each mode as net ns/op = gross - dry run.
 * 4. Memory: the builder's peak hash storage, and the peak RSS of the whole process.
 */
import {
  BloomFilterBuilder,
  BloomFilterReader,
  estimatedFpRate,
  type HashStorage,
  RibbonFilterBuilder,
} from "@shale/bloom";
import { makeClock } from "./clock.js";
import type { BenchFlags } from "./flags.js";
import { KeyMaker, Random32 } from "./key-maker.js";
import {
  averageFpRate,
  type FilterInfo,
  falseNegative,
  type QueryContext,
  randomQueryTest,
  TestMode,
} from "./query.js";

export type Write = (line: string) => void;

const UINT32_MAX = 0xffffffff;
const fmt = (x: number, digits = 4) =>
  Number.isFinite(x) ? Number(x.toPrecision(digits + 2)).toString() : String(x);

/** Runs the bench for one hash storage, writing RocksDB-style lines to `write`. */
export function runBench(flags: BenchFlags, storage: HashStorage, write: Write): void {
  const mQueries = flags.quick ? flags.mQueries / 7 : flags.mQueries;
  const modes: TestMode[] = flags.quick
    ? [TestMode.SingleFilter, TestMode.RandomFilter]
    : [
        TestMode.SingleFilter,
        TestMode.BatchPrepared,
        TestMode.BatchUnprepared,
        TestMode.RandomFilter,
      ];
  const now = makeClock(flags.clock);
  write(
    `filter-bench: @shale/bloom ${flags.impl === "ribbon" ? "Standard128Ribbon" : "FastLocalBloom"}, builder=${storage}, node ${process.version}, clock ${flags.clock}`,
  );
  write(
    `Keys: ${flags.keySize} bytes, ${flags.bitsPerKey} bits/key, ${flags.averageKeysPerFilter} keys/filter avg (±${flags.varyKeysPct} %), ` +
      `working mem ${flags.workingMemSizeMb} MB, m_queries ${fmt(mQueries)}, batch_size ${flags.batchSize}, seed ${flags.seed}`,
  );
  write("Building...");

  const random = new Random32(flags.seed);
  const builder =
    flags.impl === "ribbon"
      ? new RibbonFilterBuilder({ bitsPerKey: flags.bitsPerKey, hashStorage: storage })
      : new BloomFilterBuilder({ bitsPerKey: flags.bitsPerKey, hashStorage: storage });
  const keyMaker = new KeyMaker(flags.keySize);
  const avg = flags.averageKeysPerFilter;
  const variation = Math.floor((avg * flags.varyKeysPct) / 100);
  const budget = flags.workingMemSizeMb * 1024 * 1024;
  const infos: FilterInfo[] = [];
  let totalBytes = 0;
  let totalKeys = 0;
  let bitBytes = 0;

  const buildStart = now();
  while (totalBytes < budget) {
    const filterId = random.next();
    const keysAdded = avg - variation + random.uniformish(2 * variation + 1);
    for (let i = 0; i < keysAdded; i++) builder.addKey(keyMaker.make(filterId, i));
    const filter = builder.finish();
    const reader = new BloomFilterReader(filter);
    infos.push({ filterId, keysAdded, filter, reader, outsideQueries: 0, falsePositives: 0 });
    totalBytes += filter.length;
    bitBytes += filter.length - 5;
    totalKeys += keysAdded;
  }
  const buildNs = now() - buildStart;
  const peakHashBytes = builder.peakAllocatedBytes;

  const bitsPerKeyStored = (totalBytes * 8) / totalKeys;
  const numProbes = infos[0]!.reader.numProbes;
  write(`Build avg ns/key: ${fmt(buildNs / totalKeys)}`);
  write(`Number of filters: ${infos.length}`);
  write(`Total size (MB): ${fmt(totalBytes / 1024 / 1024)}`);
  write(`Bits/key stored: ${fmt(bitsPerKeyStored)}`);
  const predicted =
    infos[0]!.reader.ribbon !== undefined
      ? infos.reduce((sum, i) => sum + (i.reader.ribbon?.expectedFpRate ?? 1) * i.keysAdded, 0) /
        totalKeys
      : estimatedFpRate(totalKeys, bitBytes, numProbes);
  write(`Predicted FP rate %: ${fmt(100 * predicted)}`);
  write(`Builder peak hash storage (MB): ${fmt(peakHashBytes / 1024 / 1024)}`);

  if (!flags.quick) {
    write("----------------------------");
    write("Verifying...");
    const outsidePerFilter = Math.floor((mQueries * 1e6) / infos.length);
    let fps = 0;
    for (const info of infos) {
      for (let j = 0; j < info.keysAdded; j++) {
        if (!info.reader.mayMatch(keyMaker.make(info.filterId, j))) falseNegative(info, j);
      }
      for (let j = 0; j < outsidePerFilter; j++) {
        if (info.reader.mayMatch(keyMaker.make(info.filterId, (j | 0x80000000) >>> 0))) fps++;
      }
    }
    write(" No FNs :)");
    write(` Prelim FP rate %: ${fmt((100 * fps) / Math.max(1, outsidePerFilter * infos.length))}`);
  }

  const ctx: QueryContext = {
    infos,
    keySize: flags.keySize,
    batchSize: flags.batchSize,
    maxQueries: Math.max(1, Math.round(mQueries * 1e6)),
    netIncludesHashing: flags.netIncludesHashing,
    random,
    now,
  };
  const warmupQueries = Math.min(ctx.maxQueries, 200_000);
  const sections: [string, number, number][] = [
    ["Mixed inside/outside queries...", Math.floor(UINT32_MAX / 2), 1],
  ];
  if (!flags.quick) {
    // 95 % rather than 100 % so the branch predictor cannot learn the answer.
    sections.push(["Inside queries (mostly)...", Math.floor(UINT32_MAX / 20) * 19, 1]);
    sections.push(["Outside queries (mostly)...", Math.floor(UINT32_MAX / 20), 2]);
  }
  let sink = 0;
  for (const [title, threshold, seedOffset] of sections) {
    write("----------------------------");
    write(title);
    let fpRate = Number.NaN;
    for (const mode of modes) {
      // Warm-up: let the JIT optimise both loops before either is timed.
      random.seed(flags.seed + seedOffset);
      randomQueryTest(ctx, threshold, false, mode, warmupQueries);
      random.seed(flags.seed + seedOffset);
      sink ^= randomQueryTest(ctx, threshold, true, mode, warmupQueries).sink;
      random.seed(flags.seed + seedOffset);
      const gross = randomQueryTest(ctx, threshold, false, mode);
      fpRate = averageFpRate(infos);
      random.seed(flags.seed + seedOffset);
      const dry = randomQueryTest(ctx, threshold, true, mode);
      sink ^= dry.sink;
      if (!flags.quick) {
        write(`    Dry run (${(dry.sink & 0xfffff).toString(16)}) ns/op: ${fmt(dry.nsPerOp)}`);
        write(`    Gross filter    ns/op: ${fmt(gross.nsPerOp)}`);
      }
      write(`  ${mode} net ns/op: ${fmt(gross.nsPerOp - dry.nsPerOp)}`);
    }
    write(`    Average FP rate %: ${fmt(100 * fpRate)}`);
  }
  write("----------------------------");
  const usage = process.resourceUsage();
  write(`Peak RSS (MB): ${fmt(usage.maxRSS / 1024)}`);
  write("  (maxRSS covers the whole process: all filters, the builder, V8 heap and code)");
  write(`Done. (sink ${(sink & 0xff).toString(16)})`);
}
