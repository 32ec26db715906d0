/**
 * fragmenter-bench: what fragmenting costs once, and what a lookup costs after (seed 001).
 *
 *   npx tsc -b && node dist/bench/fragmenter-bench.js
 *
 * Workloads (keys are 16-byte zero-padded decimals over a keyspace of 1,000,000; tombstone i
 * covers [k, k + width) with k uniform and seq i + 1; fixed PRNG seeds):
 *
 *   fragment/<n>/w<width>/<order>   build a FragmentedRangeTombstoneList from n tombstones.
 *                                   order = random (as collected from a memtable) or sorted
 *                                   by (start, seq desc), as read back from a table's
 *                                   range-deletion block (the sort is skipped).
 *                                   Reports ns/tombstone, best of the rounds.
 *   lookup/<n>/w<width>/<snapshot>  maxCoveringSeq over random keys on the built list, at the
 *                                   newest state (MAX_SEQ) and at a snapshot half-way through
 *                                   the seqs. Reports ns/op (best of 5 rounds of 500k lookups)
 *                                   and the share of keys covered.
 *
 * The last line compares a lookup with re-fragmenting per lookup (what RocksDB did before
 * #4493): the point of caching the fragmented list with the table reader.
 * Benchmarks report figures; they are not tests and assert nothing.
 */
import { MAX_SEQ, type RangeTombstone } from "@shale/base";
import { randomSource } from "@shale/base/testing/random";
import { FragmentedRangeTombstoneList } from "../index.js";

const KEYSPACE = 1_000_000;

/** mulberry32 (@shale/base/testing/random: the PRNG of the tests, without vitest). */
const prng = randomSource;

function keyOf(n: number): Uint8Array {
  return Buffer.from(String(n).padStart(16, "0"), "latin1");
}

function makeTombstones(n: number, width: number, seed: number): RangeTombstone[] {
  const random = prng(seed);
  const out: RangeTombstone[] = [];
  for (let i = 0; i < n; i++) {
    const k = Math.floor(random() * KEYSPACE);
    out.push({ start: keyOf(k), end: keyOf(k + width), seq: i + 1 });
  }
  return out;
}

function nowNs(): number {
  return Number(process.hrtime.bigint());
}

/** Best of the rounds: on a shared machine other processes only ever add time. */
function best(values: number[]): number {
  return Math.min(...values);
}

function pad(s: string, n: number): string {
  return s.padEnd(n);
}

function benchFragment(n: number, width: number, sorted: boolean, rounds: number): number {
  const tombstones = makeTombstones(n, width, 1000 + n + width);
  if (sorted) tombstones.sort((a, b) => Buffer.compare(a.start, b.start) || b.seq - a.seq);
  new FragmentedRangeTombstoneList(tombstones); // warm-up
  const times: number[] = [];
  let list: FragmentedRangeTombstoneList | undefined;
  for (let r = 0; r < rounds; r++) {
    const t0 = nowNs();
    list = new FragmentedRangeTombstoneList(tombstones);
    times.push(nowNs() - t0);
  }
  const ns = best(times);
  const fragments = list!.numFragments;
  const stack =
    list!.fragments().reduce((sum, f) => sum + f.seqs.length, 0) / Math.max(1, fragments);
  console.log(
    `${pad(`fragment/${n}/w${width}/${sorted ? "sorted" : "random"}`, 34)}: ${(ns / n).toFixed(0).padStart(7)} ns/tombstone  ` +
      `${(ns / 1e6).toFixed(2).padStart(8)} ms  (${fragments} fragments, mean stack ${stack.toFixed(2)})`,
  );
  return ns;
}

function benchLookup(n: number, width: number, snapshotName: string, snapshot: number): number {
  const list = new FragmentedRangeTombstoneList(makeTombstones(n, width, 1000 + n + width));
  const random = prng(99);
  const probes: Uint8Array[] = [];
  for (let i = 0; i < 100_000; i++) probes.push(keyOf(Math.floor(random() * KEYSPACE)));
  const ops = 500_000;
  let covered = 0;
  for (let i = 0; i < 200_000; i++)
    covered += list.maxCoveringSeq(probes[i % probes.length]!, snapshot) > 0 ? 1 : 0;
  const times: number[] = [];
  for (let r = 0; r < 5; r++) {
    covered = 0;
    const t0 = nowNs();
    for (let i = 0; i < ops; i++) {
      if (list.maxCoveringSeq(probes[i % 100_000]!, snapshot) > 0) covered++;
    }
    times.push(nowNs() - t0);
  }
  const ns = best(times) / ops;
  console.log(
    `${pad(`lookup/${n}/w${width}/${snapshotName}`, 34)}: ${ns.toFixed(1).padStart(7)} ns/op  ` +
      `(${list.numFragments} fragments, ${((100 * covered) / ops).toFixed(1)}% of keys covered)`,
  );
  return ns;
}

console.log(`fragmenter-bench: node ${process.version}, keyspace ${KEYSPACE}, 16-byte keys`);
for (const width of [100, 1000]) {
  benchFragment(10_000, width, false, 9);
  benchFragment(10_000, width, true, 9);
  benchFragment(50_000, width, false, 5);
  benchFragment(50_000, width, true, 5);
}
const fragment50k = benchFragment(50_000, 100, true, 5);
benchLookup(500, 100, "max", MAX_SEQ);
let lookup50k = 0;
for (const width of [100, 1000]) {
  const ns = benchLookup(50_000, width, "max", MAX_SEQ);
  if (width === 100) lookup50k = ns;
  benchLookup(50_000, width, "snap25000", 25_000);
}
console.log(
  `a get that re-fragmented 50k tombstones would pay ${(fragment50k / 1e3).toFixed(0)} us; ` +
    `the cached list answers in ${lookup50k.toFixed(0)} ns (${Math.round(fragment50k / lookup50k)}x less)`,
);
