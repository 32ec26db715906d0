import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_BENCHMARKS,
  DEFAULT_COMPARISON,
  defaultFlags,
  ENGINE_NAMES,
  FlagError,
  helpText,
  parseFlags,
} from "./flags.js";
import { flagsToArgv } from "./isolate.js";
import { run } from "./main.js";

const reject = (args: string[], message: RegExp) => expect(() => parseFlags(args)).toThrow(message);

describe("flags", () => {
  it("parses db_bench's forms and applies the documented defaults", () => {
    const f = parseFlags([]);
    expect(f).toEqual(defaultFlags());
    expect(f.engines).toEqual(["shale"]);
    expect(f.seekNexts).toBe(10);
    expect(f.multireadBatchSize).toBe(100);
    // db_bench's multireadrandom reads --batch_size keys per MultiGet.
    expect(parseFlags(["--batch_size=32"]).multireadBatchSize).toBe(32);
    expect(parseFlags(["--batch_size=32", "--multiread_batch_size=8"]).multireadBatchSize).toBe(8);
    expect(f.mergeReadPercent).toBe(70);
    expect(f.rangeTombstoneWidth).toBe(100);
    expect(f.cacheSize).toBe(32 * 1024 * 1024);
    expect(parseFlags(["--cache_size=-1"]).cacheSize).toBe(-1);
    expect(parseFlags(["--nosync"]).sync).toBe(false);
    expect(parseFlags(["--sync"]).sync).toBe(true);
    expect(parseFlags(["--sync=false"]).sync).toBe(false);
    expect(parseFlags(["--num", "42"]).num).toBe(42);
    expect(parseFlags(["--engines=lmdb,rocksdb"]).engines).toEqual(["lmdb", "rocksdb"]);
    const d = parseFlags(DEFAULT_COMPARISON);
    expect(d.engines).toEqual(["shale", "classic-level", "lmdb"]);
    expect(d.num).toBe(100_000);
    expect(d.benchmarks).toEqual(DEFAULT_BENCHMARKS);
    expect(helpText()).toContain("--writes_per_range_tombstone");
    expect(f.memtableBloomSizeRatio).toBe(0);
    const bloom = parseFlags(["--memtable_bloom_size_ratio=0.1", "--memtable_whole_key_filtering"]);
    expect(bloom.memtableBloomSizeRatio).toBe(0.1);
    expect(bloom.memtableWholeKeyFiltering).toBe(true);
    expect(f.avoidFlushDuringRecovery).toBe(true);
    expect(parseFlags(["--avoid_flush_during_recovery=false"]).avoidFlushDuringRecovery).toBe(
      false,
    );
    reject(["--memtable_bloom_size_ratio=2"], /memtable_bloom_size_ratio must be in \[0, 1\]/);
  });

  it("rejects bad flags with a message that says what is wrong", () => {
    reject(["--nmu=5"], /unknown flag --nmu/);
    reject(["--num=abc"], /--num must be an integer/);
    reject(["--num="], /--num must be an integer/);
    reject(["--num=0"], /--num must be positive/);
    reject(["--cache_size=-2"], /--cache_size must be -1 \(engine default\) or >= 0/);
    reject(["--key_size=4"], /--key_size/);
    reject(["--sync=maybe"], /true or false/);
    reject(["--prepopulate_block_cache=kFlushOnly"], /--prepopulate_block_cache must be disable/);
    reject(["--threads=0"], /--threads must be an integer in \[1, 64\]/);
    reject(["--threads=65"], /--threads must be an integer in \[1, 64\]/);
    reject(["--engines=shale,leveldown"], /unknown engine "leveldown"/);
    reject(["--engines=shale,shale"], /twice/);
    reject(["--compression_type=lz4"], /none or snappy/);
    reject(["--merge_operator=sum"], /--merge_operator must be one of/);
    reject(["--sync", "--disable_wal"], /cannot be combined/);
    reject(["--writes_per_range_tombstone=10"], /--max_num_range_tombstones > 0/);
    reject(["--mergereadpercent=101"], /\[0, 100\]/);
    reject(["--compression_ratio=0"], /\(0, 1\]/);
    reject(["--use_existing_db"], /needs --db/);
    reject(["positional"], /unexpected argument/);
    reject(["--num"], /needs a value/);
    reject(["--num_column_families=0"], /\[1, 1000\]/);
    reject(
      ["--compaction_style=3"],
      /--compaction_style must be 0 \(leveled\), 1 \(universal\) or 2 \(FIFO\)/,
    );
    reject(["--fifo_compaction_max_table_files_size_mb=-1"], /must be >= 0/);
  });

  it("rejects unknown workloads, merges without an operator and fills on an existing db", async () => {
    const quiet = () => {};
    await expect(run(["--benchmarks=nope"], quiet)).rejects.toThrow(FlagError);
    await expect(run(["--benchmarks=mergerandom"], quiet)).rejects.toThrow(
      /needs --merge_operator/,
    );
    await expect(
      run(["--benchmarks=fillseq", "--use_existing_db", "--db=/tmp/x"], quiet),
    ).rejects.toThrow(/fresh database/);
  });

  it("round-trips through argv (what --isolate hands its children)", () => {
    const arbitraryFlags = fc.record({
      num: fc.integer({ min: 1, max: 1e7 }),
      engines: fc.subarray(ENGINE_NAMES, { minLength: 1 }),
      seekNexts: fc.integer({ min: 0, max: 100 }),
      sync: fc.boolean(),
      compressionType: fc.constantFrom("none", "snappy"),
      mergeOperator: fc.constantFrom("", "max", "uint64add", "stringappend"),
      compressionRatio: fc.double({ min: 0.01, max: 1, noNaN: true }),
      prepopulateBlockCache: fc.constantFrom("disable", "flush_only", "flush_and_compaction"),
      db: fc.option(fc.constantFrom("/tmp/a b", "/tmp/x=y"), { nil: undefined }),
    });
    fc.assert(
      fc.property(arbitraryFlags, (partial) => {
        const f = { ...defaultFlags(), ...partial };
        expect(parseFlags(flagsToArgv(f))).toEqual(f);
      }),
    );
  });
});
