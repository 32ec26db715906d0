// Writes packages/db/testdata/rocksdb/blob-files/ with rocksdb-native (RocksDB 10.5.1, blob files,
// table format 5) and its expected.jsonl (the producer's own scan). Run from packages/db:
//   node ../../tooling/scripts/make-rocksdb-blob-fixture.mjs testdata/rocksdb/blob-files
import { spawnSync } from "node:child_process";
import { readdirSync, rmSync, writeFileSync } from "node:fs";

const out = process.argv[2];
rmSync(out, { recursive: true, force: true });
const hex = (s) => Buffer.from(s).toString("hex");
const steps = [];
const fruits = ["apple", "banana", "cherry", "date", "elderberry", "fig"];
for (const f of fruits)
  steps.push({ op: "put", key: hex(f), value: hex(`v-${f}-`.padEnd(40, f[0])) });
steps.push({ op: "flush" });
steps.push({ op: "put", key: hex("apple"), value: hex("green apple, second version") });
steps.push({ op: "delete", key: hex("cherry") });
steps.push({ op: "put", key: hex("grape"), value: hex("v-grape") });
steps.push({ op: "flush" });
steps.push({ op: "delete", key: hex("fig") });
steps.push({ op: "put", key: hex("kiwi"), value: hex("v-kiwi, only in the WAL") });
steps.push({ op: "scan" });
const plan = {
  dir: out,
  columnFamilies: { default: { enableBlobFiles: true, minBlobSize: 0, tableFormatVersion: 5 } },
  steps,
};
const r = spawnSync(
  process.execPath,
  [
    new URL("../../packages/db/src/interop/producers/rocksdb-native.cjs", import.meta.url).pathname,
    JSON.stringify(plan),
  ],
  { encoding: "utf8" },
);
if (r.status !== 0) {
  console.error(r.stderr);
  process.exit(1);
}
const rows = JSON.parse(
  r.stdout
    .split("\n")
    .find((l) => l.startsWith("RESULT "))
    .slice(7),
).results[0];
for (const n of ["LOG", "LOCK"]) rmSync(`${out}/${n}`, { force: true });
writeFileSync(
  `${out}/expected.jsonl`,
  `${rows.map(([key, value]) => JSON.stringify({ key, value })).join("\n")}\n`,
);
console.log(readdirSync(out));
