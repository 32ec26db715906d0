#!/usr/bin/env node
/**
 * Builds the notes app (esbuild) into dist/site and, with --serve, serves it on
 * http://127.0.0.1:8080 (--port=N) with the cross-origin isolation headers OPFS sync access
 * handles need; with --check, adds notes in headless chromium (puppeteer-core, `$CHROMIUM`
 * or `chromium` on PATH), restarts the browser, lists them, and opens the export in Node.
 *
 *   node dist/main.js            build, and print what was built
 *   node dist/main.js --serve    build and serve; open the printed URL in a browser
 *   node dist/main.js --check    build, add notes, read them back after a restart, export
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { open } from "shale";
import { readTar } from "./tar.js";

const here = dirname(fileURLToPath(import.meta.url));
const site = join(here, "site");
const source = join(here, "..", "src");

const HTML = `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>notes on shale (OPFS)</title>
<h1>notes</h1>
<form id="add"><input id="text" placeholder="a new note" autofocus> <button>add</button></form>
<ul id="notes"></ul>
<button id="export">export the database (tar)</button>
<p id="status">opening the database...</p>
<script type="module" src="./notes.js"></script>
</html>
`;

async function buildSite(): Promise<void> {
  rmSync(site, { recursive: true, force: true });
  mkdirSync(site, { recursive: true });
  await build({
    entryPoints: {
      notes: join(source, "notes-page.ts"),
      "opfs-db-worker": "shale/opfs/db-worker",
      "opfs-io-worker": "shale/opfs/io-worker",
    },
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    outdir: site,
    logLevel: "warning",
  });
  writeFileSync(join(site, "index.html"), HTML);
}

function serve(port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname.slice(1) || "index.html";
    const file = join(site, path);
    if (!file.startsWith(site) || !existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, {
      "Content-Type": extname(file) === ".html" ? "text/html; charset=utf-8" : "text/javascript",
      // OPFS sync access handles need SharedArrayBuffer, which needs cross-origin isolation.
      "Cross-Origin-Opener-Policy": "same-origin",
      "Cross-Origin-Embedder-Policy": "require-corp",
    });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

function chromium(): string | undefined {
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
  return undefined;
}

async function check(): Promise<void> {
  const executablePath = chromium();
  if (executablePath === undefined) {
    console.log("check: no chromium (set CHROMIUM or put chromium on PATH)");
    return;
  }
  const { launch } = await import("puppeteer-core");
  const server = await serve(0);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const userDataDir = mkdtempSync(join(tmpdir(), "notes-opfs-"));
  const args = process.getuid?.() === 0 ? ["--no-sandbox"] : [];
  type NotesApp = {
    add(t: string): Promise<void>;
    list(): Promise<string[]>;
    exportBase64(): Promise<string>;
    error?: string;
  };
  const inBrowser = async (
    work: (
      list: () => Promise<string[]>,
      add: (t: string) => Promise<void>,
      exportTar: () => Promise<Uint8Array>,
    ) => Promise<void>,
  ) => {
    const browser = await launch({ executablePath, userDataDir, headless: true, args });
    try {
      const page = await browser.newPage();
      await page.goto(url);
      await page.waitForFunction(() => "notesApp" in globalThis);
      await work(
        () =>
          page.evaluate(() => (globalThis as unknown as { notesApp: NotesApp }).notesApp.list()),
        (t) =>
          page.evaluate(
            (x) => (globalThis as unknown as { notesApp: NotesApp }).notesApp.add(x),
            t,
          ),
        async () =>
          Buffer.from(
            await page.evaluate(() =>
              (globalThis as unknown as { notesApp: NotesApp }).notesApp.exportBase64(),
            ),
            "base64",
          ),
      );
    } finally {
      await browser.close();
    }
  };
  try {
    await inBrowser(async (list, add) => {
      for (const t of ["buy milk", "call the plumber", "water the plants"]) await add(t);
      console.log(`check: added 3 notes: ${JSON.stringify(await list())}`);
    });
    let tar: Uint8Array | undefined;
    await inBrowser(async (list, _add, exportTar) => {
      console.log(`check: after a browser restart: ${JSON.stringify(await list())}`);
      tar = await exportTar();
    });
    // The export, unpacked, opens in Node with shale's open(): the same format.
    const dir = mkdtempSync(join(tmpdir(), "notes-export-"));
    try {
      for (const f of readTar(tar!)) {
        mkdirSync(dirname(join(dir, f.name)), { recursive: true });
        writeFileSync(join(dir, f.name), f.bytes);
      }
      const db = await open(dir);
      let n = 0;
      for (const _ of db.iterator()) n++;
      await db.close();
      console.log(`check: the export opens in Node: ${n} entries`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    server.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
}

await buildSite();
console.log(`built dist/site: ${readdirSync(site).sort().join(", ")}`);
if (process.argv.includes("--check")) {
  await check();
} else if (process.argv.includes("--serve")) {
  const portArg = process.argv.find((a) => a.startsWith("--port="));
  const server = await serve(portArg === undefined ? 8080 : Number(portArg.slice(7)));
  console.log(
    `serving the notes app at http://127.0.0.1:${(server.address() as AddressInfo).port}/ (Ctrl-C stops)`,
  );
} else {
  console.log("serve it with: node dist/main.js --serve   (then open http://127.0.0.1:8080/)");
}
