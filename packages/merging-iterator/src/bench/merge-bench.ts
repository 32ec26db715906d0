/**
 * merge-bench: seed 003's before/after. The same k-way merge of k sorted children, done
 *
 *   pop+push     with a plain priority queue (PlainPriorityQueue, std::priority_queue-like):
 *                every element costs a pop and a push;
 *   replaceTop   with BinaryHeap: every element costs a replaceTop (or a pop at the end of
 *                a child), one comparison when the same child stays smallest;
 *   Merging      the full MergingIterator (seekToFirst, then next() to the end), which is
 *                replaceTop plus the iterator's own bookkeeping.
 *
 * for k in {2, 8, 32} over
 *   runs     runs of 100 adjacent keys per child (key i goes to child floor(i / 100) mod k)
 *   random   random interleaving (key i goes to a uniformly random child).
 *
 * Keys are 16 bytes (db_bench style: 16 zero-padded decimal digits), `--num` of them
 * (default 1,000,000) split among the children; values are empty. Each figure is the median
 * of `--rounds` timed runs (default 5) in ns per element; comparisons per element come from
 * one extra run with a counting compare function. Every run checks that it produced all
 * keys in order.
 *
 *   node dist/bench/merge-bench.js [--num=1000000] [--rounds=5]
 */
import { ArrayIterator, type CompareFn, compareBytes, EMPTY_BYTES } from "@shale/base";
import { randomSource } from "@shale/base/testing/random";
import { BinaryHeap, type LowerPriority } from "../binary-heap.js";
import { IteratorWrapper } from "../iterator-wrapper.js";
import { MergingIterator } from "../merging-iterator.js";
import { PlainPriorityQueue } from "./plain-priority-queue.js";

const KEY_SIZE = 16;

function argValue(name: string, fallback: number): number {
  const prefix = `--${name}=`;
  const arg = process.argv.find((a) => a.startsWith(prefix));
  if (arg === undefined) return fallback;
  const n = Number(arg.slice(prefix.length));
  if (!Number.isInteger(n) || n <= 0) throw new Error(`bad ${prefix}: ${arg}`);
  return n;
}

/** N keys of 16 decimal digits, as views into one buffer. */
function makeKeys(n: number): Uint8Array[] {
  const buf = new Uint8Array(n * KEY_SIZE);
  const keys: Uint8Array[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const s = String(i).padStart(KEY_SIZE, "0");
    for (let j = 0; j < KEY_SIZE; j++) buf[i * KEY_SIZE + j] = s.charCodeAt(j);
    keys[i] = buf.subarray(i * KEY_SIZE, (i + 1) * KEY_SIZE);
  }
  return keys;
}

/** A small seeded PRNG (mulberry32, @shale/base/testing/random). */
const mulberry32 = randomSource;

/** The children's entries: keys[c] and values[c] of child c. */
interface Split {
  keys: Uint8Array[][];
  values: Uint8Array[][];
}

function split(keys: Uint8Array[], k: number, pattern: "runs" | "random"): Split {
  const lists: Uint8Array[][] = [];
  for (let c = 0; c < k; c++) lists.push([]);
  const rnd = mulberry32(k * 7919 + keys.length);
  for (let i = 0; i < keys.length; i++) {
    const c = pattern === "runs" ? Math.floor(i / 100) % k : Math.floor(rnd() * k);
    lists[c]!.push(keys[i]!);
  }
  return {
    keys: lists,
    values: lists.map((l) => new Array<Uint8Array>(l.length).fill(EMPTY_BYTES)),
  };
}

function children(data: Split, compare: CompareFn): ArrayIterator[] {
  return data.keys.map((keys, c) => new ArrayIterator(keys, data.values[c]!, compare));
}

function wrappers(data: Split, compare: CompareFn): IteratorWrapper[] {
  return children(data, compare).map((child, i) => {
    const w = new IteratorWrapper(child, i);
    w.seekToFirst();
    return w;
  });
}

function minOrder(compare: CompareFn): LowerPriority<IteratorWrapper> {
  return (a, b) => {
    const c = compare(a.key, b.key);
    return c > 0 || (c === 0 && a.index > b.index);
  };
}

/** Counts the merged keys; when `check`, also verifies their order. */
class Sink {
  private last: Uint8Array = EMPTY_BYTES;
  private readonly check: boolean;
  count = 0;
  checksum = 0;
  constructor(check: boolean) {
    this.check = check;
  }
  add(key: Uint8Array): void {
    if (this.check) {
      if (compareBytes(this.last, key) > 0) throw new Error("merge out of order");
      this.last = key;
    }
    this.checksum += key[KEY_SIZE - 1]!;
    this.count++;
  }
}

