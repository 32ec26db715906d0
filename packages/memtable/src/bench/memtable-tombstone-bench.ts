/**
 * Micro-benchmark (not a test) of `MemTable.get` with range tombstones in the memtable: the
 * linear scan every get used to do ("before") against the cached fragmented list
 * (range-tombstone-cache.ts, "after"). Prints CPU ns/op per round and the median.
 *
 *   npx tsc -b && node --expose-gc dist/bench/memtable-tombstone-bench.js
 *     [--points=100000] [--gets=200000] [--rounds=3] [--tombstones=0,500,5000,50000]
 *     [--interleaved=2000]
 *
 * Keys are 16 bytes: a random 64-bit number, big-endian, padded with '0'. The memtable holds
 * `points` values (100 bytes, seqs 1 .. points), then T tombstones [a, a + w) at newer seqs,
 * with random a and w such that together they cover ~20% of the key space. For each T:
 *
 * get         `get(key, MAX_SEQ, result)` of existing keys in random order (~20% deleted).
 *             after:  `mem.get`; the first get after the adds builds the list and is
 *                     reported apart ("first get").
 *             before: the old code: a linear scan of `mem.rangeTombstones()` into
 *                     `result.maxCoveringSeq`, then `get` on a twin memtable with the same
 *                     points and no tombstones (what `get` did after the scan). At most
 *                     1e8 / T gets, the scan being O(T).
 * cover       `maxCoveringTombstoneSeq` alone, after / before.
 * add+get     `interleaved` times: add one more tombstone, then one get. after: `mem.get`
 *             (list + scan of the tombstones added since it was built, rebuilt now and
 *             then); before: the add (into a side memtable) and the linear scan + twin get.
 *             RocksDB's MemTable drops its cached list on every range deletion, so there a
 *             get after an add pays a whole fragmentation: about `first get`.
 * list MiB    heap + array buffers the fragmented list holds (with --expose-gc).
 */
import {
  bytewiseComparator,
  LookupResult,
  MAX_SEQ,
  type RangeTombstone,
  ValueKind,
} from "@shale/base";
import { MemTable } from "../index.js";

function arg(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  const found = process.argv.find((a) => a.startsWith(prefix));
  return found === undefined ? fallback : found.slice(prefix.length);
}

const numPoints = Number(arg("points", "100000"));
const numGets = Number(arg("gets", "200000"));
const rounds = Number(arg("rounds", "3"));
const tombstoneCounts = arg("tombstones", "0,500,5000,50000").split(",").map(Number);
const numInterleaved = Number(arg("interleaved", "2000"));
const COVERED = 0.2;

let state = 0x2545f491;
function nextRandom(): number {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return state >>> 0;
}

/** A key: (hi, lo) as 8 big-endian bytes, then 8 bytes of '0'. */
function makeKey(hi: number, lo: number): Uint8Array {
  const k = new Uint8Array(16).fill(0x30);
  const view = new DataView(k.buffer);
  view.setUint32(0, hi >>> 0);
  view.setUint32(4, lo >>> 0);
  return k;
}

function cpuNs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

/**
 * The code `MemTable.maxCoveringTombstoneSeq` had before the cache, over the first `n`
 * tombstones (the memtable had `n` when that get ran).
 */
function linearScan(
  ts: readonly RangeTombstone[],
  n: number,
  userKey: Uint8Array,
  snapshotSeq: number,
): number {
  const c = bytewiseComparator;
  let best = 0;
  for (let i = 0; i < n; i++) {
    const t = ts[i]!;
    if (
      t.seq <= snapshotSeq &&
      t.seq > best &&
      c.compare(t.start, userKey) <= 0 &&
      c.compare(userKey, t.end) < 0
    ) {
      best = t.seq;
    }
  }
  return best;
}

function randomTombstone(count: number): { start: Uint8Array; end: Uint8Array } {
  const hi = nextRandom();
  const width = Math.floor(
    ((2 * COVERED) / Math.max(count, 1)) * 2 ** 32 * (nextRandom() / 2 ** 32),
  );
  const lo = nextRandom();
  return { start: makeKey(hi, lo), end: makeKey(Math.min(hi + width, 2 ** 32 - 1), lo) };
}

