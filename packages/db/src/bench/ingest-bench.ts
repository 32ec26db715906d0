/**
 * ingest-bench: loading N keys by `ingestExternalFile` of one SstFileWriter file against
 * putting the same keys (not a test; reports figures only).
 *
 *   cd packages/db && npx tsc -b && node dist/bench/ingest-bench.js [--keys=1000000]
 *     [--rounds=5] [--value_size=100]
 *
 * The file (16-byte keys in order, `value_size`-byte values that do not compress,
 * SstFileWriter's defaults) is
 * written once, outside the timings, as a bulk load prepares its files elsewhere. Each
 * round then loads the keys into a fresh database on disk (WAL on, no sync) two ways, the
 * order alternating every round:
 * - put: `db.put` of every key in order, then `db.flush()` (the keys in a table, as the
 *   ingestion leaves them);
 * - ingest: `db.ingestExternalFile(file)` (a copy into the database, synced; one MANIFEST
 *   edit).
 * Wall time of each; per round the ratio put / ingest; medians printed (and the ratio of
 * the puts alone, without the flush).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SstFileWriter } from "@shale/sstable";
import { DB } from "../db.js";

function arg(name: string, fallback: string): number {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return Number(a === undefined ? fallback : a.slice(name.length + 3));
}

const KEYS = arg("keys", "1000000");
const ROUNDS = arg("rounds", "5");
const VALUE_SIZE = arg("value_size", "100");

const key = new Uint8Array(16).fill(0x30);
const view = new DataView(key.buffer);
// Values are slices of a random pool (at a different place per key), so compression does
// not shrink the file below the data's size.
const pool = new Uint8Array(1 << 20);
for (let i = 0; i < pool.length; i++) pool[i] = (Math.random() * 256) | 0;
function valueAt(i: number): Uint8Array {
  const at = (i * 7919) % (pool.length - VALUE_SIZE);
  return pool.subarray(at, at + VALUE_SIZE);
}

function setKey(i: number): void {
  view.setUint32(8, Math.floor(i / 0x100000000));
  view.setUint32(12, i >>> 0);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const work = mkdtempSync(join(tmpdir(), "shale-ingest-bench-"));
try {
  const file = join(work, "bulk.sst");
  const t0 = performance.now();
  const w = new SstFileWriter();
  w.open(file);
  for (let i = 0; i < KEYS; i++) {
    setKey(i);
    w.put(key, valueAt(i));
  }
  const info = w.finish();
  const writeMs = performance.now() - t0;
  console.log(
    `SstFileWriter: ${KEYS} keys, ${(info.fileSize / 1e6).toFixed(1)} MB in ${writeMs.toFixed(0)} ms (not in the ratio)`,
  );

  async function putRound(): Promise<{ puts: number; total: number }> {
    const dir = mkdtempSync(join(work, "put-"));
    const db = await DB.open(dir);
    const a = performance.now();
    for (let i = 0; i < KEYS; i++) {
      setKey(i);
      db.put(key, valueAt(i));
    }
    const b = performance.now();
    await db.flush();
    const c = performance.now();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
    return { puts: b - a, total: c - a };
  }

  async function ingestRound(): Promise<number> {
    const dir = mkdtempSync(join(work, "ingest-"));
    const db = await DB.open(dir);
    const a = performance.now();
    await db.ingestExternalFile(file);
    const b = performance.now();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
    return b - a;
  }

  const ratios: number[] = [];
  const putOnlyRatios: number[] = [];
  const puts: number[] = [];
  const ingests: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    let p: { puts: number; total: number };
    let g: number;
    if (r % 2 === 0) {
      p = await putRound();
      g = await ingestRound();
    } else {
      g = await ingestRound();
      p = await putRound();
    }
    puts.push(p.total);
    ingests.push(g);
    ratios.push(p.total / g);
    putOnlyRatios.push(p.puts / g);
    console.log(
      `round ${r + 1}: put+flush ${p.total.toFixed(0)} ms (puts ${p.puts.toFixed(0)} ms), ingest ${g.toFixed(1)} ms, ratio ${(p.total / g).toFixed(1)}x`,
    );
  }
  console.log(
    `median: put+flush ${median(puts).toFixed(0)} ms, ingest ${median(ingests).toFixed(1)} ms; ` +
      `median of per-round ratios ${median(ratios).toFixed(1)}x (puts alone ${median(putOnlyRatios).toFixed(1)}x)`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
