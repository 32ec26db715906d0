#!/usr/bin/env node
// What comments and READMEs name must be true of the repository a reader has:
// - every repository path they name exists (a file named by its path, its path's tail, or —
//   for a bare file name — its name somewhere in the tree);
// - no absolute path of a build machine (a work, home or Users directory: MACHINE below);
// - no "issue N" of a tracker no reader has.
// Source files (*.ts, *.mjs, *.cjs, *.js, *.sh) are checked in their comments; Markdown
// files everywhere. Changesets and node_modules are exempt, and so is a file that says
// `check-comments: ignore-file` (this checker's own test, which plants findings in strings).
//   node tooling/scripts/check-comments.mjs            prints every finding, exits 1 if any
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Tracked files (and untracked ones not ignored), relative to the root. */
export function repoFiles(dir = root) {
  const out = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  return out.split("\n").filter((f) => f !== "");
}

const SOURCE = /\.(ts|mts|cts|mjs|cjs|js|sh)$/;
const EXEMPT = /(^|\/)(node_modules|dist|\.changeset|testdata|fixtures)\//;
/** A path-like token: segments of word characters, dots and dashes, ending in an extension. */
const PATH =
  /(?<![\w@/.:-])((?:\.{1,2}\/)?[\w.-]+(?:\/[\w.-]+)*\.(?:ts|mts|mjs|cjs|md|sh|wat|json))(?![\w/-])/g;
const MACHINE = /(?<![\w.])\/(?:work|home\/[\w.-]+|Users\/[\w.-]+)\//g;
const ISSUE = /\b[Ii]ssues? #?\d+\b/g;
/** The user's own files in examples (`npx tsx example.mts`, `esbuild app.ts ...`). */
const EXAMPLE_NAMES = new Set(["example.mts", "example.ts", "app.ts", "app.js", "app.mjs"]);
const EXTERNAL =
  /(RocksDB|LevelDB|Pebble|lz4|LZ4|zstd|fzstd|Snappy|snappy|xxHash|Node\.js|abstract-level)[\w. -]*('s|:)?\s*`?$/;

/** The comment text of a source file, line by line (other characters blanked). */
function commentLines(text, file) {
  const lines = text.split("\n");
  if (file.endsWith(".sh")) return lines.map((l) => (/^\s*#/.test(l) ? l : ""));
  let inBlock = false;
  return lines.map((line) => {
    if (inBlock) {
      if (line.includes("*/")) inBlock = false;
      return line;
    }
    const start = line.indexOf("/*");
    const slash = line.search(/(^|[^:"'`])\/\/(?!\/)/);
    if (start >= 0 && (slash < 0 || start < slash)) {
      if (!line.includes("*/", start + 2)) inBlock = true;
      return line.slice(start);
    }
    return slash >= 0 ? line.slice(slash) : "";
  });
}

export function checkComments(dir = root) {
  const files = repoFiles(dir);
  const tails = new Set();
  const names = new Set();
  for (const f of files) {
    names.add(basename(f));
    const parts = f.split("/");
    for (let i = 1; i < parts.length; i++) tails.add(parts.slice(i).join("/"));
    tails.add(f);
  }
  const exists = (token, file) => {
    const t = token.replace(/^(\.\/)+/, "");
    if (!t.includes("/")) return names.has(t) || names.has(t.replace(/\.js$/, ".ts"));
    const candidates = [t, t.replace(/\.js$/, ".ts"), t.replace(/^dist\//, "src/")];
    for (const c of candidates) {
      if (tails.has(c)) return true;
      const rel = relative(dir, join(dir, dirname(file), c));
      if (!rel.startsWith("..") && files.includes(rel)) return true;
      if (c.startsWith("../") && tails.has(c.replace(/^(\.\.\/)+/, ""))) return true;
    }
    return false;
  };
  const findings = [];
  for (const file of files) {
    if (EXEMPT.test(file)) continue;
    const md = file.endsWith(".md");
    if (!md && !SOURCE.test(file)) continue;
    let text;
    try {
      text = readFileSync(join(dir, file), "utf8");
    } catch {
      continue;
    }
    if (text.includes("check-comments: ignore-file")) continue;
    const lines = md ? text.split("\n") : commentLines(text, file);
    lines.forEach((line, i) => {
      const at = `${file}:${i + 1}`;
      for (const m of line.matchAll(ISSUE)) findings.push({ at, what: `names "${m[0]}"` });
      for (const m of line.matchAll(MACHINE))
        findings.push({ at, what: `names a machine path "${m[0]}"` });
      for (const m of line.matchAll(PATH)) {
        const token = m[1];
        if (EXAMPLE_NAMES.has(token) || /^[.-]/.test(token) || token.includes("node_modules"))
          continue;
        // Another project's file ("LevelDB's doc/log_format.md", "fzstd 0.1.1: `esm/x.mjs`").
        if (EXTERNAL.test(line.slice(Math.max(0, m.index - 40), m.index))) continue;
        if (!exists(token, file))
          findings.push({ at, what: `names ${token}, which does not exist` });
      }
    });
  }
  return findings;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const findings = checkComments();
  for (const f of findings) console.log(`${f.at}: ${f.what}`);
  if (findings.length > 0) {
    console.log(`check-comments: ${findings.length} finding(s)`);
    process.exit(1);
  }
  console.log("check-comments: every path named exists; no machine path, no issue number");
}