function mergePopPush(lists: Split, compare: CompareFn, sink: Sink): void {
  const pq = new PlainPriorityQueue(minOrder(compare));
  for (const w of wrappers(lists, compare)) if (w.valid) pq.push(w);
  while (pq.size > 0) {
    const top = pq.top();
    sink.add(top.key);
    pq.pop();
    top.next();
    if (top.valid) pq.push(top);
  }
}

function mergeReplaceTop(lists: Split, compare: CompareFn, sink: Sink): void {
  const heap = new BinaryHeap(minOrder(compare));
  for (const w of wrappers(lists, compare)) if (w.valid) heap.push(w);
  while (heap.size > 0) {
    const top = heap.top();
    sink.add(top.key);
    top.next();
    if (top.valid) heap.replaceTop(top);
    else heap.pop();
  }
}

function mergeIterator(lists: Split, compare: CompareFn, sink: Sink): void {
  const it = new MergingIterator(children(lists, compare), compare);
  for (it.seekToFirst(); it.valid(); it.next()) sink.add(it.key());
  it.close();
}

type Merge = (lists: Split, compare: CompareFn, sink: Sink) => void;

interface Figures {
  nsPerElement: number;
  comparisonsPerElement: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

/**
 * Figures for each merge: one counting run each, then `rounds` timed rounds that take the
 * merges in turn (so a noisy neighbour slows all of them alike), median per merge.
 */
function measure(merges: readonly Merge[], data: Split, n: number, rounds: number): Figures[] {
  const comparisons = merges.map((merge) => {
    let calls = 0;
    const counting: CompareFn = (a, b) => {
      calls++;
      return compareBytes(a, b);
    };
    const sink = new Sink(true);
    merge(data, counting, sink);
    if (sink.count !== n) throw new Error(`merged ${sink.count} of ${n}`);
    return calls / n;
  });
  const times: number[][] = merges.map(() => []);
  for (let r = 0; r < rounds; r++) {
    merges.forEach((merge, m) => {
      const sink = new Sink(false);
      const t0 = process.hrtime.bigint();
      merge(data, compareBytes, sink);
      times[m]!.push(Number(process.hrtime.bigint() - t0) / n);
      if (sink.count !== n) throw new Error(`merged ${sink.count} of ${n}`);
    });
  }
  return merges.map((_, m) => ({
    nsPerElement: median(times[m]!),
    comparisonsPerElement: comparisons[m]!,
  }));
}

/** ns per iteration of a trivial typed-array loop: how fast this machine is right now. */
function calibrate(): number {
  const a = new Int32Array(1 << 22).map((_, i) => i);
  const times: number[] = [];
  let s = 0;
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < a.length; i++) s += a[i]! & 7;
    times.push(Number(process.hrtime.bigint() - t0) / a.length);
  }
  if (s < 0) console.log(s);
  return median(times);
}

function fmt(f: Figures): string {
  const ns = f.nsPerElement.toFixed(1).padStart(7);
  return `${ns} ns ${f.comparisonsPerElement.toFixed(2).padStart(5)} cmp`;
}

function main(): void {
  const n = argValue("num", 1_000_000);
  const rounds = argValue("rounds", 5);
  console.log(`merge-bench: ${n} keys of ${KEY_SIZE} bytes, median of ${rounds} rounds`);
  console.log(
    `node ${process.version}; calibration: ${calibrate().toFixed(2)} ns per trivial loop iteration`,
  );
  console.log(
    "per element          pop+push             replaceTop           MergingIterator      pop+push/replaceTop",
  );
  const keys = makeKeys(n);
  for (const pattern of ["runs", "random"] as const) {
    for (const k of [2, 8, 32]) {
      const data = split(keys, k, pattern);
      const [before, after, full] = measure(
        [mergePopPush, mergeReplaceTop, mergeIterator],
        data,
        n,
        rounds,
      ) as [Figures, Figures, Figures];
      const label = `k=${String(k).padEnd(2)} ${pattern.padEnd(6)}`;
      const ratio = (before.nsPerElement / after.nsPerElement).toFixed(2);
      console.log(`${label}  ${fmt(before)}   ${fmt(after)}   ${fmt(full)}   ${ratio}x`);
    }
  }
}

main();
