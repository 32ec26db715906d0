/**
 * Ingestion between shale and RocksDB 7.8.3's `ldb`, run where `db_bench`, `ldb` and
 * `sst_dump` are on the PATH (skipped with the reason printed elsewhere):
 *
 * | who ingests | file written by | checked |
 * |-------------|-----------------|---------|
 * | `ldb ingest_extern_sst` (write_global_seqno true, its default; and false) | shale's SstFileWriter | `ldb scan` shows the file over older data; shale opens the directory and reads the same, point lookups and scans both ways, before and after compacting everything; `ldb scan` after that agrees |
 * | `ldb ingest_extern_sst`, no overlap | shale's SstFileWriter | global seqno 0 kept; shale reads it |
 * | shale's `ingestExternalFile`, over older data and apart | `ldb write_extern_sst` | shale reads it, a snapshot taken before does not; `ldb scan` of the directory agrees, also after shale compacts it |
 */

import { spawnSync } from "node:child_process";
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

function mustRunWithInput(tool: string, args: string[], input: string): void {
  const r = spawnSync(tool, args, { encoding: "utf8", input, timeout: 120_000 });
  if (r.error !== undefined) throw r.error;
  expect(r.status, r.stdout + r.stderr).toBe(0);
}

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

function expectReads(db: DB, model: Map<string, string>): void {
  const want = entries(model);
  expect(shaleScan(db)).toEqual(want);
  expect(shaleReverseScan(db)).toEqual([...want].reverse());
  for (const [k, v] of model) expect(new TextDecoder().decode(db.get(enc.encode(k)))).toBe(v);
  expect(db.get(enc.encode("key99999"))).toBeUndefined();
}

/** shale opens `dir` and reads `model`, also after compacting everything (in a worker). */
async function expectShaleReads(dir: string, model: Map<string, string>): Promise<void> {
  const db = await DB.open(dir, { createIfMissing: false });
  try {
    expectReads(db, model);
    await db.compactRange();
    expectReads(db, model);
  } finally {
    await db.close();
  }
  expect(ldbScan(dir)).toEqual(entries(model));
}

/** `ldb write_extern_sst` of keys [first, first + count) with values `rocks<i>`. */
function ldbFile(
  scratchDb: string,
  path: string,
  model: Map<string, string>,
  first: number,
  count: number,
) {
  const lines: string[] = [];
  for (let i = first; i < first + count; i++) {
    lines.push(`${key(i)} ==> rocks${i}`);
    model.set(key(i), `rocks${i}`);
  }
  mustRunWithInput(
    "ldb",
    [`--db=${scratchDb}`, "--create_if_missing", "write_extern_sst", path],
    `${lines.join("\n")}\n`,
  );
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

  for (const overlap of [true, false]) {
    it(`shale ingests ldb write_extern_sst's file ${overlap ? "over older data (global seqno)" : "apart (seqno 0)"}; ldb scan agrees`, async () => {
      const dir = join(tmp.path, `shale-ingests-${overlap}`);
      const model = new Map<string, string>();
      const db = await DB.open(dir);
      for (let i = 0; i < 200; i += 2) {
        db.put(key(i), `old${i}`);
        model.set(key(i), `old${i}`);
      }
      await db.flush();
      db.put(key(1), "mem");
      model.set(key(1), "mem");
      const snap = db.snapshot();
      const before = entries(model);
      const file = join(tmp.path, `rocks-${overlap}.sst`);
      ldbFile(join(tmp.path, `scratch-${overlap}`), file, model, overlap ? 50 : 1000, 100);
      await db.ingestExternalFile(file);
      expectReads(db, model);
      expect(shaleScan({ iterator: () => db.iterator({ snapshot: snap }) })).toEqual(before);
      snap.release();
      await db.close();
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
