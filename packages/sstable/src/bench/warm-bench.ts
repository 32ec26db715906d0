/**
 * warm-bench: what `TableReader.prepopulateBlockCache` costs on an existing table (not a
 * test; reports figures only).
 *
 *   npx tsc -b && node dist/bench/warm-bench.js --table=PATH [--rounds=3]
 *
 * Each round opens the table over an empty 1 GiB recycling block cache (as a database's
 * default), warms it and closes it; prints the table's blocks, each round's milliseconds,
 * its µs per block and its CPU time (process.cpuUsage), and the median.
 */
import { NodeFileSystem } from "@shale/base";
import { newBlockCache } from "../block/block-cache.js";
import { TableReader } from "../table/table-reader.js";

function arg(name: string, fallback: string): string {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return a === undefined ? fallback : a.slice(name.length + 3);
}

const path = arg("table", "");
if (path === "") throw new TypeError("--table=PATH is required");
const rounds = Number(arg("rounds", "3"));
const fs = new NodeFileSystem();
const times: number[] = [];
for (let r = 0; r < rounds; r++) {
  const cache = newBlockCache(1 << 30, { recycleBlocks: true });
  const reader = TableReader.open(fs.openRandomAccess(path), { blockCache: cache });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = reader.prepopulateBlockCache();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  times.push(ms);
  const perBlock = (ms * 1000) / Math.max(result.inserted, 1);
  console.log(
    `round ${r + 1}: ${result.inserted} blocks inserted, ${ms.toFixed(1)} ms (${perBlock.toFixed(1)} µs/block), cpu ${((cpu.user + cpu.system) / 1000).toFixed(1)} ms`,
  );
  reader.close();
}
times.sort((a, b) => a - b);
console.log(`median ${times[Math.floor(times.length / 2)]!.toFixed(1)} ms`);
