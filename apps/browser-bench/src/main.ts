#!/usr/bin/env node
/**
 * browser-bench: shale on OPFS against browser-level (IndexedDB) and SQLite-WASM (its OPFS
 * VFS) in the same headless chromium, each engine in a dedicated worker of one cross-origin
 * isolated page; also @shale/level's ShaleLevel, the drop-in for browser-level.
 *
 *   node dist/main.js [--num=100000] [--reads=100000] [--seeks=10000] [--rounds=3] [--flush]
 *                     [--rescan] [--scan=copy|count] [--profile=DIR]
 *                     [--engines=shale,shale-inline,shale-level,browser-level,sqlite-wasm,
 *                      sqlite-sahpool]
 *
 * `--flush`: after the fill (untimed) shale flushes its memtable and compacts, so its reads
 * go to tables on OPFS (through the block cache) rather than to the memtable.
 * `--rescan`: a second full scan right after `readseq`, timed as `readseq2`, every engine
 * alike: the first scan runs code not yet compiled (each engine's worker is new), the second
 * shows the same scan once it is.
 * `--scan`: what a scan does with each row, every engine alike (workloads.ts): `copy` (the
 * default) hands the row's key and value to the bench's code as copies; `count` only steps.
 * `--profile=DIR`: a CPU profile of each scan (the DevTools protocol's profiler on the bench
 * worker, sampling every 50 µs), saved as `DIR/<engine>-r<round>-<workload>.cpuprofile`
 * (open it in DevTools' Performance panel) and summarised by self time (profile-summary.ts).
 * The profiler slows what it watches: take times from runs without it.
 *
 * Rounds rotate the engines' order (round r starts with the r-th engine), each on a fresh
 * database; the summary gives each workload's median ops/sec per engine and the medians of
 * the per-round ratios shale ÷ each peer, and ShaleLevel ÷ browser-level (> 1: shale faster).
 * Chromium is `$CHROMIUM` or `chromium` on PATH.
 */
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { launch, type WebWorker } from "puppeteer-core";
import { type CpuProfile, selfTimes } from "./profile-summary.js";
import {
  type BenchRequest,
  ENGINES,
  type Engine,
  medianRatio,
  SCAN_MODES,
  type ScanMode,
  type WorkloadResult,
} from "./workloads.js";

function flag(name: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  if (arg === undefined) return fallback;
  const value = Number(arg.slice(name.length + 3));
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`--${name} must be a positive integer`);
  return value;
}

function chromiumPath(): string {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
    try {
      return execFileSync("which", [name], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim();
    } catch {
      // try the next name
    }
  }
  throw new Error("no chromium: set CHROMIUM or put chromium on PATH");
}

const num = flag("num", 100_000);
const reads = flag("reads", 100_000);
const seeks = flag("seeks", 10_000);
const rounds = flag("rounds", 3);
const flush = process.argv.includes("--flush");
const rescan = process.argv.includes("--rescan");
const scanArg = process.argv.find((a) => a.startsWith("--scan="))?.slice(7) ?? "copy";
if (!(SCAN_MODES as readonly string[]).includes(scanArg))
  throw new Error(`--scan must be one of ${SCAN_MODES.join(", ")}`);
const scan = scanArg as ScanMode;
const profileDir = process.argv.find((a) => a.startsWith("--profile="))?.slice(10);
if (profileDir === "") throw new Error("--profile needs a directory");
if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });
const enginesArg = process.argv.find((a) => a.startsWith("--engines="));
const engineList = (enginesArg?.slice(10).split(",") ?? [...ENGINES]) as Engine[];
for (const e of engineList)
  if (!ENGINES.includes(e)) throw new Error(`--engines: ${e} is not one of ${ENGINES.join(", ")}`);

const here = dirname(fileURLToPath(import.meta.url));
const src = existsSync(join(here, "page.ts")) ? here : join(here, "..", "src");
const site = mkdtempSync(join(tmpdir(), "shale-browser-bench-"));
const profile = mkdtempSync(join(tmpdir(), "shale-browser-bench-profile-"));
await build({
  entryPoints: {
    page: join(src, "page.ts"),
    "bench-worker": join(src, "bench-worker.ts"),
    "opfs-io-worker": "shale/opfs/io-worker",
    "opfs-db-worker": "shale/opfs/db-worker",
    "opfs-background-worker": "shale/opfs/background-worker",
  },
  // The entry points' bare names resolve from this app's node_modules wherever it is run from.
  absWorkingDir: dirname(src),
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  outdir: site,
  logLevel: "warning",
});
// SQLite-WASM unbundled (it finds its .wasm and its OPFS proxy worker beside itself).
const sqliteDir = join(
  dirname(createRequire(import.meta.url).resolve("@sqlite.org/sqlite-wasm/package.json")),
  "sqlite-wasm",
  "jswasm",
);
mkdirSync(join(site, "sqlite"));
for (const f of ["sqlite3.mjs", "sqlite3.wasm", "sqlite3-opfs-async-proxy.js"])
  copyFileSync(join(sqliteDir, f), join(site, "sqlite", f));
