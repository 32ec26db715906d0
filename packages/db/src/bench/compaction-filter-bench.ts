/**
 * compaction-filter-bench: what a compaction filter and TTL cost a compaction. The same
 * L0 -> L1 compaction (`compactRange` of `keys` keys in 4 L0 tables, on the database's thread
 * over an in-memory file system, so the filter runs where it is timed) with no filter, with
 * TTL (`ttl`, nothing expires), and with a user filter that keeps every value; the order
 * rotated every round; medians of per-round ratios to "none" (not a test; reports figures).
 * The puts that build the tables are timed too (TTL appends a timestamp to each value).
 *
 *   cd packages/db && npx tsc -b && node dist/bench/compaction-filter-bench.js
 *     [--keys=200000] [--value_size=100] [--rounds=7]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { MemoryFileSystem } from "@shale/base";
import type { DbOptions } from "../core/options.js";
import { DB } from "../db.js";

function arg(name: string, fallback: string): number {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return Number(a === undefined ? fallback : a.slice(name.length + 3));
}
const KEYS = arg("keys", "200000");
const VALUE_SIZE = arg("value_size", "100");
const ROUNDS = arg("rounds", "7");

const dir = mkdtempSync(join(tmpdir(), "shale-cfilter-bench-"));
const module = join(dir, "keep-all.mjs");
writeFileSync(module, "export function keepAll() { return undefined; }\n");

const variants: Record<string, DbOptions> = {
  none: {},
  ttl: { ttl: 0 },
  filter: { compactionFilter: { module: pathToFileURL(module), name: "keepAll" } },
};

/** [put CPU ms, compaction CPU ms] of one database. */
async function once(options: DbOptions): Promise<[number, number]> {
  const db = await DB.open("/db", {
    fs: new MemoryFileSystem(),
    disableAutoCompactions: true,
    compression: "none",
    ...options,
  });
  const value = new Uint8Array(VALUE_SIZE).fill(0x41);
  const key = new Uint8Array(16).fill(0x30);
  const view = new DataView(key.buffer);
  let putMs = 0;
  for (let t = 0; t < 4; t++) {
    const p0 = process.cpuUsage();
    for (let i = t; i < KEYS; i += 4) {
      view.setUint32(4, i);
      db.put(key, value);
    }
    const p = process.cpuUsage(p0);
    putMs += (p.user + p.system) / 1000;
    await db.flush();
  }
  const t0 = process.cpuUsage();
  await db.compactRange();
  const used = process.cpuUsage(t0);
  await db.close();
  return [putMs, (used.user + used.system) / 1000];
}

const names = Object.keys(variants);
const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
const puts: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
for (let r = 0; r < ROUNDS; r++) {
  const order = names.map((_, i) => names[(i + r) % names.length]!);
  for (const n of order) {
    const [p, c] = await once(variants[n]!);
    puts[n]!.push(p);
    times[n]!.push(c);
  }
}
const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`${KEYS} keys x ${VALUE_SIZE} B, ${ROUNDS} rounds (CPU ms, medians; ratios to none)`);
console.log("variant    puts           compaction");
for (const n of names) {
  const pr = puts[n]!.map((t, i) => t / puts["none"]![i]!);
  const cr = times[n]!.map((t, i) => t / times["none"]![i]!);
  console.log(
    `${n.padEnd(7)} ${median(puts[n]!).toFixed(0).padStart(6)} x${median(pr).toFixed(3)}   ${median(times[n]!).toFixed(0).padStart(6)} x${median(cr).toFixed(3)}`,
  );
}
rmSync(dir, { recursive: true, force: true });
