import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TABLE_TITLE } from "./table.js";
import {
  bench,
  draws,
  entries,
  expectParsableLines,
  found,
  foundAfterTombstones,
  tempDir,
} from "./test/helpers.js";

const PEERS = [
  "classic-level",
  "lmdb",
  "rocksdb",
  "memory-level",
  "shale-level",
  "better-sqlite3",
  "rocksdb-native",
];
const NUM = 300;
const SEED = 301;

describe("peer engines", () => {
  it("every peer loads and runs the same workloads with the same counts; the table compares them", async () => {
    const workloads = [
      "fillseq",
      "readrandom",
      "multireadrandom",
      "readseq",
      "readreverse",
      "seekrandom",
      "readwhilewriting",
      "deleterandom",
      "readrandom",
      "fillseekseq",
      "compact",
    ];
    const b = await bench([
      `--engines=shale,${PEERS.join(",")}`,
      `--benchmarks=${workloads.join(",")}`,
      `--num=${NUM}`,
    ]);
    expectParsableLines(b);
    const deleted = new Set(draws(SEED + 3, NUM, NUM));
    const survivors = draws(SEED + 2, NUM, NUM).filter((k) => !deleted.has(k)).length;
    for (const peer of PEERS) {
      expect(b.out).toContain(`--- ${peer} ---`);
      const r = b.results(peer);
      expect(r.map((x) => x.name)).toEqual(workloads);
      expect(r[0]!.ops).toBe(NUM);
      expect(found(r[1]!)).toEqual([NUM, NUM]);
      expect(found(r[2]!)).toEqual([NUM, NUM]);
      expect(entries(r[3]!)).toBe(NUM); // readseq sees num keys after fillseq
      expect(entries(r[4]!)).toBe(NUM);
      expect(found(r[5]!)).toEqual([NUM, NUM]);
      expect(r[6]!.message).toBe(`(${NUM} of ${NUM} found; ${NUM / 10} writes)`);
      expect(found(r[8]!)).toEqual([survivors, NUM]); // deleted keys are gone
      expect(r[9]!.message).toMatch(new RegExp(`; ${NUM} of ${NUM} keys visited\\)$`));
      if (peer === "classic-level" || peer === "shale-level" || peer === "rocksdb-native")
        expect(r[10]!.ops).toBe(1);
      else expect(r[10]!.na).toMatch(/compact|CompactRange/);
    }
    // Disk figures for the engines that have a disk; none for memory-level.
    expect(b.results("lmdb")[0]!.diskBytes).toBeGreaterThan(0);
    expect(b.results("rocksdb")[0]!.diskBytes).toBeGreaterThan(0);
    expect(b.results("better-sqlite3")[0]!.diskBytes).toBeGreaterThan(0);
    expect(b.results("rocksdb-native")[0]!.diskBytes).toBeGreaterThan(0);
    expect(b.results("memory-level")[0]!.diskBytes).toBeUndefined();

    const start = b.out.indexOf(TABLE_TITLE);
    expect(start).toBeGreaterThan(0);
    const table = b.out.slice(start + 1);
    expect(table[0]!.split(/\s+/)).toEqual(["workload", "shale", ...PEERS]);
    const fillseq = table
      .find((l) => l.startsWith("fillseq "))!
      .trim()
      .split(/\s{2,}/);
    expect(fillseq).toHaveLength(1 + 1 + PEERS.length);
    for (const cellText of fillseq.slice(2)) expect(cellText).toMatch(/^\d+ \(\d+\.\d\dx\)$/);
    expect(table.some((l) => l.startsWith("disk after fillseq (MB)"))).toBe(true);
    expect(table.some((l) => l.startsWith("compact ") && l.includes("n/a"))).toBe(true);
  });

  it("--cache_size=-1 runs every engine (each keeps its own default cache); shale says its size", async () => {
    const b = await bench([
      `--engines=shale,${PEERS.join(",")}`,
      "--benchmarks=fillseq,readrandom",
      "--num=200",
      "--cache_size=-1",
    ]);
    for (const engine of ["shale", ...PEERS])
      expect(found(b.results(engine)[1]!), engine).toEqual([200, 200]);
    expect(
      b.out.some((l) =>
        /note: shale: --cache_size=-1: shale's default block cache, \d+ MiB here/.test(l),
      ),
    ).toBe(true);
  });

  it("--db with several engines keeps one directory per engine, reused by --use_existing_db", async () => {
    const { dir, cleanup } = tempDir();
    try {
      await bench([
        "--engines=shale,lmdb,rocksdb",
        "--benchmarks=fillseq",
        "--num=500",
        `--db=${dir}`,
      ]);
      expect(readdirSync(dir).sort()).toEqual(["lmdb", "rocksdb", "shale"]);
      const again = await bench([
        "--engines=shale,lmdb,rocksdb",
        "--benchmarks=readrandom",
        "--num=500",
        `--db=${dir}`,
        "--use_existing_db",
      ]);
      for (const e of ["shale", "lmdb", "rocksdb"])
        expect(found(again.results(e)[0]!)).toEqual([500, 500]);
    } finally {
      cleanup();
    }
  });

  it("merges on rocksdb; range deletions on every peer give the same survivors", async () => {
    const m = await bench([
      "--engines=rocksdb",
      "--benchmarks=mergerandom,readrandommergerandom",
      "--merge_operator=uint64add",
      "--num=500",
      "--merge_keys=20",
    ]);
    expect(m.results("rocksdb")[1]!.message).toMatch(/hits:\d+ maxlength:8\)$/);
    const noMerge = await bench([
      "--engines=lmdb,classic-level,memory-level",
      "--benchmarks=mergerandom",
      "--merge_operator=max",
      "--num=10",
    ]);
    for (const e of ["lmdb", "classic-level", "memory-level"])
      expect(noMerge.results(e)[0]!.na).toMatch(/no merge operator/);

    const t = await bench([
      `--engines=shale,${PEERS.join(",")}`,
      "--benchmarks=fillrandom,readrandom",
      `--num=${NUM}`,
      "--writes_per_range_tombstone=50",
      "--max_num_range_tombstones=5",
      "--range_tombstone_width=20",
    ]);
    const tombstones = { num: NUM, every: 50, max: 5, width: 20, seed: SEED };
    const expected = foundAfterTombstones("random", tombstones);
    expect(expected).toBeLessThan(foundAfterTombstones("random", { ...tombstones, max: 0 }));
    for (const e of ["shale", ...PEERS]) {
      expect(t.results(e)[0]!.message).toBe("(5 range tombstones)");
      expect(found(t.results(e)[1]!)).toEqual([expected, NUM]);
    }
  });
});
