/**
 * Ingestion between shale and RocksDB 7.8.3's `ldb`, run where `db_bench`, `ldb` and
 * `sst_dump` are on the PATH (skipped with the reason printed elsewhere):
 *
 * | who ingests | file written by | checked |
 * |-------------|-----------------|---------|
 * | `ldb ingest_extern_sst` (write_global_seqno true, its default; and false) | shale's SstFileWriter | `ldb scan` shows the file over older data; shale opens the directory and reads the same, point lookups and scans both ways |
 * | `ldb ingest_extern_sst`, no overlap | shale's SstFileWriter | global seqno 0 kept; shale reads it |
 * | shale's `ingestExternalFile` | `ldb write_extern_sst` | shale reads it over older data; `ldb scan` of the directory agrees |
 */
import { join } from "node:path";
import { SstFileWriter } from "@shale/sstable";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import {
  type HexEntry,
  ldbScan,
  missingToolsReason,
  mustRun,
  shaleReverseScan,
  shaleScan,
  tempDir,
} from "./interop.test-support.js";

const toolsMissing = missingToolsReason();
if (toolsMissing !== undefined) console.log(`ingest interop: skipped — ${toolsMissing}`);

const tmp = tempDir("ingest");
afterAll(() => tmp.remove());

const enc = new TextEncoder();
const hex = (s: string) => Buffer.from(s).toString("hex");
const key = (i: number) => `key${String(i).padStart(5, "0")}`;

/** The entries a model map (string -> string) holds, in key order, as hex. */
function entries(model: Map<string, string>): HexEntry[] {
  return [...model.keys()].sort().map((k) => ({ key: hex(k), value: hex(model.get(k)!) }));
}

/** ldb puts `count` keys from `first`, step `step`, with values `old<i>`. */
function ldbFill(
  dir: string,
  model: Map<string, string>,
  first: number,
  count: number,
  step: number,
) {
  const lines: string[] = [];
  for (let n = 0, i = first; n < count; n++, i += step) {
    lines.push(`put ${key(i)} old${i}`);
    model.set(key(i), `old${i}`);
  }
  // One ldb process per put is slow: `ldb batchput` takes pairs.
  const args = [`--db=${dir}`, "--create_if_missing", "batchput"];
  for (const l of lines) {
    const [, k, v] = l.split(" ");
    args.push(k!, v!);
  }
  mustRun("ldb", args);
}

/** An SstFileWriter file of keys [first, first + count) with values `new<i>`. */
function shaleFile(path: string, model: Map<string, string>, first: number, count: number) {
  const w = new SstFileWriter();
  w.open(path);
  for (let i = first; i < first + count; i++) {
    w.put(key(i), `new${i}`);
    model.set(key(i), `new${i}`);
  }
  w.finish();
}

async function expectShaleReads(dir: string, model: Map<string, string>): Promise<void> {
  const db = await DB.open(dir, { createIfMissing: false });
  try {
    const want = entries(model);
    expect(shaleScan(db)).toEqual(want);
    expect(shaleReverseScan(db)).toEqual([...want].reverse());
    for (const [k, v] of model) expect(new TextDecoder().decode(db.get(enc.encode(k)))).toBe(v);
    expect(db.get(enc.encode("key99999"))).toBeUndefined();
  } finally {
    await db.close();
  }
}

describe.skipIf(toolsMissing !== undefined)("ingestion and RocksDB 7.8.3's ldb", () => {
  for (const writeGlobalSeqno of [true, false]) {
    it(`ldb ingests shale's file over older data (write_global_seqno=${writeGlobalSeqno}); shale reads the directory`, async () => {
      const dir = join(tmp.path, `ldb-over-${writeGlobalSeqno}`);
      const model = new Map<string, string>();
      ldbFill(dir, model, 0, 200, 2); // key00000, key00002, ... key00398: older data
      mustRun("ldb", [`--db=${dir}`, "compact"]);
      ldbFill(dir, model, 1, 5, 100); // and some in the memtable (ldb flushes it first)
      const file = join(tmp.path, `over-${writeGlobalSeqno}.sst`);
      shaleFile(file, model, 100, 100); // key00100 .. key00199: overlaps both
      mustRun("ldb", [
        `--db=${dir}`,
        "ingest_extern_sst",
        file,
        `--write_global_seqno=${writeGlobalSeqno}`,
      ]);
      const dump = mustRun("ldb", [`--db=${dir}`, "manifest_dump"]);
      // The ingested file's largest seqno is the sequence after the 205 puts.
      expect(dump).toContain("[206 .. 206]");
      expect(ldbScan(dir)).toEqual(entries(model));
      await expectShaleReads(dir, model);
    });
  }

  it("ldb ingests shale's file that overlaps nothing: seqno 0 kept; shale reads it", async () => {
    const dir = join(tmp.path, "ldb-apart");
    const model = new Map<string, string>();
    ldbFill(dir, model, 0, 50, 1);
    const file = join(tmp.path, "apart.sst");
    shaleFile(file, model, 1000, 100);
    mustRun("ldb", [`--db=${dir}`, "ingest_extern_sst", file]);
    expect(ldbScan(dir)).toEqual(entries(model));
    await expectShaleReads(dir, model);
  });
});