function heapBytes(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc !== undefined) {
    gc();
    gc();
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const value = new Uint8Array(100).fill(0x76);
const pointKeys: Uint8Array[] = [];
for (let i = 0; i < numPoints; i++) pointKeys.push(makeKey(nextRandom(), nextRandom()));
const order = new Int32Array(numGets);
for (let i = 0; i < numGets; i++) order[i] = nextRandom() % numPoints;

const twin = new MemTable();
for (let i = 0; i < numPoints; i++) twin.add(i + 1, ValueKind.Value, pointKeys[i]!, value);

type Figures = Record<string, number[]>;
const rows = new Map<number, Figures>();
const push = (f: Figures, name: string, v: number) => {
  const list = f[name] ?? [];
  list.push(v);
  f[name] = list;
};

let sink = 0;
for (let round = 0; round < rounds; round++) {
  for (const count of tombstoneCounts) {
    const f = rows.get(count) ?? {};
    rows.set(count, f);
    const mem = new MemTable();
    for (let i = 0; i < numPoints; i++) mem.add(i + 1, ValueKind.Value, pointKeys[i]!, value);
    let seq = numPoints;
    for (let i = 0; i < count; i++) {
      const t = randomTombstone(count);
      mem.add(++seq, ValueKind.RangeDeletion, t.start, t.end);
    }
    const ts = mem.rangeTombstones();
    const result = new LookupResult();

    const heap0 = heapBytes();
    let c0 = cpuNs();
    mem.get(pointKeys[0]!, MAX_SEQ, result);
    push(f, "first", cpuNs() - c0);
    push(f, "listMiB", (heapBytes() - heap0) / 1048576);

    c0 = cpuNs();
    for (let i = 0; i < numGets; i++) {
      result.reset();
      mem.get(pointKeys[order[i]!]!, MAX_SEQ, result);
      sink += result.state;
    }
    push(f, "getAfter", (cpuNs() - c0) / numGets);

    const beforeGets = Math.min(numGets, Math.floor(1e8 / Math.max(count, 1)));
    c0 = cpuNs();
    for (let i = 0; i < beforeGets; i++) {
      result.reset();
      const key = pointKeys[order[i]!]!;
      if (ts.length > 0) result.maxCoveringSeq = linearScan(ts, count, key, MAX_SEQ);
      twin.get(key, MAX_SEQ, result);
      sink += result.state;
    }
    push(f, "getBefore", (cpuNs() - c0) / beforeGets);

    c0 = cpuNs();
    for (let i = 0; i < numGets; i++)
      sink += mem.maxCoveringTombstoneSeq(pointKeys[order[i]!]!, MAX_SEQ);
    push(f, "coverAfter", (cpuNs() - c0) / numGets);
    c0 = cpuNs();
    for (let i = 0; i < beforeGets; i++)
      sink += linearScan(ts, count, pointKeys[order[i]!]!, MAX_SEQ);
    push(f, "coverBefore", (cpuNs() - c0) / beforeGets);

    if (count > 0 && numInterleaved > 0) {
      const added: { start: Uint8Array; end: Uint8Array }[] = [];
      for (let i = 0; i < numInterleaved; i++) added.push(randomTombstone(count));
      c0 = cpuNs();
      for (let i = 0; i < numInterleaved; i++) {
        mem.add(++seq, ValueKind.RangeDeletion, added[i]!.start, added[i]!.end);
        result.reset();
        mem.get(pointKeys[order[i]!]!, MAX_SEQ, result);
        sink += result.state;
      }
      push(f, "mixedAfter", (cpuNs() - c0) / numInterleaved);
      // The same adds (into a side memtable: an add costs what it did before), each followed
      // by the old get over all the tombstones.
      const side = new MemTable();
      const beforeMixed = Math.min(numInterleaved, Math.floor(2e7 / count));
      c0 = cpuNs();
      for (let i = 0; i < beforeMixed; i++) {
        side.add(i + 1, ValueKind.RangeDeletion, added[i]!.start, added[i]!.end);
        result.reset();
        const key = pointKeys[order[i]!]!;
        result.maxCoveringSeq = linearScan(ts, count + i + 1, key, MAX_SEQ);
        twin.get(key, MAX_SEQ, result);
        sink += result.state;
      }
      push(f, "mixedBefore", (cpuNs() - c0) / beforeMixed);
    }
  }
}

const fmt = (xs: number[] | undefined, digits = 0) =>
  xs === undefined ? "-" : median(xs).toFixed(digits);
console.log(
  `${numPoints} points, ${numGets} gets, median of ${rounds} rounds, CPU ns/op (first get: CPU us)`,
);
console.log(
  "tombstones | get before | get after | cover before | cover after | first get us | list MiB | add+get before | add+get after",
);
for (const [count, f] of rows) {
  const first = f.first === undefined ? "-" : (median(f.first) / 1000).toFixed(0);
  console.log(
    `${count} | ${fmt(f.getBefore)} | ${fmt(f.getAfter)} | ${fmt(f.coverBefore)} | ${fmt(f.coverAfter)} | ` +
      `${first} | ${fmt(f.listMiB, 1)} | ${fmt(f.mixedBefore)} | ${fmt(f.mixedAfter)}`,
  );
}
console.log(`(sink ${sink % 7})`);
