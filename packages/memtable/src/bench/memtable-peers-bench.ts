/**
 * The memtable beside the sorted maps npm users pick as in-memory ordered key-value stores
 * (not a test): each contender stores N entries of 16-byte random keys and 100-byte values,
 * ordered bytewise, and runs the same workloads in the same process. Contenders run one after
 * another within a round, in an order that rotates every round (A/B alternation), each on a
 * fresh store, after one uncounted warm-up round each; the figure is the median over rounds
 * of CPU ns per operation (see `now`), with its spread (min-max).
 *
 *   npx tsc -b && node --expose-gc dist/bench/memtable-peers-bench.js
 *     [--sizes=10000,100000,1000000] [--rounds=5] [--only=shale,sorted-btree,...]
 *   SHALE_BENCH_5M=1 adds 5M entries to the default sizes; --create=0 leaves out the
 *   small-table workload.
 *   --baseline=DIR adds "shale-before": the MemTable of another build of this package (DIR
 *   holds its compiled index.js), for a before/after comparison in the same run.
 *
 * Contenders (versions printed at the start):
 *   shale            MemTable: `add(seq, Value, key, value)` copies key and value into its
 *                    arena; get is `get(key, MAX_SEQ, result)` with one reused LookupResult;
 *                    scans use `newIterator()` and read `key()` and `value()` (views).
 *   shale-offsets    the same memtable scanned through the iterator's allocation-free
 *                    accessors (`entryBytes()`, `keyOffset()`, `valueLength()`, ...).
 *   sorted-btree     BTree with a bytewise comparator: set / get / forEachPair /
 *                    entries(lowestKey, reusedPair).
 *   js-sdsl          @js-sdsl/ordered-map OrderedMap: setElement / getElementByKey / forEach /
 *                    lowerBound + iterator.next().
 *   frbt             functional-red-black-tree (memdown's store): insert / get / forEach / ge.
 *   bintrees         bintrees RBTree of {key, value} items: insert / find / each / lowerBound.
 *
 * The peers keep references to key and value objects made before the clock starts (the most
 * favourable case for them: nothing copied); shale copies the bytes. Keys are compared by
 * one JavaScript bytewise function for every peer.
 *
 * Workloads (per size N, each contender on a fresh store every round):
 *   insert      N inserts in random key order, ns/insert
 *   scan-first  the first full scan of the store just built (key and value of every entry
 *               read: first byte and length), ns/entry
 *   scan        a later full scan (median of 3), ns/entry
 *   get-hit     N gets of present keys in another random order, ns/get
 *   get-miss    N gets of absent keys, ns/get
 *   seek+10     min(N, 100k) seeks to present keys, each followed by reading 10 entries,
 *               ns/seek
 *   create      a new store, 16 inserts, 1 get, dropped: ns per table (batches of 64 tables
 *               for 100 ms of CPU time, at most 4096 tables), in rounds of its own after
 *               the other workloads' (its garbage would weigh on them)
 *   memory      bytes per entry retained by a store built from fresh key and value copies
 *               (heap + array buffers after a full GC, 116 of them are the key and value
 *               bytes); measured once, in the first round (needs --expose-gc)
 */
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  KIND_FOR_SEEK,
  LookupResult,
  LookupState,
  MAX_SEQ,
  putTrailer,
  ValueKind,
} from "@shale/base";
import { MemTable } from "../index.js";

const require = createRequire(import.meta.url);

// ---- the peers' APIs (as much as is used here) ---------------------------------------------

