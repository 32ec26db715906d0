import { describe, expect, it } from "vitest";
import { median, parseResult, SUMMARY_METRICS } from "./compare.js";
import { defaultFlags, parseFlags, toArgs } from "./flags.js";
import { main } from "./main.js";

const tiny = [
  "--average_keys_per_filter=300",
  "--working_mem_size_mb=0.02",
  "--m_queries=0.004",
  "--seed=7",
];

async function run(argv: string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const runChild = async (args: string[]) => {
    const child: string[] = [];
    const code = await main(args, { write: (l) => child.push(l) });
    expect(code).toBe(0);
    return `${child.join("\n")}\n`;
  };
  const code = await main(argv, {
    write: (l) => lines.push(l),
    writeError: (l) => lines.push(l),
    runChild,
  });
  return { code, lines };
}

describe("flags", () => {
  it("has RocksDB-like defaults", () => {
    expect(parseFlags([])).toEqual(defaultFlags);
    expect(defaultFlags).toMatchObject({
      averageKeysPerFilter: 10000,
      workingMemSizeMb: 200,
      bitsPerKey: 10,
      keySize: 16,
      mQueries: 20,
      batchSize: 8,
      builder: "both",
      quick: false,
    });
  });

  it("accepts gflags spellings and round-trips through toArgs", () => {
    const f = parseFlags([
      "-quick",
      "--bits_per_key",
      "12",
      "--builder=doubling",
      "--nonet_includes_hashing",
      "--batch_size=32",
    ]);
    expect(f.batchSize).toBe(32);
    expect([f.quick, f.bitsPerKey, f.builder, f.netIncludesHashing]).toEqual([
      true,
      12,
      "doubling",
      false,
    ]);
    expect(parseFlags(["--quick=false"]).quick).toBe(false);
    // Large filters: fewer queries by default, unless asked for.
    expect(parseFlags(["--average_keys_per_filter=6000000"]).mQueries).toBe(5);
    expect(parseFlags(["--average_keys_per_filter=6000000", "--m_queries=20"]).mQueries).toBe(20);
    expect(parseFlags(toArgs(f))).toEqual(f);
  });

  it("rejects unknown flags and bad values", () => {
    expect(() => parseFlags(["--bogus=1"])).toThrow(/unknown flag/);
    expect(() => parseFlags(["--builder=vector"])).toThrow(/builder/);
    expect(() => parseFlags(["--impl=cuckoo"])).toThrow(/impl/);
    expect(parseFlags(["--impl=ribbon"]).impl).toBe("ribbon");
    expect(() => parseFlags(["--key_size=4"])).toThrow(/key_size/);
    expect(() => parseFlags(["--m_queries=abc"])).toThrow(/number/);
    expect(() => parseFlags(["--seed"])).toThrow(/needs a value/);
    expect(() => parseFlags(["--batch_size=0"])).toThrow(/batch_size/);
    expect(() => parseFlags(["--batch_size=2.5"])).toThrow(/batch_size/);
  });
});

describe("filter-bench CLI (in-process, tiny sizes)", () => {
  it("runs one builder and prints RocksDB-style figures that parse", async () => {
    const { code, lines } = await run([...tiny, "--builder=chunked"]);
    expect(code).toBe(0);
    const output = lines.join("\n");
    expect(output).toContain("No FNs :)");
    const r = parseResult(output);
    for (const name of [
      "Build avg ns/key",
      "Number of filters",
      "Total size (MB)",
      "Bits/key stored",
      "Predicted FP rate %",
      "Prelim FP rate %",
      "Single filter net ns/op",
      "Batched, prepared net ns/op",
      "Batched, unprepared net ns/op",
      "Random filter net ns/op",
      "Peak RSS (MB)",
    ]) {
      expect(Number.isFinite(r.get(name)), name).toBe(true);
    }
    expect(r.get("Build avg ns/key")).toBeGreaterThan(0);
    expect(r.get("Number of filters")).toBeGreaterThan(10);
    expect(r.get("Bits/key stored")).toBeGreaterThanOrEqual(10);
    expect(r.get("Predicted FP rate %")).toBeGreaterThan(0.5);
    expect(r.get("Predicted FP rate %")).toBeLessThan(2);
    expect(r.get("Peak RSS (MB)")).toBeGreaterThan(1);
    expect(output).toMatch(/Inside queries \(mostly\)/);
    expect(output).toMatch(/Outside queries \(mostly\)/);
  });

  it("queries in batches of --batch_size (an inside key answered 'no' throws)", async () => {
    for (const batchSize of [1, 3, 40]) {
      const { code, lines } = await run([
        ...tiny,
        "--builder=chunked",
        `--batch_size=${batchSize}`,
      ]);
      expect(code).toBe(0);
      const output = lines.join("\n");
      expect(output).toContain(`batch_size ${batchSize},`);
      const r = parseResult(output);
      expect(Number.isFinite(r.get("Batched, prepared net ns/op"))).toBe(true);
      expect(Number.isFinite(r.get("Batched, unprepared net ns/op"))).toBe(true);
    }
  });

  it("runs both builders as children and prints a side-by-side summary", async () => {
    const { code, lines } = await run([...tiny, "--quick", "--runs=2"]);
    expect(code).toBe(0);
    const starts = lines.filter((l) => l.startsWith("=== builder="));
    expect(starts).toEqual([
      "=== builder=chunked, run 1 of 2 (child process) ===",
      "=== builder=doubling, run 1 of 2 (child process) ===",
      "=== builder=chunked, run 2 of 2 (child process) ===",
      "=== builder=doubling, run 2 of 2 (child process) ===",
    ]);
    const summary = lines.slice(lines.findIndex((l) => l.startsWith("=== Summary")));
    expect(summary[0]).toBe("=== Summary: median of 2 runs per builder ===");
    expect(summary[1]).toMatch(/chunked\s+doubling$/);
    const row = (name: string) => summary.find((l) => l.startsWith(`${name}:`));
    // Same seed, same keys: identical sizes for both builders.
    const filters = row("Number of filters")!.split(/\s+/).slice(-2);
    expect(filters[0]).toBe(filters[1]);
    expect(row("Build avg ns/key")).toBeDefined();
    expect(row("Peak RSS (MB)")).toBeDefined();
    expect(row("Prelim FP rate %")).toBeUndefined(); // --quick skips verification
    expect(SUMMARY_METRICS.length).toBeGreaterThan(5);
  });

  it("prints usage with --help and fails on bad flags", async () => {
    const { code, lines } = await run(["--help"]);
    expect(code).toBe(0);
    expect(lines.join("\n")).toMatch(/--average_keys_per_filter/);
    const bad = await run(["--builder=nope"]);
    expect(bad.code).toBe(2);
    expect(bad.lines).toEqual(["--builder must be chunked, doubling or both, got nope"]);
  });
});

describe("summary helpers", () => {
  it("parses 'Name: value' lines, keeping the first occurrence", () => {
    const r = parseResult(
      "Build avg ns/key: 41.5\n  Single filter net ns/op: 12\n  Single filter net ns/op: 99\nfoo",
    );
    expect(r.get("Build avg ns/key")).toBe(41.5);
    expect(r.get("Single filter net ns/op")).toBe(12);
  });

  it("takes medians, ignoring NaN", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([Number.NaN, 5])).toBe(5);
    expect(median([])).toBeNaN();
  });
});
