#!/usr/bin/env node
// A package build's second step, run after `tsc -b` in the package directory:
// 1. the `require` half of the package's exports (below);
// 2. the docs its README links: `docs/formats/<name>.md` links resolve inside the package, to a
//    copy of the repository's `docs/formats/<name>.md` written here (git-ignored, shipped by
//    `files`), so the tarball has every file its README links.
//
// 1.
// shale ships ESM only. Node >= 20.19 can `require()` an ES module (require(esm), no flag,
// no top-level await allowed), so the CommonJS entry is a one-line wrapper over the ESM one:
// `dist/cjs/<entry>.js` = `module.exports = require("../<entry>.js")`. `require` and `import`
// therefore load the SAME module instance (no dual-package hazard: one ShaleError class, one
// set of statistics). TypeScript needs CommonJS-flavoured declarations for a node16-CJS
// consumer (an ESM .d.ts reached from `require` is error TS1479), so the package's .d.ts
// files are copied under dist/cjs/, which holds a {"type":"commonjs"} package.json.
//
// Every `exports` entry shaped { import: { default: "./dist/X.js" }, require: { default:
// "./dist/cjs/X.js" } } gets its wrapper; benchmarks (dist/**/bench) are not copied.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";

const pkgDir = process.cwd();
const pj = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
const dist = join(pkgDir, "dist");
const cjs = join(dist, "cjs");
rmSync(cjs, { recursive: true, force: true });
mkdirSync(cjs, { recursive: true });
writeFileSync(join(cjs, "package.json"), '{\n  "type": "commonjs"\n}\n');

function copyDeclarations(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const from = join(dir, e.name);
    if (e.isDirectory()) {
      if (from !== cjs && e.name !== "bench") copyDeclarations(from);
    } else if (e.name.endsWith(".d.ts")) {
      const to = join(cjs, relative(dist, from));
      mkdirSync(dirname(to), { recursive: true });
      // The declaration map's relative URL would be wrong one directory down: dropped.
      const text = readFileSync(from, "utf8").replace(/\n\/\/# sourceMappingURL=.*\s*$/, "\n");
      writeFileSync(to, text);
    }
  }
}
copyDeclarations(dist);

let n = 0;
for (const [sub, entry] of Object.entries(pj.exports ?? {})) {
  if (typeof entry !== "object" || entry === null) continue;
  const esm = entry.import?.default;
  const req = entry.require?.default;
  if (typeof esm !== "string" || typeof req !== "string") {
    throw new Error(`${pj.name} exports["${sub}"]: needs import.default and require.default`);
  }
  const out = join(pkgDir, req);
  const target = relative(dirname(out), join(pkgDir, esm)).replaceAll("\\", "/");
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `"use strict";\n// require(esm): the same module instance as \`import\` (Node >= 20.19).\nmodule.exports = require(${JSON.stringify(target.startsWith(".") ? target : `./${target}`)});\n`,
  );
  n++;
}

const readme = join(pkgDir, "README.md");
const docs = [];
if (existsSync(readme)) {
  for (const [, name] of readFileSync(readme, "utf8").matchAll(
    /\]\(docs\/formats\/([\w.-]+\.md)/g,
  )) {
    const from = join(pkgDir, "..", "..", "docs", "formats", name);
    if (!existsSync(from))
      throw new Error(`${pj.name}: README links docs/formats/${name}: no ${from}`);
    mkdirSync(join(pkgDir, "docs", "formats"), { recursive: true });
    copyFileSync(from, join(pkgDir, "docs", "formats", name));
    if (!docs.includes(name)) docs.push(name);
  }
}
console.log(
  `${pj.name}: ${n} CommonJS entr${n === 1 ? "y" : "ies"} in dist/cjs/` +
    (docs.length > 0 ? `; docs/formats/{${docs.join(",")}} copied` : ""),
);
