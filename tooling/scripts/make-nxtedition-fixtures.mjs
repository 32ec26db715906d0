#!/usr/bin/env node
// Writes the fixtures made by @nxtedition/rocksdb (RocksDB 9.7, a devDependency of @shale/db;
// its defaults: ZSTD tables with a 16 KiB trained dictionary, a ZSTD-compressed WAL, XXH3,
// table format_version 6):
//
//   packages/db/testdata/rocksdb/nxtedition-zstd-wal/
//       only a WAL (RocksDB's wal_compression=kZSTD): 3 write batches of puts, overwrites and
//       deletes, never flushed
//   packages/db/testdata/rocksdb/nxtedition-zstd-dict/
//       one table whose data blocks are ZSTD-compressed with the table's dictionary
//       (rocksdb.compression_dict, trained): 300 fill entries and 10 deletes written to the
//       WAL, then flushed by the binding's next open (RocksDB flushes the WAL it recovers);
//       then puts and deletes left in a new compressed WAL
//
// Keys and values (see packages/db/testdata/rocksdb/README.md): fill entry i is the key
// `k` ‖ i as 8 ASCII digits and the value `value-<i>-` repeated to 100 bytes (the producer's
// fill step). nxtedition-zstd-wal/expected.jsonl is the binding's own scan of the result, as
// JSON lines {"key":"<hex>","value":"<hex>"} in key order; nxtedition-zstd-dict has none (it
// would outweigh the database): its contents follow from the history above, which this script
// checks against the binding's scan (fixtures.test.ts rebuilds the same model). The info LOG and LOCK are removed, the other
// files rewritten (dropping the disk space RocksDB preallocates).
//
// Run from anywhere: node tooling/scripts/make-nxtedition-fixtures.mjs. The output is
// deterministic up to the ids, timestamps, host names and base context checksums RocksDB
// writes.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const producer = join(root, "packages/db/src/interop/producers/nxtedition-rocksdb.cjs");
const hex = (s) => Buffer.from(s, "utf8").toString("hex");
const fillKey = (i) => hex(`k${String(i).padStart(8, "0")}`);

function run(plan) {
  const r = spawnSync(process.execPath, [producer, JSON.stringify(plan)], { encoding: "utf8" });
  const line = r.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (r.status !== 0 || line === undefined) {
    console.error(r.stderr, r.stdout);
    process.exit(1);
  }
  return JSON.parse(line.slice("RESULT ".length)).results;
}

/** Copies the database in `work` to testdata/rocksdb/<name> (with expected.jsonl if given). */
function save(work, name, scanned) {
  const out = join(root, "packages/db/testdata/rocksdb", name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  for (const f of readdirSync(work)) {
    if (f === "LOCK" || f === "LOG" || f.startsWith("LOG.old")) continue;
    writeFileSync(join(out, f), readFileSync(join(work, f)));
  }
  if (scanned !== undefined) {
    writeFileSync(
      join(out, "expected.jsonl"),
      scanned.map(([key, value]) => `${JSON.stringify({ key, value })}\n`).join(""),
    );
  }
  rmSync(work, { recursive: true, force: true });
  console.log(`${name}: ${readdirSync(out).join(" ")}`);
}

{
  // Three batches (each get step writes the batch before it), never flushed.
  const dir = mkdtempSync(join(tmpdir(), "nx-wal-"));
  const steps = [];
  for (let i = 0; i < 40; i++) {
    steps.push({
      op: "put",
      key: hex(`wal-${String(i).padStart(3, "0")}`),
      value: hex(`v${i}-${"z".repeat(i)}`),
    });
  }
  steps.push({ op: "get", keys: [hex("wal-000")] });
  for (let i = 0; i < 40; i += 4)
    steps.push({
      op: "put",
      key: hex(`wal-${String(i).padStart(3, "0")}`),
      value: hex(`again-${i}`),
    });
  steps.push({ op: "get", keys: [hex("wal-000")] });
  for (let i = 1; i < 40; i += 6)
    steps.push({ op: "delete", key: hex(`wal-${String(i).padStart(3, "0")}`) });
  steps.push({ op: "scan" });
  const results = run({ dir, steps });
  save(dir, "nxtedition-zstd-wal", results.at(-1));
}

{
  const dir = mkdtempSync(join(tmpdir(), "nx-dict-"));
  const model = new Map();
  const first = [{ op: "fill", prefix: hex("k"), count: 300, valueSize: 100 }];
  for (let i = 0; i < 300; i++) {
    model.set(fillKey(i), hex(`value-${i}-`.repeat(13).slice(0, 100)));
  }
  for (let i = 5; i < 300; i += 30) {
    first.push({ op: "delete", key: fillKey(i) });
    model.delete(fillKey(i));
  }
  run({ dir, steps: first });
  // This open recovers the WAL into a table (ZSTD with a dictionary); these stay in the WAL.
  const second = [];
  for (let i = 0; i < 300; i += 25) {
    second.push({ op: "put", key: fillKey(i), value: hex(`wal-${i}`) });
    model.set(fillKey(i), hex(`wal-${i}`));
  }
  second.push({ op: "delete", key: fillKey(7) });
  model.delete(fillKey(7));
  second.push({ op: "put", key: hex("zz-wal-only"), value: hex("in the compressed WAL") });
  model.set(hex("zz-wal-only"), hex("in the compressed WAL"));
  second.push({ op: "scan" });
  const scanned = run({ dir, steps: second }).at(-1);
  const want = [...model.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (JSON.stringify(scanned) !== JSON.stringify(want)) {
    console.error("nxtedition-zstd-dict: the binding's scan differs from the history's model");
    process.exit(1);
  }
  save(dir, "nxtedition-zstd-dict", undefined);
}
