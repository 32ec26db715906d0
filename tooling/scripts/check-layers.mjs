#!/usr/bin/env node
// packages/db/src's folders point one way: a file may import its own folder or a
// lower layer, never a higher one. The layers, lowest first, are LAYERS below and the diagram in
// packages/db/src/README.md. Tests (*.test.ts, *.test-support.ts), bench/ and test fixtures
// are exempt: they may drive the whole DB. Fails naming the file, the import and both layers.
//   node tooling/scripts/check-layers.mjs [srcDir]   (default packages/db/src)
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { importsOf, tsFiles } from "./ts-imports.mjs";

/** Lowest first. A path belongs to the longest prefix that matches. */
export const LAYERS = [
  ["core/"], // options, filenames, merge operators, snapshots, byte ownership
  ["blob/"], // RocksDB's blob files: format, blob index, MANIFEST records, reader, source
  ["version/"], // VersionEdit, Version, VersionSet, MANIFEST replay and recovery
  ["iterator/"], // the DB iterator and its sources
  ["write/"], // write batch, WAL write path
  ["read/"], // point lookups, iterator sources over a version
  ["compaction/"], // picking, compaction iterator, jobs, table building
  ["flush/"], // memtable -> L0 table
  ["background/"], // executor and workers, flush and compaction scheduling, write throttling
  ["secondary/"], // read-only and secondary instances following a primary
  ["open/"], // recovery at open
  ["ops/"], // checkpoint, live files, sizes, checksums, properties, clear
  ["column-family/"], // one LSM tree per column family, the write loop, the data methods
  ["txn/"], // transactions: lock manager, conflict check by sequence
  ["open/assemble.ts", "open/close.ts", "secondary/open-follower.ts"], // what db.ts composes
  ["db.ts"], // the DB class
  ["repair/", "ops/backup/engine.ts", "reader/"], // tools that take or open a DB; worker readers
  ["index.ts", "internal.ts"], // the package surface (and the internals tools use)
];

const EXEMPT =
  /(\.test\.ts|\.test-support\.ts)$|(^|\/)(bench|test-fixtures|test-support|interop)\//;

export function layerOf(rel) {
  let best = -1;
  let bestLen = -1;
  LAYERS.forEach((prefixes, rank) => {
    for (const p of prefixes) {
      const hit = p.endsWith("/") ? rel.startsWith(p) : rel === p;
      if (hit && p.length > bestLen) {
        best = rank;
        bestLen = p.length;
      }
    }
  });
  return best;
}

const layerName = (rank) => LAYERS[rank].join(" ");

/** Every back-edge in srcDir: { file, spec, from, to }. */
export function checkLayers(srcDir) {
  const bad = [];
  for (const abs of tsFiles(srcDir)) {
    const rel = relative(srcDir, abs).split(sep).join("/");
    if (EXEMPT.test(rel)) continue;
    const from = layerOf(rel);
    if (from < 0) {
      bad.push({
        file: rel,
        spec: "",
        from,
        to: -1,
        why: "is in no layer (add its folder to LAYERS)",
      });
      continue;
    }
    for (const spec of importsOf(abs)) {
      if (!spec.startsWith(".")) continue; // another package
      const target = relative(srcDir, resolve(dirname(abs), spec))
        .split(sep)
        .join("/")
        .replace(/\.js$/, ".ts");
      if (target.startsWith("..")) continue; // outside src (package.json and the like)
      const to = layerOf(target);
      if (to > from)
        bad.push({
          file: rel,
          spec,
          from,
          to,
          why: `(${layerName(from)}) imports a higher layer (${layerName(to)})`,
        });
    }
  }
  return bad;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
  const src = resolve(process.argv[2] ?? join(root, "packages/db/src"));
  const bad = checkLayers(src);
  for (const b of bad)
    console.error(`layer back-edge: ${b.file}${b.spec ? ` imports "${b.spec}"` : ""} ${b.why}`);
  if (bad.length > 0) {
    console.error(
      `${bad.length} layer violation(s) in ${relative(process.cwd(), src) || "."}; layers in packages/db/src/README.md`,
    );
    process.exit(1);
  }
  console.log(`packages/db/src layers point one way (${LAYERS.length} layers)`);
}