type Compare = (a: Uint8Array, b: Uint8Array) => number;
interface SortedBTree {
  set(key: Uint8Array, value: Uint8Array): boolean;
  get(key: Uint8Array): Uint8Array | undefined;
  forEachPair(callback: (k: Uint8Array, v: Uint8Array) => void): number;
  entries(lowestKey: Uint8Array, reusedArray: unknown[]): Iterator<[Uint8Array, Uint8Array]>;
}
interface SdslIterator {
  pointer: [Uint8Array, Uint8Array];
  next(): SdslIterator;
  equals(other: SdslIterator): boolean;
}
interface SdslMap {
  setElement(key: Uint8Array, value: Uint8Array): number;
  getElementByKey(key: Uint8Array): Uint8Array | undefined;
  forEach(callback: (element: [Uint8Array, Uint8Array]) => void): void;
  lowerBound(key: Uint8Array): SdslIterator;
  end(): SdslIterator;
}
interface FrbtIterator {
  valid: boolean;
  key: Uint8Array;
  value: Uint8Array;
  next(): void;
}
interface Frbt {
  insert(key: Uint8Array, value: Uint8Array): Frbt;
  get(key: Uint8Array): Uint8Array | undefined;
  forEach(visit: (k: Uint8Array, v: Uint8Array) => void): void;
  ge(key: Uint8Array): FrbtIterator;
}
interface Item {
  key: Uint8Array;
  value: Uint8Array;
}
interface BintreesIterator {
  data(): Item | null;
  next(): Item | null;
}
interface Bintrees {
  insert(item: Item): boolean;
  find(item: Item): Item | null;
  each(cb: (item: Item) => void): void;
  lowerBound(item: Item): BintreesIterator;
}

const SortedBTreeClass = (
  require("sorted-btree") as { default: new (e: undefined, c: Compare) => SortedBTree }
).default;
const { OrderedMap } = require("@js-sdsl/ordered-map") as {
  OrderedMap: new (c: [], cmp: Compare) => SdslMap;
};
const createFrbt = require("functional-red-black-tree") as (cmp: Compare) => Frbt;
const { RBTree } = require("bintrees") as {
  RBTree: new (cmp: (a: Item, b: Item) => number) => Bintrees;
};

function versionOf(name: string): string {
  return (require(`${name}/package.json`) as { version: string }).version;
}

// ---- options and data ------------------------------------------------------------------------

