import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Args } from "./args.js";
import { median, rotated, withSpread } from "./measure.js";

const script = fileURLToPath(new URL("../dist/main.js", import.meta.url));

/** Runs the built CLI (turbo builds before testing) and returns its output lines. */
function run(args: string[]): { status: number | null; lines: string[]; stderr: string } {
  if (!existsSync(script)) throw new Error(`build the app first: ${script} is missing`);
  const r = spawnSync(process.execPath, ["--expose-gc", script, ...args], {
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: r.status, lines: r.stdout.split("\n"), stderr: r.stderr };
}

/** The cells of the table row starting with `| label`. */
function row(lines: string[], label: string): string[] {
  const line = lines.find((l) => l.startsWith(`| ${label} |`));
  if (line === undefined) throw new Error(`no row ${label} in:\n${lines.join("\n")}`);
  return line
    .split("|")
    .slice(2, -1)
    .map((c) => c.trim());
}

const leading = (cell: string): number => Number.parseFloat(cell);

describe("flags", () => {
  it("parses numbers, lists and names, and rejects what a flag does not take", () => {
    const a = new Args(
      ["--keys=10", "--sizes=1,2", "--only=a,b", "--quick"],
      ["keys", "sizes", "only", "quick", "rounds"],
    );
    expect(a.number("keys", 5)).toBe(10);
    expect(a.number("rounds", 5)).toBe(5);
    expect(a.numbers("sizes", [])).toEqual([1, 2]);
    expect(a.names("only", ["a", "b", "c"])).toEqual(["a", "b"]);
    expect(a.flag("quick")).toBe(true);
    expect(() => new Args(["--bogus=1"], ["keys"])).toThrow(/unknown flag --bogus/);
    expect(() => new Args(["keys"], ["keys"])).toThrow(/unexpected argument/);
    expect(() => new Args(["--keys=x"], ["keys"]).number("keys", 1)).toThrow(/positive number/);
    expect(() => new Args(["--keys=-3"], ["keys"]).number("keys", 1)).toThrow(/positive number/);
    expect(() => new Args(["--sizes=1,,2"], ["sizes"]).numbers("sizes", [])).toThrow(/sizes/);
    expect(() => new Args(["--only=z"], ["only"]).names("only", ["a"])).toThrow(/not one of/);
    expect(() => new Args(["--quick=maybe"], ["quick"]).flag("quick")).toThrow(/quick/);
  });

  it("takes medians and spreads, and rotates the order per round", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
    expect(withSpread([2, 1, 30])).toBe("2.00 (1.00-30.0)");
    expect(rotated(["a", "b", "c"], 1)).toEqual(["b", "c", "a"]);
  });
});

