/**
 * The browser suite's harness (Node side): finds chromium, bundles a page for the browser
 * with esbuild (with the few Node built-ins tape needs shimmed: `path`, `stream`, `events`,
 * `process`, `Buffer`), serves it from 127.0.0.1 with the cross-origin isolation headers
 * SharedArrayBuffer needs, and launches headless chromium with puppeteer-core.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { build, type Plugin } from "esbuild";
import { type Browser, launch } from "puppeteer-core";

/** Chromium's executable: `$CHROMIUM`, else the first of the usual names on PATH. */
export function findChromium(): string | undefined {
  const fromEnv = process.env.CHROMIUM;
  if (fromEnv !== undefined && fromEnv !== "") return existsSync(fromEnv) ? fromEnv : undefined;
  for (const name of ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]) {
    try {
      const path = execFileSync("which", [name], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim();
      if (path !== "") return path;
    } catch {
      // not this one
    }
  }
  return undefined;
}

const require = createRequire(import.meta.url);

/** The Node built-ins tape reaches for, as small browser modules. */
const SHIMS: Record<string, string> = {
  path: "module.exports = { sep: '/', relative: (a, b) => b, dirname: (p) => p };",
  stream: `const { EventEmitter } = require(${JSON.stringify(require.resolve("events/"))});
class Stream extends EventEmitter {
  pipe(dest) {
    this.on("data", (chunk) => dest.write(chunk));
    this.on("end", () => { if (typeof dest.end === "function") dest.end(); });
    return dest;
  }
}
module.exports = { Stream };`,
};

const shims: Plugin = {
  name: "node-shims",
  setup(b) {
    b.onResolve({ filter: /^(path|stream)$/ }, (args) => ({ path: args.path, namespace: "shim" }));
    b.onResolve({ filter: /^events$/ }, () => ({ path: require.resolve("events/") }));
    b.onLoad({ filter: /.*/, namespace: "shim" }, (args) => ({
      contents: SHIMS[args.path] ?? "",
      loader: "js",
      resolveDir: process.cwd(),
    }));
  },
};

const GLOBALS = `import { Buffer } from ${JSON.stringify(require.resolve("buffer/"))};
globalThis.Buffer ??= Buffer;
globalThis.process ??= {
  env: {}, argv: [], platform: "browser", version: "v20.0.0", versions: {},
  cwd: () => "/", on() {}, once() {}, removeListener() {}, exit() {},
  nextTick: (fn, ...args) => queueMicrotask(() => fn(...args)),
};
`;

/** Bundles `entryPoints` (name -> file or package) and an index.html loading `page`. */
export async function buildSite(entryPoints: Record<string, string>): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), "shale-level-browser-"));
  const globals = join(out, "globals.js");
  writeFileSync(globals, GLOBALS);
  await build({
    entryPoints,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    outdir: out,
    logLevel: "warning",
    define: { __dirname: '"/"', global: "globalThis" },
    inject: [globals],
    plugins: [shims],
  });
  writeFileSync(
    join(out, "index.html"),
    '<!doctype html><meta charset="utf-8"><title>shale</title><script type="module" src="./page.js"></script>\n',
  );
  return out;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
};

/** Serves `root` on 127.0.0.1 (a free port) with COOP/COEP; resolves to the server and its origin. */
export async function serve(root: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const file = join(root, path === "/" ? "index.html" : path.slice(1));
    if (!file.startsWith(root) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      "Content-Type": TYPES[extname(file)] ?? "application/octet-stream",
      "Cross-Origin-Opener-Policy": "same-origin",
      "Cross-Origin-Embedder-Policy": "require-corp",
      "Cache-Control": "max-age=3600",
    });
    res.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, origin: `http://127.0.0.1:${port}` };
}

/** Headless chromium with its profile in `userDataDir` (--no-sandbox when running as root). */
export function launchChromium(executablePath: string, userDataDir: string): Promise<Browser> {
  const args = ["--disable-gpu", "--no-first-run", "--no-default-browser-check"];
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  return launch({ executablePath, userDataDir, headless: true, args, protocolTimeout: 120_000 });
}