function arg(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

const defaultSizes = process.env.SHALE_BENCH_5M
  ? "10000,100000,1000000,5000000"
  : "10000,100000,1000000";
const sizes = (arg("sizes") ?? defaultSizes).split(",").map(Number);
const rounds = Number(arg("rounds") ?? 5);
const only = arg("only")?.split(",");
/** --create=0 leaves the small-table workload out. */
const skipCreate = arg("create") === "0";
const KEY_SIZE = 16;
const VALUE_SIZE = 100;
const SCAN_LENGTH = 10;
/** Small tables are made in batches until this much CPU time passed, or MAX_SMALL_TABLES. */
const SMALL_TABLES_BATCH = 64;
const SMALL_TABLES_NS = 100e6;
const MAX_SMALL_TABLES = 4096;
const SMALL_ENTRIES = 16;

let state = 0x2545f491;
function nextRandom(): number {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return state >>> 0;
}

function randomKey(): Uint8Array {
  const k = new Uint8Array(KEY_SIZE);
  for (let i = 0; i < KEY_SIZE; i += 4) {
    const r = nextRandom();
    k[i] = r >>> 24;
    k[i + 1] = r >>> 16;
    k[i + 2] = r >>> 8;
    k[i + 3] = r;
  }
  return k;
}

function shuffled(n: number): Int32Array {
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = nextRandom() % (i + 1);
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  return order;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

function compareItems(a: Item, b: Item): number {
  return compareBytes(a.key, b.key);
}

/** The workload input of one size. */
interface Data {
  n: number;
  keys: Uint8Array[];
  values: Uint8Array[];
  missing: Uint8Array[];
  /** A random order of 0 .. n-1 for gets, and one for seeks. */
  getOrder: Int32Array;
  seekOrder: Int32Array;
  seeks: number;
}

const valueSource = new Uint8Array(1 << 20);
for (let i = 0; i < valueSource.length; i++) valueSource[i] = nextRandom();

function makeData(n: number): Data {
  const keys: Uint8Array[] = [];
  const values: Uint8Array[] = [];
  const missing: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    keys.push(randomKey());
    const v = (i * 997) % (valueSource.length - VALUE_SIZE);
    values.push(valueSource.subarray(v, v + VALUE_SIZE));
    missing.push(randomKey());
  }
  return {
    n,
    keys,
    values,
    missing,
    getOrder: shuffled(n),
    seekOrder: shuffled(n),
    seeks: Math.min(n, 100_000),
  };
}

// ---- contenders ------------------------------------------------------------------------------

/**
 * One contender. Each workload loop lives inside the contender's own method, so every call
 * site in a loop sees one class (the harness's calls are per workload, not per entry).
 */
interface Contender {
  readonly name: string;
  /** A new empty store. */
  reset(): void;
  insertAll(d: Data): void;
  getAll(d: Data, keys: Uint8Array[]): number;
  scan(): number;
  seekScans(d: Data): number;
  /** Makes `count` small tables. */
  smallTables(d: Data, count: number): number;
  /** Builds a store from fresh copies of the keys and values (for the memory figure). */
  buildCopies(d: Data): unknown;
}

/** The memtable's class: this build's, or an earlier build's (--baseline). */
type MemTableClass = typeof MemTable;

/**
 * A new contender class per call: its methods are new closures, with feedback of their own,
 * so a baseline build's MemTable does not make this build's call sites polymorphic.
 */
function shaleContender(Table: MemTableClass, name: string, offsets: boolean): Contender {
  return new (makeShaleClass())(Table, name, offsets);
}

function makeShaleClass() {
  return class Shale implements Contender {
    readonly name: string;
    private readonly Table: MemTableClass;
    private mem: MemTable;
    private readonly result = new LookupResult();
    private readonly target = new Uint8Array(KEY_SIZE + 8);
    private readonly offsets: boolean;

    constructor(Table: MemTableClass, name: string, offsets: boolean) {
      this.Table = Table;
      this.mem = new Table();
      this.offsets = offsets;
      this.name = name;
      // A seek target is the user key with the largest trailer: (MAX_SEQ, KIND_FOR_SEEK).
      putTrailer(this.target, KEY_SIZE, MAX_SEQ, KIND_FOR_SEEK);
    }
    reset(): void {
      this.mem.unref();
      this.mem = new this.Table();
    }
    insertAll(d: Data): void {
      const mem = this.mem;
      const keys = d.keys;
      const values = d.values;
      for (let i = 0; i < d.n; i++) mem.add(i + 1, ValueKind.Value, keys[i]!, values[i]!);
    }
    getAll(d: Data, keys: Uint8Array[]): number {
      const mem = this.mem;
      const result = this.result;
      const order = d.getOrder;
      let found = 0;
      for (let i = 0; i < d.n; i++) {
        result.reset();
        mem.get(keys[order[i]!]!, MAX_SEQ, result);
        if (result.state === LookupState.Found) found++;
      }
      return found;
    }
    scan(): number {
      const it = this.mem.newIterator();
      let sum = 0;
      if (this.offsets) {
        for (it.seekToFirst(); it.valid(); it.next()) {
          sum += it.entryBytes()[it.keyOffset()]! + it.valueLength();
        }
      } else {
        for (it.seekToFirst(); it.valid(); it.next()) sum += it.key()[0]! + it.value().length;
      }
      it.close();
      return sum;
    }
    seekScans(d: Data): number {
      const it = this.mem.newIterator();
      const target = this.target;
      const keys = d.keys;
      let sum = 0;
      for (let i = 0; i < d.seeks; i++) {
        const key = keys[d.seekOrder[i]!]!;
        for (let j = 0; j < KEY_SIZE; j++) target[j] = key[j]!;
        it.seek(target);
        if (this.offsets) {
          for (let j = 0; j < SCAN_LENGTH && it.valid(); j++, it.next()) {
            sum += it.entryBytes()[it.keyOffset()]! + it.valueLength();
          }
        } else {
          for (let j = 0; j < SCAN_LENGTH && it.valid(); j++, it.next()) {
            sum += it.key()[0]! + it.value().length;
          }
        }
      }
      it.close();
      return sum;
    }
    smallTables(d: Data, count: number): number {
      const result = this.result;
      let found = 0;
      for (let t = 0; t < count; t++) {
        const mem = new this.Table();
        for (let i = 0; i < SMALL_ENTRIES; i++)
          mem.add(i + 1, ValueKind.Value, d.keys[i]!, d.values[i]!);
        result.reset();
        mem.get(d.keys[t % SMALL_ENTRIES]!, MAX_SEQ, result);
        if (result.state === LookupState.Found) found++;
        mem.unref();
      }
      return found;
    }
    buildCopies(d: Data): unknown {
      const mem = new this.Table();
      const key = new Uint8Array(KEY_SIZE);
      for (let i = 0; i < d.n; i++) {
        key.set(d.keys[i]!);
        mem.add(i + 1, ValueKind.Value, key, d.values[i]!);
      }
      return mem;
    }
  };
}

class SortedBTreeContender implements Contender {
  readonly name = "sorted-btree";
  private tree = new SortedBTreeClass(undefined, compareBytes);
  reset(): void {
    this.tree = new SortedBTreeClass(undefined, compareBytes);
  }
  insertAll(d: Data): void {
    const tree = this.tree;
    for (let i = 0; i < d.n; i++) tree.set(d.keys[i]!, d.values[i]!);
  }
  getAll(d: Data, keys: Uint8Array[]): number {
    const tree = this.tree;
    let found = 0;
    for (let i = 0; i < d.n; i++) if (tree.get(keys[d.getOrder[i]!]!) !== undefined) found++;
    return found;
  }
  scan(): number {
    let sum = 0;
    this.tree.forEachPair((k, v) => {
      sum += k[0]! + v.length;
    });
    return sum;
  }
  seekScans(d: Data): number {
    const pair: unknown[] = [];
    let sum = 0;
    for (let i = 0; i < d.seeks; i++) {
      const it = this.tree.entries(d.keys[d.seekOrder[i]!]!, pair);
      for (let j = 0; j < SCAN_LENGTH; j++) {
        const r = it.next();
        if (r.done === true) break;
        sum += r.value[0][0]! + r.value[1].length;
      }
    }
    return sum;
  }
  smallTables(d: Data, count: number): number {
    let found = 0;
    for (let t = 0; t < count; t++) {
      const tree = new SortedBTreeClass(undefined, compareBytes);
      for (let i = 0; i < SMALL_ENTRIES; i++) tree.set(d.keys[i]!, d.values[i]!);
      if (tree.get(d.keys[t % SMALL_ENTRIES]!) !== undefined) found++;
    }
    return found;
  }
  buildCopies(d: Data): unknown {
    const tree = new SortedBTreeClass(undefined, compareBytes);
    for (let i = 0; i < d.n; i++) tree.set(d.keys[i]!.slice(), d.values[i]!.slice());
    return tree;
  }
}

class SdslContender implements Contender {
  readonly name = "js-sdsl";
  private map = new OrderedMap([], compareBytes);
  reset(): void {
    this.map = new OrderedMap([], compareBytes);
  }
  insertAll(d: Data): void {
    const map = this.map;
    for (let i = 0; i < d.n; i++) map.setElement(d.keys[i]!, d.values[i]!);
  }
  getAll(d: Data, keys: Uint8Array[]): number {
    const map = this.map;
    let found = 0;
    for (let i = 0; i < d.n; i++) {
      if (map.getElementByKey(keys[d.getOrder[i]!]!) !== undefined) found++;
    }
    return found;
  }
  scan(): number {
    let sum = 0;
    this.map.forEach((e) => {
      sum += e[0][0]! + e[1].length;
    });
    return sum;
  }
  seekScans(d: Data): number {
    const end = this.map.end();
    let sum = 0;
    for (let i = 0; i < d.seeks; i++) {
      const it = this.map.lowerBound(d.keys[d.seekOrder[i]!]!);
      for (let j = 0; j < SCAN_LENGTH && !it.equals(end); j++, it.next()) {
        const p = it.pointer;
        sum += p[0][0]! + p[1].length;
      }
    }
    return sum;
  }
  smallTables(d: Data, count: number): number {
    let found = 0;
    for (let t = 0; t < count; t++) {
      const map = new OrderedMap([], compareBytes);
      for (let i = 0; i < SMALL_ENTRIES; i++) map.setElement(d.keys[i]!, d.values[i]!);
      if (map.getElementByKey(d.keys[t % SMALL_ENTRIES]!) !== undefined) found++;
    }
    return found;
  }
  buildCopies(d: Data): unknown {
    const map = new OrderedMap([], compareBytes);
    for (let i = 0; i < d.n; i++) map.setElement(d.keys[i]!.slice(), d.values[i]!.slice());
    return map;
  }
}

class FrbtContender implements Contender {
  readonly name = "frbt";
  private tree = createFrbt(compareBytes);
  reset(): void {
    this.tree = createFrbt(compareBytes);
  }
  insertAll(d: Data): void {
    let tree = this.tree;
    for (let i = 0; i < d.n; i++) tree = tree.insert(d.keys[i]!, d.values[i]!);
    this.tree = tree;
  }
  getAll(d: Data, keys: Uint8Array[]): number {
    const tree = this.tree;
    let found = 0;
    for (let i = 0; i < d.n; i++) if (tree.get(keys[d.getOrder[i]!]!) !== undefined) found++;
    return found;
  }
  scan(): number {
    let sum = 0;
    this.tree.forEach((k, v) => {
      sum += k[0]! + v.length;
    });
    return sum;
  }
  seekScans(d: Data): number {
    let sum = 0;
    for (let i = 0; i < d.seeks; i++) {
      const it = this.tree.ge(d.keys[d.seekOrder[i]!]!);
      for (let j = 0; j < SCAN_LENGTH && it.valid; j++, it.next()) {
        sum += it.key[0]! + it.value.length;
      }
    }
    return sum;
  }
  smallTables(d: Data, count: number): number {
    let found = 0;
    for (let t = 0; t < count; t++) {
      let tree = createFrbt(compareBytes);
      for (let i = 0; i < SMALL_ENTRIES; i++) tree = tree.insert(d.keys[i]!, d.values[i]!);
      if (tree.get(d.keys[t % SMALL_ENTRIES]!) !== undefined) found++;
    }
    return found;
  }
  buildCopies(d: Data): unknown {
    let tree = createFrbt(compareBytes);
    for (let i = 0; i < d.n; i++) tree = tree.insert(d.keys[i]!.slice(), d.values[i]!.slice());
    return tree;
  }
}

class BintreesContender implements Contender {
  readonly name = "bintrees";
  private tree = new RBTree(compareItems);
  private readonly probe: Item = { key: new Uint8Array(0), value: new Uint8Array(0) };
  reset(): void {
    this.tree = new RBTree(compareItems);
  }
  insertAll(d: Data): void {
    const tree = this.tree;
    for (let i = 0; i < d.n; i++) tree.insert({ key: d.keys[i]!, value: d.values[i]! });
  }
  getAll(d: Data, keys: Uint8Array[]): number {
    const tree = this.tree;
    const probe = this.probe;
    let found = 0;
    for (let i = 0; i < d.n; i++) {
      probe.key = keys[d.getOrder[i]!]!;
      if (tree.find(probe) !== null) found++;
    }
    return found;
  }
  scan(): number {
    let sum = 0;
    this.tree.each((item) => {
      sum += item.key[0]! + item.value.length;
    });
    return sum;
  }
  seekScans(d: Data): number {
    const probe = this.probe;
    let sum = 0;
    for (let i = 0; i < d.seeks; i++) {
      probe.key = d.keys[d.seekOrder[i]!]!;
      const it = this.tree.lowerBound(probe);
      let item = it.data();
      for (let j = 0; j < SCAN_LENGTH && item !== null; j++, item = it.next()) {
        sum += item.key[0]! + item.value.length;
      }
    }
    return sum;
  }
  smallTables(d: Data, count: number): number {
    const probe = this.probe;
    let found = 0;
    for (let t = 0; t < count; t++) {
      const tree = new RBTree(compareItems);
      for (let i = 0; i < SMALL_ENTRIES; i++) tree.insert({ key: d.keys[i]!, value: d.values[i]! });
      probe.key = d.keys[t % SMALL_ENTRIES]!;
      if (tree.find(probe) !== null) found++;
    }
    return found;
  }
  buildCopies(d: Data): unknown {
    const tree = new RBTree(compareItems);
    for (let i = 0; i < d.n; i++) {
      tree.insert({ key: d.keys[i]!.slice(), value: d.values[i]!.slice() });
    }
    return tree;
  }
}

// ---- harness ---------------------------------------------------------------------------------

const WORKLOADS = [
  "insert",
  "scan-first",
  "scan",
  "get-hit",
  "get-miss",
  "seek+10",
  "create",
  "memory",
] as const;
type Workload = (typeof WORKLOADS)[number];

const gc = (globalThis as { gc?: () => void }).gc;

/**
 * The process's CPU time (user + system, all threads: the garbage collector's helpers
 * too) in ns. On a machine shared with other work it is far steadier than wall time, which
 * counts the time the process waits for a core.
 */
function now(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

function heapBytes(): number {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

let sink = 0;

/**
 * Runs every workload but `create` on fresh stores; returns ns/op (bytes/entry for
 * memory). Below 100k entries each workload is repeated (`reps` stores built and scanned,
 * the gets and seeks run `reps` times) so that every figure covers at least 100k
 * operations.
 */
function runRound(c: Contender, d: Data, withMemory: boolean): Map<Workload, number> {
  const out = new Map<Workload, number>();
  // The previous contender's garbage (and external memory) is collected before, not
  // during, this one's workloads.
  gc?.();
  const reps = Math.max(1, Math.round(100_000 / d.n));
  let insert = 0;
  let first = 0;
  for (let r = 0; r < reps; r++) {
    c.reset();
    let t = now();
    c.insertAll(d);
    insert += now() - t;
    t = now();
    sink += c.scan();
    first += now() - t;
  }
  out.set("insert", insert / (reps * d.n));
  out.set("scan-first", first / (reps * d.n));
  const scans: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = now();
    for (let r = 0; r < reps; r++) sink += c.scan();
    scans.push((now() - t) / (reps * d.n));
  }
  out.set("scan", median(scans));
  let t = now();
  for (let r = 0; r < reps; r++) {
    if (c.getAll(d, d.keys) !== d.n) throw new Error(`${c.name}: get-hit missed`);
  }
  out.set("get-hit", (now() - t) / (reps * d.n));
  t = now();
  for (let r = 0; r < reps; r++) {
    if (c.getAll(d, d.missing) !== 0) throw new Error(`${c.name}: get-miss found`);
  }
  out.set("get-miss", (now() - t) / (reps * d.n));
  t = now();
  for (let r = 0; r < reps; r++) sink += c.seekScans(d);
  out.set("seek+10", (now() - t) / (reps * d.seeks));
  c.reset();
  if (withMemory && gc !== undefined) {
    const before = heapBytes();
    const store = c.buildCopies(d);
    const after = heapBytes();
    sink += store === undefined ? 0 : 1;
    out.set("memory", (after - before) / d.n);
  }
  return out;
}

/**
 * The small-table workload, in rounds of its own after the others: its garbage (thousands
 * of stores) would otherwise weigh on the workloads that follow it.
 */
function runCreate(c: Contender, d: Data): number {
  gc?.();
  const t = now();
  let tables = 0;
  while (tables < MAX_SMALL_TABLES && now() - t < SMALL_TABLES_NS) {
    sink += c.smallTables(d, SMALL_TABLES_BATCH);
    tables += SMALL_TABLES_BATCH;
  }
  return (now() - t) / tables;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

function fmt(x: number): string {
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

const baseline = arg("baseline");
const Before =
  baseline === undefined
    ? undefined
    : (
        (await import(pathToFileURL(resolve(baseline, "index.js")).href)) as {
          MemTable: MemTableClass;
        }
      ).MemTable;
const all: Contender[] = [
  ...(Before === undefined ? [] : [shaleContender(Before, "shale-before", false)]),
  shaleContender(MemTable, "shale", false),
  shaleContender(MemTable, "shale-offsets", true),
  new SortedBTreeContender(),
  new SdslContender(),
  new FrbtContender(),
  new BintreesContender(),
];
const contenders = all.filter((c) => only === undefined || only.includes(c.name));

console.log(
  `node ${process.version}; sorted-btree ${versionOf("sorted-btree")}, ` +
    `@js-sdsl/ordered-map ${versionOf("@js-sdsl/ordered-map")}, ` +
    `functional-red-black-tree ${versionOf("functional-red-black-tree")}, ` +
    `bintrees ${versionOf("bintrees")}; ${rounds} rounds, median (min-max)` +
    (gc === undefined ? "; no --expose-gc: memory not measured" : ""),
);

for (const n of sizes) {
  const d = makeData(n);
  const results = new Map<string, Map<Workload, number[]>>();
  for (const c of contenders) {
    const m = new Map<Workload, number[]>();
    for (const w of WORKLOADS) m.set(w, []);
    results.set(c.name, m);
  }
  // One warm-up round per contender (not counted): the JIT has seen every loop before the
  // first counted one.
  for (const c of contenders) runRound(c, d, false);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < contenders.length; i++) {
      const c = contenders[(i + r) % contenders.length]!;
      const got = runRound(c, d, r === 0);
      for (const [w, v] of got) results.get(c.name)!.get(w)!.push(v);
    }
  }
  for (let r = 0; r < rounds && !skipCreate; r++) {
    for (let i = 0; i < contenders.length; i++) {
      const c = contenders[(i + r) % contenders.length]!;
      results.get(c.name)!.get("create")!.push(runCreate(c, d));
    }
  }
  console.log(`\n${n} entries (ns/op; memory: bytes/entry)`);
  console.log(`| contender | ${WORKLOADS.join(" | ")} |`);
  console.log(`| --- | ${WORKLOADS.map(() => "---").join(" | ")} |`);
  for (const c of contenders) {
    const cells = WORKLOADS.map((w) => {
      const xs = results.get(c.name)!.get(w)!;
      if (xs.length === 0) return "-";
      if (xs.length === 1) return fmt(xs[0]!);
      return `${fmt(median(xs))} (${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))})`;
    });
    console.log(`| ${c.name} | ${cells.join(" | ")} |`);
  }
  // shale / best peer, per workload (both shale rows against the peers' best median).
  const peers = contenders.filter((c) => !c.name.startsWith("shale"));
  if (peers.length > 0) {
    for (const s of contenders.filter((c) => c.name.startsWith("shale"))) {
      const cells = WORKLOADS.map((w) => {
        const own = results.get(s.name)!.get(w)!;
        if (own.length === 0) return "-";
        let best = Number.POSITIVE_INFINITY;
        let who = "";
        for (const p of peers) {
          const xs = results.get(p.name)!.get(w)!;
          if (xs.length > 0 && median(xs) < best) {
            best = median(xs);
            who = p.name;
          }
        }
        return `${(median(own) / best).toFixed(2)}x ${who}`;
      });
      console.log(`| ${s.name} / best peer | ${cells.join(" | ")} |`);
    }
  }
}
if (sink === 0.5) console.log(sink);
