/**
 * The browser tests' harness (Node side): finds chromium, bundles the test page and the
 * database and OPFS I/O workers with esbuild, serves them from 127.0.0.1 with the
 * cross-origin isolation headers SharedArrayBuffer needs, and launches headless chromium
 * with puppeteer-core.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
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

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Bundles page.js, db-worker.js (the tests' worker), opfs-db-worker.js (openInWorker's),
 * opfs-background-worker.js (flushes and compactions) and opfs-io-worker.js, with index.html, into a new directory.
 */
export async function buildSite(extra: Record<string, string> = {}): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), "shale-browser-"));
  await build({
    entryPoints: {
      page: join(here, "page.test-support.ts"),
      "db-worker": join(here, "opfs-db-worker.test-support.ts"),
      "opfs-io-worker": join(here, "..", "opfs-io-worker.ts"),
      "opfs-db-worker": join(here, "..", "opfs-db-worker.ts"),
      "opfs-background-worker": join(here, "..", "opfs-background-worker.ts"),
      ...extra,
    },
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    outdir: out,
    logLevel: "warning",
  });
  const { writeFileSync } = await import("node:fs");
  writeFileSync(
    join(out, "index.html"),
    '<!doctype html><meta charset="utf-8"><title>shale</title><script type="module" src="./page.js"></script>\n',
  );
  return out;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
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
      "Cache-Control": "no-store",
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
  return launch({ executablePath, userDataDir, headless: true, args, protocolTimeout: 60_000 });
}
