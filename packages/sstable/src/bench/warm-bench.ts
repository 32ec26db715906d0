/**
 * warm-bench: what warming the block cache with a table costs the thread that installs it
 * (not a test; reports figures only): reading it back (`TableReader.prepopulateBlockCache`)
 * against inserting the blocks its builder captured (`prepopulateBlockCacheFrom`).
 *
 *   npx tsc -b && node dist/bench/warm-bench.js --table=PATH [--rounds=3]
 *
 * The table's entries are first written again, in memory, by a builder with the same block
 * size and snappy that captures its data blocks. Each round then warms an empty 1 GiB
 * recycling block cache (as a database's default) with that table both ways, alternating
 * which goes first; prints each round's milliseconds, µs per block and CPU time
 * (process.cpuUsage), and the medians.
 */
import { MemoryFileSystem, NodeFileSystem } from "@shale/base";
import { newBlockCache } from "../block/block-cache.js";
import type { CapturedDataBlocks } from "../table/captured-blocks.js";
import { TableBuilder } from "../table/table-builder.js";
import { TableReader } from "../table/table-reader.js";
import type { TableWarmResult } from "../table/table-warm.js";

function arg(name: string, fallback: string): string {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return a === undefined ? fallback : a.slice(name.length + 3);
}

const path = arg("table", "");
if (path === "") throw new TypeError("--table=PATH is required");
const rounds = Number(arg("rounds", "3"));

// The table again, in memory, its data blocks captured as written.
const source = TableReader.open(new NodeFileSystem().openRandomAccess(path));
const mem = new MemoryFileSystem();
const out = mem.openWritable("copy.sst");
const builder = new TableBuilder(out, { compression: "snappy" });
builder.captureDataBlocks(1 << 30);
const it = source.newIterator();
for (it.seekToFirst(); it.valid(); it.next()) builder.add(it.key(), it.value());
it.close();
source.close();
builder.finish();
out.sync();
out.close();
const captured: CapturedDataBlocks = builder.takeCapturedDataBlocks()!;
const size = mem.fileSize("copy.sst");

function round(how: "read back" | "captured"): number {
  const cache = newBlockCache(1 << 30, { recycleBlocks: true });
  const reader = TableReader.open(mem.openRandomAccess("copy.sst"), {
    blockCache: cache,
    fileSize: size,
  });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result: TableWarmResult =
    how === "captured"
      ? reader.prepopulateBlockCacheFrom(captured)
      : reader.prepopulateBlockCache();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const perBlock = (ms * 1000) / Math.max(result.inserted, 1);
  console.log(
    `${how}: ${result.inserted} blocks, ${ms.toFixed(1)} ms (${perBlock.toFixed(2)} µs/block), cpu ${((cpu.user + cpu.system) / 1000).toFixed(1)} ms`,
  );
  reader.close();
  return ms;
}

const times = { "read back": [] as number[], captured: [] as number[] };
console.log(`table: ${(size / 1e6).toFixed(1)} MB, ${captured.blocks.length / 4} data blocks`);
for (let r = 0; r < rounds; r++) {
  const order =
    r % 2 === 0 ? (["read back", "captured"] as const) : (["captured", "read back"] as const);
  for (const how of order) times[how].push(round(how));
}
const median = (a: number[]) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
const back = median(times["read back"]);
const cap = median(times.captured);
console.log(
  `median: read back ${back.toFixed(1)} ms, captured ${cap.toFixed(1)} ms (${(cap / back).toFixed(3)}x)`,
);