writeFileSync(
  join(site, "index.html"),
  '<!doctype html><meta charset="utf-8"><script type="module" src="./page.js"></script>\n',
);
const server = createServer((req, res) => {
  const file = join(site, new URL(req.url ?? "/", "http://x").pathname.slice(1) || "index.html");
  if (!file.startsWith(site) || !existsSync(file)) return void res.writeHead(404).end();
  res.writeHead(200, {
    "Content-Type":
      extname(file) === ".html"
        ? "text/html"
        : extname(file) === ".wasm"
          ? "application/wasm"
          : "text/javascript",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
  });
  res.end(readFileSync(file));
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const args = ["--disable-gpu", "--no-first-run"];
if (process.getuid?.() === 0) args.push("--no-sandbox");
const browser = await launch({
  executablePath: chromiumPath(),
  userDataDir: profile,
  headless: true,
  args,
  protocolTimeout: 0,
});

const line = (engine: string, r: WorkloadResult): string =>
  `${r.name.padEnd(12)}: ${((r.seconds * 1e6) / r.ops).toFixed(3).padStart(11)} micros/op ${Math.round(
    r.ops / r.seconds,
  )
    .toString()
    .padStart(8)} ops/sec; (${r.found} of ${r.ops} found)  [${engine}]`;

const opsPerSec: Record<string, Record<string, number[]>> = {};
for (const e of engineList) opsPerSec[e] = {};
try {
  const page = await browser.newPage();
  /** The run whose worker is being profiled: the file name's start. */
  let profiling = "";
  if (profileDir !== undefined) page.on("workercreated", (w) => void watchProfiles(w));
  async function watchProfiles(worker: WebWorker): Promise<void> {
    if (!worker.url().endsWith("/bench-worker.js")) return;
    const client = worker.client;
    client.on("Profiler.consoleProfileFinished", (e) => {
      const file = join(profileDir!, `${profiling}-${e.title ?? "profile"}.cpuprofile`);
      writeFileSync(file, JSON.stringify(e.profile));
      const top = selfTimes(e.profile as CpuProfile, 8)
        .map((t) => `${(t.micros / 1000).toFixed(1)} ms ${t.name}`)
        .join("; ");
      console.log(`  profile ${file}: ${top}`);
    });
    await client.send("Profiler.enable");
    await client.send("Profiler.setSamplingInterval", { interval: 50 });
  }
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => "bench" in globalThis);
  console.log(
    `browser-bench: ${await browser.version()}, engines=${engineList.join(",")} num=${num} reads=${reads} seeks=${seeks} rounds=${rounds}${flush ? " flush" : ""}${rescan ? " rescan" : ""} scan=${scan}`,
  );
  for (let round = 1; round <= rounds; round++) {
    const first = (round - 1) % engineList.length;
    const engines = [...engineList.slice(first), ...engineList.slice(0, first)];
    for (const engine of engines) {
      const request: BenchRequest = {
        engine,
        name: `bench-${engine}-${round}`,
        num,
        reads,
        seeks,
        flush,
        rescan,
        scan,
        profile: profileDir !== undefined,
      };
      profiling = `${engine}-r${round}`;
      const results = (await page.evaluate(
        (r) =>
          (
            globalThis as unknown as { bench: (r: BenchRequest) => Promise<WorkloadResult[]> }
          ).bench(r),
        request,
      )) as WorkloadResult[];
      console.log(`round ${round}, ${engine}:`);
      for (const r of results) {
        console.log(`  ${line(engine, r)}`);
        const perEngine = opsPerSec[engine]!;
        (perEngine[r.name] ??= []).push(r.ops / r.seconds);
      }
    }
  }
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 === 1 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  console.log("\nmedians (ops/sec):");
  const workloads = Object.keys(opsPerSec[engineList[0]!]!);
  console.log(`  ${"workload".padEnd(12)} ${engineList.map((e) => e.padStart(16)).join("")}`);
  for (const name of workloads) {
    const cells = engineList.map((e) =>
      Math.round(median(opsPerSec[e]![name]!)).toString().padStart(16),
    );
    console.log(`  ${name.padEnd(12)} ${cells.join("")}`);
  }
  const pairs: [Engine, Engine][] = [];
  for (const e of engineList)
    if (e !== "shale" && engineList.includes("shale")) pairs.push(["shale", e]);
  if (engineList.includes("shale-level") && engineList.includes("browser-level"))
    pairs.push(["shale-level", "browser-level"]);
  console.log("\nmedians of per-round ratios of ops/sec (> 1: the first faster):");
  for (const [a, b] of pairs) {
    const cells = workloads.map(
      (name) => `${name} ${medianRatio(opsPerSec[a]![name]!, opsPerSec[b]![name]!).toFixed(2)}`,
    );
    console.log(`  ${`${a} ÷ ${b}`.padEnd(30)} ${cells.join("  ")}`);
  }
} finally {
  await browser.close();
  server.close();
  rmSync(site, { recursive: true, force: true });
  rmSync(profile, { recursive: true, force: true });
}
