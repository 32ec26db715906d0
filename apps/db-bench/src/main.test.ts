import { describe, expect, it } from "vitest";
import { FlagError, parseFlags } from "./flags.js";
import { run } from "./main.js";

const LINE =
  /^(\S+)\s+:\s+(\d+\.\d{3}) micros\/op (\d+) ops\/sec;(?:\s+(\d+\.\d) MB\/s)?(?: \((\d+) of (\d+) found\))?/;

async function bench(args: string[]) {
  const out: string[] = [];
  await run(args, (s) => out.push(s));
  const lines = out.join("\n").split("\n");
  return {
    out: lines,
    rows: lines.map((l) => LINE.exec(l)).filter((m): m is RegExpExecArray => m !== null),
  };
}

describe("db-bench", () => {
  it("prints db_bench's header and one parsable line per workload with the right counts", async () => {
    const { out, rows } = await bench([
      "--benchmarks=fillseq,readrandom,readmissing,overwrite,fillsync,deleterandom,readrandom,fillrandom,readrandom",
      "--num=2000",
    ]);
    expect(out[0]).toBe("Keys:       16 bytes each");
    expect(out[1]).toBe("Values:     100 bytes each (50 bytes after compression)");
    expect(out[2]).toBe("Entries:    2000");
    expect(rows.map((r) => r[1])).toEqual([
      "fillseq",
      "readrandom",
      "readmissing",
      "overwrite",
      "fillsync",
      "deleterandom",
      "readrandom",
      "fillrandom",
      "readrandom",
    ]);
    const found = (i: number) => [Number(rows[i]![5]), Number(rows[i]![6])];
    expect(found(1)).toEqual([2000, 2000]); // every key of fillseq is there
    expect(found(2)).toEqual([0, 2000]); // readmissing never finds
    // fillsync starts a fresh db with num/1000 keys; deleterandom then removes what it hits.
    expect(found(6)[0]).toBe(0);
    // fillrandom draws keys with replacement: about 1 - 1/e of the key space exists.
    expect(found(8)[0]).toBeGreaterThan(1000);
    expect(found(8)[0]).toBeLessThan(1500);
    for (const r of rows) expect(Number(r[2])).toBeGreaterThan(0);
  });

  it("batches writes with --batch_size and emits JSON with --json", async () => {
    const { out } = await bench([
      "--benchmarks=fillrandom,readrandom",
      "--num=1000",
      "--batch_size=100",
      "--json",
    ]);
    const objs = out.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
    expect(objs.map((o) => o.benchmark)).toEqual(["fillrandom", "readrandom"]);
    expect(objs[0].message).toBe("(batches of 100)");
    expect(objs[0].ops).toBe(1000);
  });

  it("prints percentiles with --histogram", async () => {
    const { out } = await bench(["--benchmarks=fillseq", "--num=500", "--histogram"]);
    expect(out.join("\n")).toMatch(/Percentiles: P50: [\d.]+ P75: [\d.]+ P99: [\d.]+/);
  });

  it("rejects unknown flags, benchmarks and fill workloads on an existing db", async () => {
    expect(() => parseFlags(["--nmu=5"])).toThrow(FlagError);
    expect(() => parseFlags(["--num=abc"])).toThrow(FlagError);
    expect(parseFlags(["--nosync"]).sync).toBe(false);
    expect(parseFlags(["--sync"]).sync).toBe(true);
    await expect(run(["--benchmarks=nope"], () => {})).rejects.toThrow(FlagError);
    await expect(
      run(["--benchmarks=fillseq", "--use_existing_db", "--db=/tmp/x"], () => {}),
    ).rejects.toThrow(/fresh database/);
  });
});
