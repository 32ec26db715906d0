/**
 * block-scan-bench: the data block iterator alone, forward and reverse (not a test; figures
 * only).
 *
 *   npx tsc -b && node dist/bench/block-scan-bench.js [--rounds=15] [--passes=40]
 *
 * 512 blocks of 33 db_bench-like entries each (16-byte keys, 8-byte trailers, 100-byte
 * values, restart interval 16: what a 4 KiB block holds), built in memory. Each round walks
 * every block `passes` times, in each direction in turn: `seekToFirst` + `next` to the end,
 * `seekToLast` + `prev` to the start, reading `key()` and `value()` of every entry. Prints
 * the median CPU ns per entry of each direction (process.cpuUsage: steadier than the wall
 * clock on a shared machine).
 */
import { bytewiseComparator, makeInternalKey, ValueKind } from "@shale/base";
import { Block } from "../block/block.js";
import { BlockBuilder } from "../block/block-builder.js";
import { BlockIterator } from "../block/block-iterator.js";
import { KeyOrder } from "../block/key-order.js";
import { median, userKey } from "./bench-data.js";

function option(name: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg === undefined ? fallback : Number(arg.slice(name.length + 3));
}

const ROUNDS = option("rounds", 15);
const PASSES = option("passes", 40);
const BLOCKS = 512;
const PER_BLOCK = 33;

const blocks: Block[] = [];
let k = 0;
for (let b = 0; b < BLOCKS; b++) {
  const builder = new BlockBuilder(16);
  for (let i = 0; i < PER_BLOCK; i++, k += 1 + (k % 3)) {
    const value = new Uint8Array(100).fill(65 + (i % 26));
    builder.add(makeInternalKey(userKey(k), 1000 + k, ValueKind.Value), value);
  }
  // Copy: the builder's buffer is reused.
  blocks.push(Block.keyValue(builder.finish().slice(), undefined, 0));
}

const it = new BlockIterator(new KeyOrder(bytewiseComparator, true));
let sink = 0;

function walk(reverse: boolean): number {
  const c0 = process.cpuUsage();
  let n = 0;
  for (let pass = 0; pass < PASSES; pass++) {
    for (const block of blocks) {
      it.init(block, undefined, 0);
      if (reverse) {
        for (it.seekToLast(); it.valid(); it.prev(), n++)
          sink += it.key().length + it.value().length;
      } else {
        for (it.seekToFirst(); it.valid(); it.next(), n++)
          sink += it.key().length + it.value().length;
      }
    }
  }
  const c = process.cpuUsage(c0);
  return ((c.user + c.system) * 1000) / n;
}

const forward: number[] = [];
const reverse: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  forward.push(walk(false));
  reverse.push(walk(true));
}
console.log(
  `block-scan-bench: ${BLOCKS} blocks x ${PER_BLOCK} entries, ${PASSES} passes, median of ${ROUNDS}`,
);
console.log(`  forward  ${median(forward).toFixed(1)} ns/entry (CPU)`);
console.log(`  reverse  ${median(reverse).toFixed(1)} ns/entry (CPU)  (${sink & 1})`);
