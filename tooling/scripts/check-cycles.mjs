#!/usr/bin/env node
/**
 * Lists import cycles, and fails (exit 1) when there is one:
 * - between the files of each package and app (every `src/**\/*.ts`, tests included; type
 *   imports count too, so a cycle that only types close still shows), and
 * - between the workspace packages (their package.json dependencies).
 *
 *   node tooling/scripts/check-cycles.mjs            # prints "no import cycles" or each cycle
 *
 * Relative specifiers ("./x.js") resolve to the sibling .ts file; other packages' imports
 * count only for the package graph. Strongly connected components (Tarjan) of two or more
 * files, or a file importing itself, are cycles.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { importsOf, resolveRelative, tsFiles } from "./ts-imports.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

function workspaces() {
  const out = [];
  for (const group of ["packages", "apps"]) {
    const dir = join(root, group);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const pkg = join(dir, name, "package.json");
      if (existsSync(pkg))
        out.push({ dir: join(dir, name), pkg: JSON.parse(readFileSync(pkg, "utf8")) });
    }
  }
  return out;
}

/** Tarjan's strongly connected components; returns the cycles (components that loop). */
function cycles(graph) {
  let index = 0;
  const stack = [];
  const on = new Set();
  const idx = new Map();
  const low = new Map();
  const found = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) {
        low.set(v, Math.min(low.get(v), idx.get(w)));
      }
    }
    if (low.get(v) === idx.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? new Set()).has(v)) found.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return found;
}

const problems = [];
const spaces = workspaces();
const names = new Set(spaces.map((w) => w.pkg.name));
const packageGraph = new Map();
for (const { dir, pkg } of spaces) {
  const deps = { ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.devDependencies };
  packageGraph.set(pkg.name, new Set(Object.keys(deps).filter((d) => names.has(d))));
  const graph = new Map();
  for (const file of tsFiles(join(dir, "src"))) {
    const edges = new Set();
    for (const spec of importsOf(file)) {
      if (!spec.startsWith(".")) continue;
      const target = resolveRelative(file, spec);
      if (target !== undefined) edges.add(target);
    }
    graph.set(file, edges);
  }
  for (const c of cycles(graph)) {
    problems.push(`${pkg.name}: ${c.map((f) => relative(root, f)).join(" <-> ")}`);
  }
}
for (const c of cycles(packageGraph)) problems.push(`packages: ${c.join(" <-> ")}`);

if (problems.length === 0) {
  console.log(`no import cycles (${spaces.length} workspaces)`);
} else {
  console.log(`${problems.length} import cycle(s):`);
  for (const p of problems) console.log(`  ${p}`);
  process.exit(1);
}
