// The TypeScript files of a source tree and their import specifiers, for the tooling checks
// (check-cycles.mjs, check-layers.mjs). Comments are dropped first, so an import shown in
// TSDoc does not count; type-only imports and re-exports do.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** Every .ts/.mts/.tsx file under dir (not .d.ts, node_modules or dist), sorted. */
export function tsFiles(dir) {
  const out = [];
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir).sort()) {
    if (entry === "node_modules" || entry === "dist") continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...tsFiles(path));
    else if (/\.(ts|mts|tsx)$/.test(entry) && !entry.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** The specifiers `file` imports or re-exports (static, side-effect and dynamic). */
export function importsOf(file) {
  // Drop comments so examples in TSDoc do not count.
  const text = readFileSync(file, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:])\/\/.*$/gm, "$1");
  const out = [];
  for (const m of text.matchAll(IMPORT)) out.push(m[1] ?? m[2]);
  return out;
}

/** The file a relative specifier of `from` names, or undefined. */
export function resolveRelative(from, spec) {
  const base = resolve(dirname(from), spec);
  const candidates = [
    base.replace(/\.js$/, ".ts"),
    base.replace(/\.mjs$/, ".mts"),
    base,
    `${base}.ts`,
    join(base, "index.ts"),
  ];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}
