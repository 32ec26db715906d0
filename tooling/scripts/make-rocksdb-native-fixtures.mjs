#!/usr/bin/env node
// Writes the fixtures made by rocksdb-native (RocksDB 10.5.1, a devDependency of @shale/db):
//
//   packages/db/testdata/rocksdb/format-6/   table format_version 6 (rocksdb-native's default)
//   packages/db/testdata/rocksdb/format-7/   table format_version 7 (`tableFormatVersion: 7`)
//   packages/sstable/testdata/rocksdb-tables/fv6-xxh3.sst, fv7-xxh3.sst
//       one flushed table each: 100 puts `key000000`..`key000099` -> `value-<i>-` and
//       `i % 23` x's (the binding writes XXH3, no compression, a 10-bit Bloom filter)
//
// Both hold the same history (see packages/db/testdata/rocksdb/README.md): 60 puts and a
// flush; 20 more puts, a delete and a range deletion and a flush; 5 puts and a delete left in
// the WAL. Tables are XXH3-checksummed and uncompressed (the binding's build has no Snappy)
// with a 10-bit Bloom filter. expected.jsonl is rocksdb-native's own scan of the result, as
// JSON lines {"key":"<hex>","value":"<hex>"} in key order. The info LOG and LOCK are removed,
// the other files rewritten (dropping the disk space RocksDB preallocates).
//
// Run from anywhere: node tooling/scripts/make-rocksdb-native-fixtures.mjs. The output is
// deterministic up to the ids, timestamps, host names and base context checksums RocksDB
// writes.
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const producer = join(root, "packages/db/src/interop/producers/rocksdb-native.cjs");
const hex = (s) => Buffer.from(s, "utf8").toString("hex");
const key = (i) => hex(`key-${String(i).padStart(3, "0")}`);
const value = (i) => hex(`value-${String(i).padStart(3, "0")}-${"x".repeat(i % 17)}`);

function steps() {
  const out = [];
  for (let i = 0; i < 60; i++) out.push({ op: "put", key: key(i), value: value(i) });
  out.push({ op: "flush" });
  for (let i = 60; i < 80; i++) out.push({ op: "put", key: key(i), value: value(i) });
  out.push({ op: "delete", key: key(10) });
  out.push({ op: "deleteRange", start: key(20), end: key(25) });
  out.push({ op: "flush" });
  for (let i = 80; i < 85; i++) out.push({ op: "put", key: key(i), value: value(i) });
  out.push({ op: "delete", key: key(1) });
  out.push({ op: "scan" }, { op: "close" });
  return out;
}

function run(plan) {
  const r = spawnSync(process.execPath, [producer, JSON.stringify(plan)], { encoding: "utf8" });
  const line = r.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (r.status !== 0 || line === undefined) {
    console.error(r.stderr, r.stdout);
    process.exit(1);
  }
  return JSON.parse(line.slice("RESULT ".length)).results;
}

for (const version of [6, 7]) {
  const work = mkdtempSync(join(tmpdir(), "fv-table-"));
  const puts = [];
  for (let i = 0; i < 100; i++) {
    const k = hex(`key${String(i).padStart(6, "0")}`);
    puts.push({ op: "put", key: k, value: hex(`value-${i}-${"x".repeat(i % 23)}`) });
  }
  run({
    dir: work,
    columnFamilies: { default: { tableFormatVersion: version } },
    steps: [...puts, { op: "flush" }, { op: "close" }],
  });
  const [table] = readdirSync(work).filter((f) => f.endsWith(".sst"));
  const out = join(root, `packages/sstable/testdata/rocksdb-tables/fv${version}-xxh3.sst`);
  copyFileSync(join(work, table), out);
  rmSync(work, { recursive: true, force: true });
  console.log(`fv${version}-xxh3.sst: ${out}`);
}

for (const version of [6, 7]) {
  const dir = join(root, `packages/db/testdata/rocksdb/format-${version}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dirname(dir), { recursive: true });
  const plan = {
    dir,
    columnFamilies: { default: { tableFormatVersion: version } },
    steps: steps(),
  };
  const [scan] = run(plan);
  writeFileSync(
    join(dir, "expected.jsonl"),
    scan.map(([k, v]) => `${JSON.stringify({ key: k, value: v })}\n`).join(""),
  );
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === "LOCK" || name === "LOG" || name.startsWith("LOG.old")) rmSync(path);
    // Rewritten to drop the space RocksDB preallocates for its WAL and MANIFEST.
    else writeFileSync(path, readFileSync(path));
  }
  console.log(`format-${version}: ${scan.length} keys in ${dir}`);
}