describe("component-bench (the built CLI, small sizes)", () => {
  it("runs the block cache beside lru-cache and quick-lru", () => {
    const r = run(["cache", "--quick", "--keys=10000", "--requests=20000", "--rounds=1"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.lines[1]).toMatch(/lru-cache 11\.\d+\.\d+, quick-lru 7\.\d+\.\d+/);
    for (const label of [
      "@shale/block-cache",
      "@shale/block-cache (numShardBits 0)",
      "@shale/block-cache (hits pinned: `lookup` + `release`)",
      "lru-cache 11.5.3 (`maxSize` + `sizeCalculation`)",
      "lru-cache 11.5.3 (`max`)",
    ]) {
      const cells = row(r.lines, label);
      expect(cells).toHaveLength(5);
      expect(leading(cells[0]!)).toBeGreaterThan(0); // bytes per entry (run with --expose-gc)
      // Uniform keys over a cache with room for 30 % of them: about 30 % hits.
      const hitRates = cells[4]!.split("/").map(leading);
      expect(hitRates[1]).toBeGreaterThan(25);
      expect(hitRates[1]).toBeLessThan(35);
      expect(hitRates[0]).toBeGreaterThan(hitRates[1]!); // Zipf: the hot keys stay
    }
  });

  it("runs the memtable beside sorted-btree, js-sdsl (both also storing copies) and functional-red-black-tree", () => {
    const r = run([
      "memtable",
      "--quick",
      "--sizes=500",
      "--rounds=1",
      "--create=0",
      "--keys=random,sequential",
    ]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.lines.filter((l) => l.startsWith("### 500 entries"))).toEqual([
      "### 500 entries, random keys",
      "### 500 entries, sequential keys",
    ]);
    const cells = row(r.lines, "sorted-btree 2.1.0");
    expect(cells).toHaveLength(8);
    expect(cells[6]).toBe("-"); // --create=0
    for (const i of [0, 1, 2, 3, 4, 5, 7]) expect(leading(cells[i]!)).toBeGreaterThan(0);
    expect(row(r.lines, "@shale/memtable (scans in place)")[0]).toMatch(/^\d/);
    expect(row(r.lines, "functional-red-black-tree 1.0.1")[0]).toMatch(/^\d/);
    expect(row(r.lines, "@js-sdsl/ordered-map 4.4.2")[0]).toMatch(/^\d/);
    expect(row(r.lines, "shale / best peer")[0]).toMatch(/^\d.*x /);
    // The peers that store copies of the keys and values, as the memtable does.
    expect(leading(row(r.lines, "sorted-btree 2.1.0 (stores copies)")[0]!)).toBeGreaterThan(0);
    expect(leading(row(r.lines, "@js-sdsl/ordered-map 4.4.2 (stores copies)")[0]!)).toBeGreaterThan(
      0,
    );
    const copying = row(r.lines, "shale / best copying peer");
    expect(copying[0]).toMatch(/^\d.*x (sorted-btree|js-sdsl)\+copy$/);
    // The reference-keeping row names no copying peer.
    expect(row(r.lines, "shale / best peer").join(" ")).not.toMatch(/\+copy/);
    expect(copying.join(" ")).not.toMatch(/\+kv/);
    // The copying peers whose scans hand out a key copy and a value view, as key()/value().
    expect(
      leading(row(r.lines, "sorted-btree 2.1.0 (stores copies; scans copy keys, view values)")[1]!),
    ).toBeGreaterThan(0);
    const handingOut = row(r.lines, "shale / best copying peer scanning as key()/value()");
    expect(handingOut[1]).toMatch(/^\d.*x (sorted-btree|js-sdsl)\+copy\+kv$/);
    // Only the key()/value() scans are compared with them.
    expect(r.lines.some((l) => l.startsWith("| shale-offsets / best copying peer scanning"))).toBe(
      false,
    );
  });

  it("runs the Bloom filter beside bloomfilter and bloom-filters, with the FP table", () => {
    const r = run(["bloom", "--quick", "--sizes=5000", "--queries=5000", "--fp-keys=5000"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const shale = row(r.lines, "@shale/bloom");
    expect(shale[3]).toBe("6,277 (10.04)"); // 98 lines of 64 bytes + 5 metadata bytes
    const fp = leading(shale[4]!);
    expect(fp).toBeGreaterThan(0.2); // about 0.95 % at 10 bits/key
    expect(fp).toBeLessThan(2.5);
    expect(row(r.lines, "bloomfilter 1.1.0")[3]).toMatch(/\(10\.\d\d\)$/);
    expect(row(r.lines, "bloom-filters 3.0.4")[3]).toMatch(/\(10\.\d\d\)$/);
    // The FP table: probes and the matching fractional setting at each bits/key.
    expect(row(r.lines, "10")[0]).toBe("6");
    expect(leading(row(r.lines, "10").at(-1)!)).toBeGreaterThan(10);
    expect(leading(row(r.lines, "20")[0]!)).toBe(11);
  });

  it("prints usage, and fails on an unknown component or flag", () => {
    expect(run(["--help"]).lines[0]).toMatch(/^usage: component-bench/);
    const bad = run(["cache", "--bogus=1"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown flag --bogus/);
    const unknown = run(["lsm"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/unknown component lsm/);
  });
});
