/**
 * shale in bundles, built with esbuild from the BUILT packages (dist/, through their
 * `exports`, as a user's bundler resolves them):
 * - a Node bundle (app + `worker=shale/worker` beside it) runs flushes and compactions on the
 *   node file system, so in the bundled worker; a single-file bundle (no worker.js beside
 *   it, run from a folder without node_modules) runs them on the main thread, with one
 *   process warning naming the missing file and the entry point to add;
 * - a Vite SSR build with `shale/worker` as a second input named worker does the same;
 * - a browser bundle (--platform=browser) of an app on MemoryFileSystem resolves with no
 *   stub and imports no `node:` module, and runs in a V8 context holding only web globals
 *   (no process, Buffer, setImmediate or require);
 * - the same app in headless Chromium (Debian's `chromium`, when installed), on a page served
 *   cross-origin isolated (COOP/COEP: shale's memtables are SharedArrayBuffers).
 */
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createContext, runInContext } from "node:vm";
import { build } from "esbuild";
import { build as viteBuild } from "vite";
import { afterAll, describe, expect, it } from "vitest";

const here = import.meta.dirname;
const chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((f) => existsSync(f));
if (chromium === undefined)
  console.log("bundle.test: no chromium installed, the browser run is skipped");
const scratch = mkdtempSync(join(tmpdir(), "shale-bundle-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("esbuild bundles", () => {
  it("a Node bundle with shale/worker beside it runs flushes and compactions", async () => {
    const out = join(scratch, "node");
    await build({
      entryPoints: [
        { in: join(here, "ci", "smoke-app.mjs"), out: "app" },
        { in: "shale/worker", out: "worker" },
      ],
      absWorkingDir: here,
      bundle: true,
      platform: "node",
      format: "esm",
      outdir: out,
      logLevel: "error",
    });
    const run = spawnSync(process.execPath, [join(out, "app.js"), join(scratch, "db")], {
      encoding: "utf8",
      env: { ...process.env, SHALE_INVARIANTS: "" },
      timeout: 110_000,
    });
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/node fs: open, 100000 puts, 2 flushes, compactRange.*: ok/);
    expect(run.stdout).toMatch(/close while flushes run: ok/);
    expect(run.status).toBe(0);
  });

  it("a Vite SSR build with shale/worker as a second input runs flushes and compactions", async () => {
    const out = join(scratch, "vite");
    await viteBuild({
      root: here,
      configFile: false,
      logLevel: "error",
      ssr: { noExternal: true },
      build: {
        ssr: true,
        outDir: out,
        target: "node20",
        rollupOptions: {
          input: { app: join(here, "ci", "smoke-app.mjs"), worker: "shale/worker" },
          output: { format: "es", entryFileNames: "[name].js" },
        },
      },
    });
    const run = spawnSync(process.execPath, [join(out, "app.js"), join(scratch, "db-vite")], {
      encoding: "utf8",
      env: { ...process.env, SHALE_INVARIANTS: "" },
      timeout: 110_000,
    });
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/node fs: open, 100000 puts, 2 flushes, compactRange.*: ok/);
    expect(run.status).toBe(0);
  });

  it("a CommonJS bundle (no import.meta.url) finds worker.js beside it", async () => {
    const out = join(scratch, "cjs");
    const app = join(scratch, "cjs-app.cjs");
    writeFileSync(
      app,
      `const { open } = require("shale");
(async () => {
  const db = await open(process.argv[2], { writeBufferSize: 1 << 20 });
  for (let i = 0; i < 50000; i++) db.put("k" + i, "v".repeat(50));
  await db.flush();
  await db.compactRange();
  console.log("cjs bundle: L0 files", db.getProperty("shale.num-files-at-level0"));
  await db.close();
})().catch((e) => { console.error(String(e)); process.exit(1); });
`,
    );
    await build({
      entryPoints: [
        { in: app, out: "app" },
        { in: "shale/worker", out: "worker" },
      ],
      absWorkingDir: here,
      nodePaths: [join(here, "node_modules")],
      bundle: true,
      platform: "node",
      format: "cjs",
      outdir: out,
      logLevel: "error",
    });
    const run = spawnSync(process.execPath, [join(out, "app.js"), join(scratch, "db-cjs")], {
      encoding: "utf8",
      timeout: 110_000,
    });
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("cjs bundle: L0 files 0");
  });

  it("a single-file bundle (no worker.js beside it, no node_modules) runs flushes and compactions on the main thread, warning once", async () => {
    const out = join(scratch, "no-worker");
    const app = join(scratch, "no-worker-app.mjs");
    writeFileSync(
      app,
      `import { open } from "shale";
const db = await open(process.argv[2], { writeBufferSize: 1 << 20 });
for (let i = 0; i < 50000; i++) db.put("k" + i, "v".repeat(50));
await db.flush();
await db.compactRange();
const ok = new TextDecoder().decode(db.get("k4242")) === "v".repeat(50);
console.log("single file: L0 files", db.getProperty("shale.num-files-at-level0"), "read", ok);
await db.close();
`,
    );
    await build({
      entryPoints: [app],
      absWorkingDir: here,
      nodePaths: [join(here, "node_modules")],
      bundle: true,
      platform: "node",
      format: "esm",
      outdir: out,
      logLevel: "error",
    });
    expect(existsSync(join(out, "worker.js"))).toBe(false);
    const run = spawnSync(process.execPath, [join(out, "no-worker-app.js"), join(scratch, "db2")], {
      encoding: "utf8",
      cwd: out,
      timeout: 110_000,
    });
    expect(run.stdout).toContain("single file: L0 files 0 read true");
    expect(run.status).toBe(0);
    const warnings = run.stderr.split("\n").filter((l) => l.includes("SHALE_NO_WORKERS"));
    expect(warnings).toHaveLength(1);
    expect(run.stderr).toContain(`the background worker ${join(out, "worker.js")} is missing`);
    expect(run.stderr).toContain("worker=shale/worker");
  });

  it("a browser bundle on MemoryFileSystem imports no node: module and runs with web globals only", async () => {
    const app = join(scratch, "browser-app.mjs");
    writeFileSync(
      app,
      `import { MemoryFileSystem, open } from "shale";
(async () => {
const enc = new TextEncoder();
const dec = new TextDecoder();
const db = await open("/db", { fs: new MemoryFileSystem(), writeBufferSize: 64 << 10 });
for (let i = 0; i < 20000; i++) db.put("k" + String(i).padStart(6, "0"), "v" + i + "-".repeat(80));
await db.flush();
await db.compactRange();
let n = 0;
for (const [k] of db.iterator()) n++;
const v = dec.decode(db.get(enc.encode("k012345")));
const files = db.getProperty("shale.num-files-at-level0");
await db.close();
globalThis.report({ n, v, files });
})().catch((e) => globalThis.fail(e));
`,
    );
    const result = await build({
      entryPoints: [app],
      absWorkingDir: here,
      nodePaths: [join(here, "node_modules")],
      bundle: true,
      platform: "browser",
      format: "iife",
      write: false,
      metafile: true,
      logLevel: "error",
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(
      // Node's worker threads executor stays out; the nested-worker one is the browser's.
      inputs.filter(
        (f) =>
          f.startsWith("node:") ||
          /\/node-fs\.js$/.test(f) ||
          f.split("/").pop() === "worker-executor.js",
      ),
    ).toEqual([]);
    expect(inputs.some((f) => f.endsWith("node-fs.browser.js"))).toBe(true);
    const code = result.outputFiles[0]!.text;
    expect(code).not.toMatch(/require\(["']node:/);
    // A context with only what a browser has (no process, Buffer, setImmediate, require).
    const got = await new Promise<{ n: number; v: string; files: string }>((resolve, reject) => {
      // Node's TextEncoder makes Uint8Arrays of this realm, not the context's: the context
      // gets its own (a browser has them; V8 alone has not).
      const context = createContext({
        console,
        setTimeout,
        clearTimeout,
        queueMicrotask,
        performance,
        report: resolve,
        fail: reject,
      });
      runInContext(
        `globalThis.TextEncoder = class TextEncoder {
          encode(s = "") {
            const b = unescape(encodeURIComponent(s));
            const a = new Uint8Array(b.length);
            for (let i = 0; i < b.length; i++) a[i] = b.charCodeAt(i);
            return a;
          }
        };
        globalThis.TextDecoder = class TextDecoder {
          decode(a) {
            if (a === undefined) return "";
            let s = "";
            for (let i = 0; i < a.length; i++) s += String.fromCharCode(a[i]);
            try { return decodeURIComponent(escape(s)); } catch { return s; }
          }
        };`,
        context,
      );
      for (const name of ["process", "Buffer", "setImmediate", "require"])
        expect(runInContext(`typeof ${name}`, context)).toBe("undefined");
      runInContext(`${code}\n//# sourceURL=browser-bundle.js`, context);
      setTimeout(() => reject(new Error("the browser bundle did not finish")), 60_000).unref();
    });
    expect(got).toEqual({ n: 20000, v: `v12345${"-".repeat(80)}`, files: "0" });
  });

  it.runIf(chromium !== undefined)("the browser bundle runs in headless Chromium", async () => {
    const app = join(scratch, "chromium-app.mjs");
    writeFileSync(
      app,
      `import { MemoryFileSystem, open } from "shale";
(async () => {
  const db = await open("/db", { fs: new MemoryFileSystem(), writeBufferSize: 64 << 10 });
  for (let i = 0; i < 20000; i++) db.put("k" + String(i).padStart(6, "0"), "v" + i + "-".repeat(80));
  await db.flush();
  await db.compactRange();
  let n = 0;
  for (const _ of db.iterator()) n++;
  const v = new TextDecoder().decode(db.get("k012345"));
  const files = db.getProperty("shale.num-files-at-level0");
  await db.close();
  document.body.textContent = "RESULT " + JSON.stringify({ n, v: v.slice(0, 6), files });
})().catch((e) => { document.body.textContent = "RESULT " + JSON.stringify({ error: String(e.stack) }); });
`,
    );
    const result = await build({
      entryPoints: [app],
      absWorkingDir: here,
      nodePaths: [join(here, "node_modules")],
      bundle: true,
      platform: "browser",
      format: "iife",
      write: false,
      logLevel: "error",
    });
    const js = result.outputFiles[0]!.text;
    const html = '<!doctype html><html><body>pending<script src="app.js"></script></body></html>';
    const server = createServer((req, res) => {
      const isJs = req.url === "/app.js";
      res.writeHead(req.url === "/" || isJs ? 200 : 404, {
        "content-type": isJs ? "text/javascript" : "text/html",
        "cross-origin-opener-policy": "same-origin",
        "cross-origin-embedder-policy": "require-corp",
      });
      res.end(isJs ? js : req.url === "/" ? html : "");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    try {
      const dom = await new Promise<string>((resolve, reject) =>
        execFile(
          chromium!,
          [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            `--user-data-dir=${join(scratch, "chromium-profile")}`,
            "--virtual-time-budget=60000",
            "--dump-dom",
            `http://127.0.0.1:${port}/`,
          ],
          { timeout: 100_000, encoding: "utf8" },
          (error, stdout) => (error ? reject(error) : resolve(stdout)),
        ),
      );
      const m = /RESULT (\{.*\})/.exec(dom);
      expect(m, dom).not.toBeNull();
      expect(JSON.parse(m![1]!)).toEqual({ n: 20000, v: "v12345", files: "0" });
    } finally {
      server.close();
    }
  });
});
