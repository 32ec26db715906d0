import { describe, expect, it } from "vitest";
import { ShaleEngine } from "./engines/shale.js";
import { parseFlags } from "./flags.js";
import { Stream } from "./generators.js";
import { runEngines } from "./runner.js";
import {
  bench,
  draws,
  entries,
  expectParsableLines,
  found,
  foundAfterTombstones,
  tempDir,
} from "./test/helpers.js";

const NUM = 2000;
const SEED = 301;

/** Whether this shale build has `feature` (the iterator and compactRange land separately). */
async function shaleLacks(feature: "iterator" | "compact"): Promise<string | undefined> {
  const { dir, cleanup } = tempDir();
  const engine = new ShaleEngine();
  try {
    await engine.open(dir, {
      sync: false,
      disableWal: false,
      writeBufferSize: 1 << 20,
      statistics: false,
      cacheSize: 1 << 20,
      bloomBits: -1,
      blockSize: 4096,
      compression: "snappy",
      mergeOperator: undefined,
      disableAutoCompactions: false,
    });
    return engine.unsupported(feature);
  } finally {
    await engine.close();
    cleanup();
  }
}

describe("db-bench on shale", () => {
  it("prints db_bench's header and one parsable line per workload with the right counts", async () => {
    const workloads = [
      "fillseq",
      "readrandom",
      "readmissing",
      "multireadrandom",
      "readseq",
      "readreverse",
      "seekrandom",
      "overwrite",
      "readwhilewriting",
      "deleteseq",
      "readrandom",
      "fillrandom",
      "deleterandom",
      "readrandom",
      "fillsync",
      "fill100K",
      "fillseekseq",
      "compact",
      "stats",
    ];
    const b = await bench([`--benchmarks=${workloads.join(",")}`, `--num=${NUM}`]);
    expect(b.out).toContain("Keys:       16 bytes each");
    expect(b.out).toContain("Values:     100 bytes each (50 bytes after compression)");
    expect(b.out).toContain(`Entries:    ${NUM}`);
    expect(b.out).toContain("Engines:    shale");
    expect(b.out.some((l) => /^Peak RSS: +\d+\.\d MB/.test(l))).toBe(true);
    expectParsableLines(b);
    const r = b.results("shale");
    expect(r.map((x) => x.name)).toEqual(workloads);
    const noIterator = await shaleLacks("iterator");
    const noCompact = await shaleLacks("compact");

    expect(r[0]!.ops).toBe(NUM);
    expect(r[0]!.diskBytes).toBeGreaterThan(0);
    expect(found(r[1]!)).toEqual([NUM, NUM]); // every key of fillseq is there
    expect(found(r[2]!)).toEqual([0, NUM]); // readmissing never finds
    expect(found(r[3]!)).toEqual([NUM, NUM]); // getMany finds them too
    if (noIterator !== undefined) {
      for (const i of [4, 5, 6, 16]) expect(r[i]!.na).toBe(noIterator);
    } else {
      expect(entries(r[4]!)).toBe(NUM); // readseq sees num keys after fillseq
      expect(entries(r[5]!)).toBe(NUM);
      expect(found(r[6]!)).toEqual([NUM, NUM]);
      expect(r[16]!.message).toMatch(new RegExp(`; ${NUM} of ${NUM} keys visited\\)$`));
    }
    expect(r[8]!.message).toBe(`(${NUM} of ${NUM} found; ${NUM / 10} writes)`);
    expect(r[8]!.ops).toBe(NUM + NUM / 10);
    expect(found(r[10]!)).toEqual([0, NUM]); // deleteseq removed every key
    // fillrandom (fresh) then deleterandom: found = reads of keys written and not deleted.
    const written = new Set(draws(SEED + 1, NUM, NUM));
    for (const k of draws(SEED + 3, NUM, NUM)) written.delete(k);
    const expected = draws(SEED + 2, NUM, NUM).filter((k) => written.has(k)).length;
    expect(found(r[13]!)).toEqual([expected, NUM]);
    expect(expected).toBeGreaterThan(0);
    expect(r[14]!.ops).toBe(NUM / 1000); // fillsync
    expect(r[15]!.ops).toBe(NUM / 1000); // fill100K
    expect(r[15]!.bytes).toBe((NUM / 1000) * (16 + 100_000));
    if (noCompact !== undefined) expect(r[17]!.na).toBe(noCompact);
    else expect(r[17]!.ops).toBe(1);
    expect(r[18]!.text).toMatch(/DB Stats/);
    expect(b.out).toContain("** shale stats **");
  });

  it("gives overwrite its own keys, as db_bench seeds each benchmark afresh", async () => {
    // db_bench's fillrandom then overwrite leave ~1 - 1/e^2 of num keys; replaying
    // fillrandom's draws would leave ~1 - 1/e (the fill's keys only).
    const r = (
      await bench(["--benchmarks=fillrandom,overwrite,readrandom", `--num=${NUM}`])
    ).results("shale");
    const written = new Set([
      ...draws(SEED + Stream.fill, NUM, NUM),
      ...draws(SEED + Stream.overwrite, NUM, NUM),
    ]);
    expect(written.size).toBeGreaterThan(0.8 * NUM);
    const expected = draws(SEED + Stream.read, NUM, NUM).filter((k) => written.has(k)).length;
    expect(found(r[2]!)).toEqual([expected, NUM]);
  });

  it("writes range tombstones in fills as db_bench does, ranged or expanded", async () => {
    // After put number w (past --writes_before_delete_range), every 100th put is followed by
    // a deletion of 40 keys from a key number the fill's own generator draws.
    const t = { num: NUM, every: 100, max: 5, width: 40, seed: SEED };
    const expected = foundAfterTombstones("random", t);
    expect(expected).toBeLessThan(foundAfterTombstones("random", { ...t, max: 0 }));
    const flags = [
      "--benchmarks=fillrandom,readrandom",
      `--num=${NUM}`,
      "--writes_per_range_tombstone=100",
      "--max_num_range_tombstones=5",
      "--range_tombstone_width=40",
    ];
    for (const extra of [[], ["--expand_range_tombstones"], ["--batch_size=64"]]) {
      const r = (await bench([...flags, ...extra])).results("shale");
      expect(r[0]!.message).toContain(
        extra[0] === "--expand_range_tombstones"
          ? "(5 range tombstones as 200 point deletes)"
          : "(5 range tombstones)",
      );
      expect(found(r[1]!)).toEqual([expected, NUM]);
    }
    // --writes_before_delete_range delays them: only 3 of the 5 fit in the last 300 puts.
    const late = await bench([...flags, "--writes_before_delete_range=1700"]);
    const lr = late.results("shale");
    expect(lr[0]!.message).toContain("(3 range tombstones)");
    expect(found(lr[1]!)).toEqual([foundAfterTombstones("random", { ...t, before: 1700 }), NUM]);
    // fillseq: the deletion starts at the next key number, so it covers keys not written
    // yet; the start key itself is never written (db_bench's generator skips it).
    const seq = (await bench(flags.map((f) => f.replace("fillrandom", "fillseq")))).results(
      "shale",
    );
    expect(found(seq[1]!)).toEqual([foundAfterTombstones("seq", t), NUM]);
  });

  it("batches writes with --batch_size, emits JSON with --json and percentiles with --histogram", async () => {
    const j = await bench([
      "--benchmarks=fillrandom,readrandom,deleteseq,readrandom",
      "--num=1000",
      "--batch_size=100",
      "--json",
    ]);
    const objs = j.out.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objs[0]).toEqual({ engine: "shale", notes: [] });
    const results = objs.filter((o) => "benchmark" in o);
    expect(results.map((o) => o.benchmark)).toEqual([
      "fillrandom",
      "readrandom",
      "deleteseq",
      "readrandom",
    ]);
    expect(results[0]!.message).toBe("(batches of 100)");
    expect(results[0]!.ops).toBe(1000);
    expect(results[0]!.diskBytes).toBeGreaterThan(0);
    expect(results[3]!.message).toBe("(0 of 1000 found)");
    expect(typeof objs[objs.length - 1]!.peakRssBytes).toBe("number");

    const h = await bench(["--benchmarks=fillseq,readrandom", "--num=500", "--histogram"]);
    const text = h.out.join("\n");
    expect(
      text.match(/Percentiles: P50: [\d.]+ P75: [\d.]+ P99: [\d.]+ P99.9: [\d.]+/g),
    ).toHaveLength(2);
    expect(text).toContain("Count: 500 Average:");
  });

  it("--tree_shape prints shale's files per level after each workload, in text and JSON", async () => {
    const b = await bench([
      "--benchmarks=fillrandom,compact,readrandom",
      "--num=3000",
      "--write_buffer_size=65536",
      "--tree_shape",
      "--json",
    ]);
    const results = b.out
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((o) => "benchmark" in o);
    const shapes = results.map((o) => o.filesPerLevel as number[]);
    expect(shapes).toHaveLength(3);
    // Small memtables: the fill leaves tables; compact leaves none in L0 and some below.
    expect(shapes[0]!.reduce((a, n) => a + n, 0)).toBeGreaterThan(0);
    expect(shapes[1]![0]).toBe(0);
    expect(shapes[1]!.slice(1).reduce((a, n) => a + n, 0)).toBeGreaterThan(0);
    expect(shapes[2]).toEqual(shapes[1]);

    const text = await bench(["--benchmarks=fillseq", "--num=500", "--tree_shape"]);
    expect(text.out.find((l) => l.startsWith("fillseq"))).toMatch(/\(tree L0=\d+( L\d=\d+)*\)$/);
    const off = await bench(["--benchmarks=fillseq", "--num=500"]);
    expect(off.out.join("\n")).not.toContain("(tree ");
  });

  it("--compaction_style=1|2 runs shale universal or FIFO (tree shapes show it)", async () => {
    const shapesOf = async (style: number) => {
      const b = await bench([
        "--benchmarks=fillrandom,compact",
        "--num=3000",
        "--write_buffer_size=65536",
        `--compaction_style=${style}`,
        "--tree_shape",
        "--json",
      ]);
      return b.out
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((o) => "benchmark" in o)
        .map((o) => o.filesPerLevel as number[]);
    };
    // Universal: compact puts every table into the last level.
    const universal = await shapesOf(1);
    const last = universal[1]!;
    expect(last.slice(0, 6).reduce((a, n) => a + n, 0)).toBe(0);
    expect(last[6]).toBeGreaterThan(0);
    // FIFO: every table stays in L0.
    const fifo = await shapesOf(2);
    for (const shape of fifo) {
      expect(shape[0]).toBeGreaterThan(0);
      expect(shape.slice(1).reduce((a, n) => a + n, 0)).toBe(0);
    }
  });

  it("fillsync fsyncs each of its writes; the workload after it does not", async () => {
    // --statistics covers the engine's whole run (one Statistics across reopens).
    const walSyncs = (text: string | undefined) =>
      Number(/WalSyncs COUNT : (\d+)/.exec(text ?? "")![1]);
    const b = await bench(["--benchmarks=fillsync,overwrite,stats", "--num=3000", "--statistics"]);
    const [fillsync, overwrite, stats] = b.results("shale");
    expect(fillsync!.ops).toBe(3);
    expect(overwrite!.ops).toBe(3000);
    expect(walSyncs(stats!.text)).toBe(3);
    expect(stats!.text).toMatch(/KeysWritten COUNT : 3003/);
  });

  it("refuses to delete a non-empty --db that holds no database", async () => {
    const { dir, cleanup } = tempDir();
    try {
      const { writeFileSync } = await import("node:fs");
      writeFileSync(`${dir}/precious.txt`, "keep me");
      await expect(
        runEngines(parseFlags(["--benchmarks=fillseq", "--num=10", `--db=${dir}`]), dir, {
          engineStart() {},
          result() {},
        }),
      ).rejects.toThrow(/refusing to delete/);
    } finally {
      cleanup();
    }
  });
});
