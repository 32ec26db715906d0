/**
 * RocksDB answers point lookups on a table shale wrote through its own filter reader, with the
 * same answers as shale's: `testdata/rocksdb-filter-check/filter-check.cc` ingests the table
 * into a fresh RocksDB 7.8.3 database and Gets every key and as many absent ones. A filter
 * hash or layout that differed from RocksDB's would show as missing keys (RocksDB's filter
 * saying "no" for a key the table holds) or as a different count of filtered-out absent keys.
 * Runs when g++ and librocksdb-dev are installed; otherwise skipped with the reason printed.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { toBytes, ValueKind } from "@shale/base";
import { afterAll, describe, expect, it } from "vitest";
import type { TablePropertiesCollector } from "../table/builder-options.js";
import { buildTable, ikey, openTable } from "../table/table.test-support.js";

const source = fileURLToPath(
  new URL("../../testdata/rocksdb-filter-check/filter-check.cc", import.meta.url),
);
const work = mkdtempSync(join(tmpdir(), "shale-filter-interop-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function compileChecker(): string | undefined {
  if (!existsSync("/usr/include/rocksdb/db.h")) {
    console.log("filter-interop.test.ts skipped: RocksDB headers (librocksdb-dev) not installed");
    return undefined;
  }
  const binary = join(work, "filter-check");
  const r = spawnSync("g++", ["-O1", "-std=c++17", source, "-lrocksdb", "-o", binary], {
    encoding: "utf8",
  });
  if (r.error !== undefined || r.status !== 0) {
    console.log(
      `filter-interop.test.ts skipped: cannot build the RocksDB checker (${r.error?.message ?? r.stderr})`,
    );
    return undefined;
  }
  return binary;
}

const checker = compileChecker();

/** What RocksDB's ingestion wants of an external file (SstFileWriter writes the same two). */
const externalFile: TablePropertiesCollector = {
  add() {},
  finish: () => ({
    "rocksdb.external_sst_file.version": "\u0002\u0000\u0000\u0000", // fixed32 2
    "rocksdb.external_sst_file.global_seqno": "\u0000".repeat(8), // fixed64 0
  }),
};

describe.skipIf(checker === undefined)("RocksDB reads shale's filters", () => {
  it("finds every key through its filter and rules out the same absent keys as shale", () => {
    const present = 3000;
    const absent = 20_000;
    const keys: Uint8Array[] = [];
    const values: Uint8Array[] = [];
    for (let i = 0; i < present; i++) {
      const n = String(i).padStart(6, "0");
      keys.push(ikey(`key${n}`, 0, ValueKind.Value)); // ingested files hold seq 0
      values.push(toBytes(`v${n}`));
    }
    const table = buildTable(keys, values, {
      bitsPerKey: 10,
      blockSize: 1024,
      collectors: [externalFile],
    });
    const path = join(work, "000001.sst");
    writeFileSync(path, table.fs.readFile(table.path));

    const reader = openTable(table);
    let shaleRuledOut = 0;
    // Absent keys inside the table's key range (outside it RocksDB never asks the filter).
    for (let i = 0; i < absent; i++) {
      const gap = String(i % (present - 1)).padStart(6, "0");
      if (!reader.mayContain(toBytes(`key${gap}.${Math.floor(i / (present - 1))}`)))
        shaleRuledOut++;
    }
    reader.close();

    const r = spawnSync(checker!, [path, join(work, "db"), String(present), String(absent)], {
      encoding: "utf8",
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const got = Object.fromEntries(
      r.stdout
        .trim()
        .split(" ")
        .map((kv) => kv.split("=") as [string, string]),
    );
    expect(Number(got.found)).toBe(present);
    expect(Number(got.wrong)).toBe(0);
    // Every absent key RocksDB's filter rules out, shale's does too, and vice versa.
    expect(Number(got.useful)).toBe(shaleRuledOut);
    expect(shaleRuledOut).toBeGreaterThan(absent * 0.97); // ~1 % false positives
    // Every present key passed RocksDB's filter and was found.
    expect(Number(got.true_positive)).toBe(present);
  }, 120_000);
});
