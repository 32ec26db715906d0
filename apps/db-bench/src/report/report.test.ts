// db-bench --report: the page is well-formed HTML, self-contained (no network), and holds
// one series per engine of the run in every chart the engines can fill; uPlot draws them
// in a headless browser when one is installed.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type DefaultTreeAdapterMap, parse } from "parse5";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bench, tempDir } from "../test/helpers.js";
import type { Chart } from "./charts.js";
import { MEASURES } from "./charts.js";

type Node = DefaultTreeAdapterMap["node"];
type Element = DefaultTreeAdapterMap["element"];

function elements(node: Node, out: Element[] = []): Element[] {
  if ("tagName" in node) out.push(node as Element);
  const children = "childNodes" in node ? node.childNodes : [];
  for (const c of children) elements(c as Node, out);
  if ("content" in node && node.content !== undefined) elements(node.content as Node, out);
  return out;
}

function textOf(e: Element): string {
  return e.childNodes.map((c) => ("value" in c ? (c as { value: string }).value : "")).join("");
}

interface ReportData {
  engines: string[];
  charts: Chart[];
  workloads: Record<string, { name: string; start: number; end: number }[]>;
}

function readReport(file: string): {
  html: string;
  errors: string[];
  all: Element[];
  data: ReportData;
} {
  const html = readFileSync(file, "utf8");
  const errors: string[] = [];
  const doc = parse(html, { onParseError: (e) => errors.push(`${e.code} at line ${e.startLine}`) });
  const all = elements(doc as unknown as Node);
  const dataScript = all.find(
    (e) =>
      e.tagName === "script" && e.attrs.some((a) => a.name === "id" && a.value === "report-data"),
  )!;
  return { html, errors, all, data: JSON.parse(textOf(dataScript)) as ReportData };
}

const work = tempDir();
afterAll(() => work.cleanup());

const ENGINES = ["shale", "lmdb", "memory-level"];
let file: string;
beforeAll(async () => {
  file = join(work.dir, "report.html");
  await bench([
    `--engines=${ENGINES.join(",")}`,
    "--benchmarks=fillrandom,readrandom",
    "--num=30000",
    "--write_buffer_size=262144",
    `--report=${file}`,
  ]);
});

describe("--report", () => {
  it("writes well-formed, self-contained HTML", () => {
    const { html, errors, all } = readReport(file);
    expect(errors).toEqual([]);
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    // Nothing is fetched: no src/href attributes, no link elements, and uPlot is inlined.
    const external = all.filter((e) => e.attrs.some((a) => a.name === "src" || a.name === "href"));
    expect(external.map((e) => e.tagName)).toEqual([]);
    expect(all.some((e) => e.tagName === "link")).toBe(false);
    const scripts = all.filter((e) => e.tagName === "script").map(textOf);
    expect(scripts.some((s) => s.includes("uPlot") && s.length > 40_000)).toBe(true);
    expect(
      all
        .filter((e) => e.tagName === "style")
        .map(textOf)
        .join(""),
    ).toContain(".uplot");
  });

  it("holds one series per engine in each chart, and says which engine lacks a measure", () => {
    const { data, all } = readReport(file);
    expect(data.engines).toEqual(ENGINES);
    expect(data.charts.map((c) => c.id)).toEqual(MEASURES.map((m) => m.id));
    const chart = (id: string) => data.charts.find((c) => c.id === id)!;
    // Throughput and p99 come from the workloads themselves: every engine has them.
    for (const id of ["ops", "p99"]) {
      expect(chart(id).series.map((s) => s.engine)).toEqual(ENGINES);
      for (const s of chart(id).series) {
        expect(s.x.length).toBe(s.y.length);
        expect(s.y.filter((v) => v !== null && v > 0).length).toBeGreaterThan(0);
        for (let i = 1; i < s.x.length; i++) expect(s.x[i]!).toBeGreaterThanOrEqual(s.x[i - 1]!);
      }
    }
    // The engine internals: shale tells them, lmdb and memory-level do not.
    for (const id of ["l0", "memtables", "compaction", "stalls"]) {
      expect(chart(id).series.map((s) => s.engine)).toEqual(["shale"]);
      expect(chart(id).missing).toEqual(["lmdb", "memory-level"]);
    }
    // A 256 KiB write buffer over 30,000 x 116 B fills flushes: L0 files show up.
    expect(Math.max(...chart("l0").series[0]!.y.map((v) => v ?? 0))).toBeGreaterThan(0);
    for (const e of ENGINES)
      expect(data.workloads[e]!.map((w) => w.name)).toEqual(["fillrandom", "readrandom"]);
    for (const c of data.charts)
      expect(
        all.some((e) => e.attrs.some((a) => a.name === "id" && a.value === `chart-${c.id}`)),
      ).toBe(true);
    // The results table has a row per workload, a column per engine.
    const rows = all.filter((e) => e.tagName === "tr");
    expect(rows.length).toBe(3);
  });

  it.skipIf(spawnSync("chromium", ["--version"]).status !== 0)(
    "renders a uPlot chart per chart in headless Chromium",
    () => {
      const r = spawnSync(
        "chromium",
        [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--window-size=1280,2000",
          "--dump-dom",
          `file://${file}`,
        ],
        { encoding: "utf8", timeout: 60_000 },
      );
      expect(r.status, r.stderr).toBe(0);
      const plots = r.stdout.match(/<div class="uplot/g) ?? [];
      expect(plots.length).toBe(MEASURES.length);
      expect((r.stdout.match(/<canvas/g) ?? []).length).toBe(MEASURES.length);
    },
  );

  it("gets the children's series with --isolate", async () => {
    const isolated = join(work.dir, "isolated.html");
    await bench([
      "--isolate",
      "--engines=shale,memory-level",
      "--benchmarks=fillseq",
      "--num=2000",
      `--report=${isolated}`,
    ]);
    const { errors, data } = readReport(isolated);
    expect(errors).toEqual([]);
    expect(data.charts.find((c) => c.id === "ops")!.series.map((s) => s.engine)).toEqual([
      "shale",
      "memory-level",
    ]);
  });
});
