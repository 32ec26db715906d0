/**
 * db-bench --report: one self-contained HTML page — uPlot's script and stylesheet inlined
 * from node_modules, the data inlined as JSON, no network access — with a chart per measure
 * (charts.ts) holding a line per engine, workload boundaries marked, and the run's result
 * table below.
 *
 * ```
 * <!DOCTYPE html> <html> <head> <style>uPlot.min.css + ours</style> </head>
 * <body> header, <div class="chart" id="chart-ops"> ... per chart, results table
 *   <script type="application/json" id="report-data">{"charts":[...],"workloads":{...}}</script>
 *   <script>uPlot.iife.min.js</script> <script>our 60 lines: join the series, plot</script>
 * </body> </html>
 * ```
 * The JSON is escaped (`<` as \u003c) so no text in it can close its script element.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { type BenchResult, formatMB, microsPerOp, opsPerSec } from "../report.js";
import { buildCharts } from "./charts.js";
import type { EngineSeries } from "./sampler.js";

export interface ReportInput {
  title: string;
  /** The run's header (date, CPU, flags), shown as is. */
  header: string;
  series: readonly EngineSeries[];
  results: readonly { engine: string; results: readonly BenchResult[] }[];
}

/** Engine colours, in run order. */
export const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2"];

function escapeHtml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function uPlotAssets(): { js: string; css: string } {
  const require = createRequire(import.meta.url);
  const js = readFileSync(require.resolve("uplot/dist/uPlot.iife.min.js"), "utf8");
  const css = readFileSync(require.resolve("uplot/dist/uPlot.min.css"), "utf8");
  return { js, css };
}

function resultsTable(input: ReportInput): string {
  const names: string[] = [];
  for (const e of input.results)
    for (const r of e.results) if (!names.includes(r.name)) names.push(r.name);
  const cell = (r: BenchResult | undefined) => {
    if (r === undefined) return "<td></td>";
    if (r.na !== undefined) return `<td title="${escapeHtml(r.na)}">n/a</td>`;
    if (r.failed !== undefined)
      return `<td class="failed" title="${escapeHtml(r.failed)}">FAILED</td>`;
    if (r.text !== undefined) return "<td>(text)</td>";
    return `<td>${Math.round(opsPerSec(r)).toLocaleString("en-US")} ops/s<br><small>${microsPerOp(r).toFixed(3)} µs/op${r.diskBytes !== undefined ? `, disk ${formatMB(r.diskBytes)} MB` : ""}</small></td>`;
  };
  const head = input.results.map((e) => `<th>${escapeHtml(e.engine)}</th>`).join("");
  const rows = names
    .map(
      (n) =>
        `<tr><th>${escapeHtml(n)}</th>${input.results.map((e) => cell(e.results.find((r) => r.name === n))).join("")}</tr>`,
    )
    .join("\n");
  return `<table class="results"><thead><tr><th>workload</th>${head}</tr></thead><tbody>\n${rows}\n</tbody></table>`;
}

// The page's own script: plots each chart of the JSON with uPlot (no other dependency).
const PAGE_SCRIPT = `
(function () {
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var colors = data.colors;
  var width = Math.max(480, Math.min(1200, document.body.clientWidth - 48));
  function color(engine) { return colors[data.engines.indexOf(engine) % colors.length]; }
  // Dashed lines where each workload of an engine in the chart starts, labelled.
  function marks(engines) { return function (u) {
    var ctx = u.ctx, top = u.bbox.top, height = u.bbox.height;
    ctx.save();
    ctx.setLineDash([4, 4]);
    ctx.lineWidth = 1;
    ctx.font = (10 * devicePixelRatio) + "px sans-serif";
    engines.forEach(function (engine, i) {
      (data.workloads[engine] || []).forEach(function (w) {
        var x = u.valToPos(w.start, "x", true);
        if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
        ctx.strokeStyle = color(engine);
        ctx.globalAlpha = 0.45;
        ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + height); ctx.stroke();
        ctx.globalAlpha = 0.9;
        ctx.fillStyle = color(engine);
        ctx.fillText(w.name, x + 3 * devicePixelRatio, top + (12 + 11 * i) * devicePixelRatio);
      });
    });
    ctx.restore();
  }; }
  data.charts.forEach(function (chart) {
    var el = document.getElementById("chart-" + chart.id);
    if (chart.series.length === 0) return;
    var joined = uPlot.join(chart.series.map(function (s) { return [s.x, s.y]; }));
    var series = [{ label: "seconds" }].concat(chart.series.map(function (s) {
      return { label: s.engine, stroke: color(s.engine), width: 1.5, spanGaps: true, points: { show: false } };
    }));
    new uPlot({
      title: chart.title + " (" + chart.unit + ")",
      width: width,
      height: 260,
      scales: { x: { time: false }, y: chart.log ? { distr: 3 } : {} },
      axes: [{ label: "seconds since the engine's first workload" }, { label: chart.unit, size: 70 }],
      series: series,
      hooks: { draw: [marks(chart.series.map(function (s) { return s.engine; }))] },
    }, joined, el);
  });
})();
`;

export function renderReport(input: ReportInput): string {
  const { js, css } = uPlotAssets();
  const charts = buildCharts(input.series);
  const engines = input.results.map((e) => e.engine);
  for (const s of input.series) if (!engines.includes(s.engine)) engines.push(s.engine);
  const workloads: Record<string, { name: string; start: number; end: number }[]> = {};
  for (const s of input.series) workloads[s.engine] = s.workloads;
  const data = { engines, colors: COLORS, charts, workloads };
  const json = JSON.stringify(data).replace(/</g, "\\u003c");
  const legend = engines
    .map(
      (e, i) =>
        `<span class="engine"><span class="swatch" style="background:${COLORS[i % COLORS.length]}"></span>${escapeHtml(e)}</span>`,
    )
    .join(" ");
  const chartDivs = charts
    .map((c) => {
      const missing =
        c.missing.length > 0
          ? `<p class="missing">${escapeHtml(c.missing.join(", "))}: ${c.series.length === 0 ? "no engine of this run reports it" : "not reported by the engine"}</p>`
          : "";
      const empty =
        c.series.length === 0 ? `<p class="missing">${escapeHtml(c.title)}: no data</p>` : "";
      return `<section><div class="chart" id="chart-${c.id}"></div>${empty}${missing}</section>`;
    })
    .join("\n");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)}</title>
<style>
${css}
body { font-family: system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; margin: 0 0 8px; }
pre.header { background: #f6f6f6; padding: 8px 12px; font-size: 12px; overflow-x: auto; }
.engine { margin-right: 16px; font-size: 14px; }
.swatch { display: inline-block; width: 12px; height: 12px; margin-right: 6px; vertical-align: -1px; }
section { margin: 18px 0; }
p.missing { color: #777; font-size: 12px; margin: 2px 0 0 8px; }
table.results { border-collapse: collapse; font-size: 13px; margin-top: 16px; }
table.results th, table.results td { border: 1px solid #ddd; padding: 4px 10px; text-align: right; }
table.results thead th, table.results tbody th { background: #f6f6f6; text-align: left; }
td.failed { color: #b00; }
</style>
</head>
<body>
<h1>${escapeHtml(input.title)}</h1>
<div class="legend">${legend}</div>
<pre class="header">${escapeHtml(input.header)}</pre>
${chartDivs}
<h2>Results</h2>
${resultsTable(input)}
<script type="application/json" id="report-data">${json}</script>
<script>${js}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
