/**
 * peak-rss-bench: where a database's resident memory goes, phase by phase, the way db-bench's
 * default sequence writes and reads (not a test; reports figures only).
 *
 *   cd packages/db && npx tsc -b && node dist/bench/peak-rss-bench.js [--num=1000000]
 *     [--options='{"maxBackgroundJobs":1}'] [--settle] [--dir=DIR]
 *
 * Opens a fresh database with db-bench's memory settings (64 MiB write buffer, a 32 MiB
 * block cache that recycles blocks, as the database's own cache does) and `--options` on
 * top; then `fillrandom` and `overwrite` (`num` random 16-byte keys each, 100-byte values),
 * `readrandom` (`num` gets), `readseq` (one full scan) and `seekrandom` (`num / 5` seeks, 10
 * nexts each). `--settle` waits for the background compactions before the reads, so that the
 * reads run with no compaction in the workers.
 *
 * Each phase prints the process's peak VmRSS during it (sampled every 4,096 operations on
 * this thread, so a spike between two samples is missed; Linux /proc) and, at its end, with a
 * full collection first when `--expose-gc` is on: this thread's heap (used / committed), its
 * ArrayBuffers (memtable arenas, shared with the worker that flushes them, and blocks), the
 * memtable chunk pool's spare bytes, the block cache's charge, and the bytes of the buffers
 * behind the cached blocks (more than the blocks themselves when a cached block pins a larger
 * buffer, such as a captured chunk). Worker threads' memory is not visible from here: it is
 * the rest of the RSS (see docs/benchmarks for a breakdown by thread).
 */
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Block, newBlockCache } from "@shale/sstable";
import type { DbOptions } from "../core/options.js";
import { DB } from "../db.js";
import { decimalKeys, xorshift } from "./bench-keys.js";

function arg(name: string, fallback: string): string {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return a === undefined ? fallback : a.slice(name.length + 3);
}

const NUM = Number(arg("num", "1000000"));
const DIR = arg("dir", join(tmpdir(), `shale-peak-rss-${process.pid}`));
const EXTRA = JSON.parse(arg("options", "{}")) as DbOptions;
const SETTLE = process.argv.includes("--settle");
const MIB = 1024 * 1024;

const rand = xorshift(307);
const keyOf = decimalKeys();
const value = new Uint8Array(100).fill(0x61);
for (let i = 0; i < 50; i++) value[i] = (i * 131) & 0xff;

function vmRss(): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"));
  return m === null ? 0 : Number(m[1]) * 1024;
}

let phasePeak = 0;
function sample(): void {
  const r = vmRss();
  if (r > phasePeak) phasePeak = r;
}

const cache = newBlockCache(32 * MIB, { recycleBlocks: true });

/**
 * The bytes of the distinct buffers behind the cached blocks. Reads the cache's slot table
 * (private to @shale/block-cache: a bench may look, nothing else should).
 */
function cachedBacking(): { blocks: number; views: number; backing: number } {
  const table = (cache as unknown as { table: { values: (Block | undefined)[] } }).table;
  const buffers = new Set<ArrayBufferLike>();
  let blocks = 0;
  let views = 0;
  let backing = 0;
  for (const b of table.values) {
    if (b === undefined || b === null) continue;
    blocks++;
    views += b.data.byteLength;
    if (!buffers.has(b.data.buffer)) {
      buffers.add(b.data.buffer);
      backing += b.data.buffer.byteLength;
    }
  }
  return { blocks, views, backing };
}

const mb = (n: number): string => (n / MIB).toFixed(0);

function report(db: DB | undefined, phase: string): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc !== undefined) gc();
  const m = process.memoryUsage();
  const c = cachedBacking();
  const pool =
    db === undefined ? "-" : mb(Number(db.getProperty("shale.memtable-chunk-pool-bytes")));
  console.log(
    `${phase.padEnd(11)} peak ${mb(phasePeak)} MB  end ${mb(vmRss())} MB  heap ${mb(m.heapUsed)}/` +
      `${mb(m.heapTotal)}  arrayBuffers ${mb(m.arrayBuffers)}  pool ${pool}  cache ${mb(cache.usage)}` +
      `  cached blocks ${c.blocks} (${mb(c.views)} MB in ${mb(c.backing)} MB of buffers)`,
  );
  phasePeak = 0;
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

rmSync(DIR, { recursive: true, force: true });
const db = await DB.open(DIR, { writeBufferSize: 64 * MIB, blockCache: cache, ...EXTRA });
report(db, "open");
for (const phase of ["fillrandom", "overwrite"]) {
  for (let i = 0; i < NUM; i++) {
    db.put(keyOf(rand(NUM)), value);
    if ((i & 4095) === 0) {
      sample();
      await tick();
    }
  }
  report(db, phase);
}
if (SETTLE) {
  await db.waitForCompactions();
  sample();
  report(db, "settled");
}
for (let i = 0; i < NUM; i++) {
  db.get(keyOf(rand(NUM)));
  if ((i & 4095) === 0) {
    sample();
    await tick();
  }
}
report(db, "readrandom");
{
  const it = db.iterator();
  let i = 0;
  for (it.seekToFirst(); it.valid(); it.next()) if ((++i & 4095) === 0) sample();
  it.close();
}
report(db, "readseq");
{
  const it = db.iterator();
  for (let i = 0; i < NUM / 5; i++) {
    it.seek(keyOf(rand(NUM)));
    for (let j = 0; j < 10 && it.valid(); j++) it.next();
    if ((i & 1023) === 0) {
      sample();
      await tick();
    }
  }
  it.close();
}
report(db, "seekrandom");
await db.close();
report(undefined, "closed");
rmSync(DIR, { recursive: true, force: true });
