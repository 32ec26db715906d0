#!/usr/bin/env node
/**
 * The table of examples in the root README: for each examples/<name>/, the shale packages
 * its sources import and its line count — lines of code in src/ (not blank, not comments).
 *
 *   node tooling/scripts/examples-table.mjs           prints the table
 *   node tooling/scripts/examples-table.mjs --write   writes it into README.md
 *   node tooling/scripts/examples-table.mjs --check   fails if README.md's table is stale
 *
 * The table sits between <!-- examples-table:start --> and <!-- examples-table:end -->.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..", "..");
const START = "<!-- examples-table:start -->";
const END = "<!-- examples-table:end -->";

/** Lines that are not blank and not only comment. */
export function codeLines(source) {
  let n = 0;
  let inBlock = false;
  for (const raw of source.split("\n")) {
    const t = raw.trim();
    if (inBlock) {
      if (t.includes("*/")) inBlock = false;
      continue;
    }
    if (t === "" || t.startsWith("//")) continue;
    if (t.startsWith("/*")) {
      if (!t.includes("*/")) inBlock = true;
      continue;
    }
    n++;
  }
  return n;
}

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && /\.(ts|mts|js|mjs)$/.test(d.name) && !d.name.endsWith(".d.ts"))
    .map((d) => join(d.parentPath ?? d.path, d.name))
    .sort();
}

export function table() {
  const dir = join(root, "examples");
  const rows = [];
  for (const name of readdirSync(dir).sort()) {
    const src = join(dir, name, "src");
    let files;
    try {
      files = sources(src);
    } catch {
      continue;
    }
    const packages = new Set();
    let lines = 0;
    const perFile = [];
    for (const f of files) {
      const text = readFileSync(f, "utf8");
      const n = codeLines(text);
      lines += n;
      perFile.push(`${f.slice(src.length + 1)} ${n}`);
      for (const m of text.matchAll(/from\s+"((?:@shale\/[a-z-]+)|shale)(?:\/[^"]*)?"/g))
        packages.add(m[1]);
    }
    const description = JSON.parse(
      readFileSync(join(dir, name, "package.json"), "utf8"),
    ).description;
    rows.push({ name, packages: [...packages].sort(), lines, perFile, description });
  }
  const out = [
    "| example | what it is | packages it uses | lines |",
    "| ------- | ---------- | ---------------- | ----: |",
  ];
  for (const r of rows) {
    const pkgs = r.packages.map((p) => `\`${p}\``).join(", ");
    const lines = r.perFile.length > 1 ? `${r.lines} (${r.perFile.join(", ")})` : `${r.lines}`;
    out.push(`| [\`${r.name}\`](examples/${r.name}) | ${r.description} | ${pkgs} | ${lines} |`);
  }
  return out.join("\n");
}

const readmePath = join(root, "README.md");
const mode = process.argv[2];
const current = table();
if (mode === undefined) {
  console.log(current);
} else {
  const readme = readFileSync(readmePath, "utf8");
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) {
    console.error(`README.md has no ${START} ... ${END} block`);
    process.exit(1);
  }
  const updated = `${readme.slice(0, a + START.length)}\n${current}\n${readme.slice(b)}`;
  if (mode === "--write") writeFileSync(readmePath, updated);
  else if (mode === "--check") {
    if (updated !== readme) {
      console.error(
        "README.md's examples table is stale; run: node tooling/scripts/examples-table.mjs --write",
      );
      console.error(current);
      process.exit(1);
    }
    console.log("examples table: up to date");
  } else {
    console.error(`unknown option ${mode} (--write, --check)`);
    process.exit(2);
  }
}
