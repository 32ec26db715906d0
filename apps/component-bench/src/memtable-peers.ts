/**
 * The sorted maps npm users pick as in-memory ordered key-value stores, as memtable-bench.ts
 * contenders. Each compares keys with one JavaScript bytewise function, and runs two ways:
 *
 *   NAME         keeps references to key and value objects made before the clock starts (the
 *                most favourable case for it: nothing copied; the caller must never reuse
 *                or change those arrays)
 *   NAME+copy    stores `key.slice()` and `value.slice()`, copies made inside the timed
 *                insert: a store that owns its bytes, as a memtable must (a write buffer
 *                outlives the caller's arrays, which a caller such as a WAL reader reuses)
 *   NAME+copy+kv the same store, whose scans hand out per entry what the memtable's `key()`
 *                and `value()` do: the key copied into one reused array, and a new view of
 *                the value (the memtable's keys are bytes in its arena, not objects it could
 *                hand out, and `value()` is a view that stays valid until the iterator is
 *                closed); the other scans read the references they hold
 *
 *   sorted-btree  BTree: set / get / forEachPair / entries(lowestKey, reusedPair)
 *   js-sdsl       @js-sdsl/ordered-map OrderedMap: setElement / getElementByKey / forEach /
 *                 lowerBound + iterator.next()
 *   frbt          functional-red-black-tree (memdown's store): insert / get / forEach / ge
 */
import { createRequire } from "node:module";
import { versionOf } from "./measure.js";
import { type Contender, SCAN_LENGTH, SMALL_ENTRIES } from "./memtable-contender.js";
import { compareBytes, type Data } from "./memtable-data.js";

const require = createRequire(import.meta.url);

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

const SortedBTreeClass = (
  require("sorted-btree") as { default: new (e: undefined, c: Compare) => SortedBTree }
).default;
const { OrderedMap } = require("@js-sdsl/ordered-map") as {
  OrderedMap: new (c: [], cmp: Compare) => SdslMap;
};
const createFrbt = require("functional-red-black-tree") as (cmp: Compare) => Frbt;

/** The label's suffix for a contender that copies what it stores. */
const COPY_LABEL = " (stores copies)";
/** The label's suffix for one whose scans hand out a key copy and a value view. */
const HAND_OUT_LABEL = " (stores copies; scans copy keys, view values)";

/**
 * Copies `key` into `into` as the memtable's `key()` copies (a loop for a short key, the
 * 24-byte internal keys here; `set` for a longer one), and makes the view of `value` that
 * `value()` would; returns what the bench reads of them.
 */
function handOut(into: Uint8Array, key: Uint8Array, value: Uint8Array, out: HandedOut): number {
  const n = key.length;
  if (n <= 32) for (let i = 0; i < n; i++) into[i] = key[i]!;
  else into.set(key);
  const view = new Uint8Array(value.buffer, value.byteOffset, value.length);
  out.view = view;
  return into[0]! + view.length;
}

/** Where a `+kv` scan leaves each value view, so that no analysis drops the view unmade. */
interface HandedOut {
  view: Uint8Array;
}

/** The name of a peer storing copies (`copy`), and handing out copies in scans (`handOut`). */
function peerName(base: string, copy: boolean, handOut: boolean): string {
  return `${base}${copy ? "+copy" : ""}${handOut ? "+kv" : ""}`;
}

/** The label of a peer (see `peerName`). */
function peerLabel(base: string, copy: boolean, handOut: boolean): string {
  return `${base}${handOut ? HAND_OUT_LABEL : copy ? COPY_LABEL : ""}`;
}

class SortedBTreeContender implements Contender {
  readonly name: string;
  readonly label: string;
  private tree = new SortedBTreeClass(undefined, compareBytes);
  /** Stores copies of the keys and values (see the header). */
  private readonly copy: boolean;
  /** Scans hand out a key copy and a value view per entry (see the header). */
  private readonly handOut: boolean;
  private readonly keyCopy = new Uint8Array(64);
  private readonly handedOut: HandedOut = { view: new Uint8Array(0) };
  constructor(copy: boolean, handOut = false) {
    this.copy = copy;
    this.handOut = handOut;
    this.name = peerName("sorted-btree", copy, handOut);
    this.label = peerLabel(`sorted-btree ${versionOf("sorted-btree")}`, copy, handOut);
  }
  reset(): void {
    this.tree = new SortedBTreeClass(undefined, compareBytes);
  }
  insertAll(d: Data): void {
    const tree = this.tree;
    if (this.copy) {
      for (let i = 0; i < d.n; i++) tree.set(d.keys[i]!.slice(), d.values[i]!.slice());
    } else {
      for (let i = 0; i < d.n; i++) tree.set(d.keys[i]!, d.values[i]!);
    }
  }
  getAll(d: Data, keys: Uint8Array[]): number {
    const tree = this.tree;
    let found = 0;
    for (let i = 0; i < d.n; i++) if (tree.get(keys[d.getOrder[i]!]!) !== undefined) found++;
    return found;
  }
  scan(): number {
    let sum = 0;
    if (this.handOut) {
      const key = this.keyCopy;
      const out = this.handedOut;
      this.tree.forEachPair((k, v) => {
        sum += handOut(key, k, v, out);
      });
    } else {
      this.tree.forEachPair((k, v) => {
        sum += k[0]! + v.length;
      });
    }
    return sum;
  }
  seekScans(d: Data): number {
    const pair: unknown[] = [];
    const key = this.keyCopy;
    let sum = 0;
    for (let i = 0; i < d.seeks; i++) {
      const it = this.tree.entries(d.keys[d.seekOrder[i]!]!, pair);
      for (let j = 0; j < SCAN_LENGTH; j++) {
        const r = it.next();
        if (r.done === true) break;
        if (this.handOut) sum += handOut(key, r.value[0], r.value[1], this.handedOut);
        else sum += r.value[0][0]! + r.value[1].length;
      }
    }
    return sum;
  }
  smallTables(d: Data, count: number): number {
    let found = 0;
    for (let t = 0; t < count; t++) {
      const tree = new SortedBTreeClass(undefined, compareBytes);
      if (this.copy) {
        for (let i = 0; i < SMALL_ENTRIES; i++) tree.set(d.keys[i]!.slice(), d.values[i]!.slice());
      } else {
        for (let i = 0; i < SMALL_ENTRIES; i++) tree.set(d.keys[i]!, d.values[i]!);
      }
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
  readonly name: string;
  readonly label: string;
  private map = new OrderedMap([], compareBytes);
  /** Stores copies of the keys and values (see the header). */
  private readonly copy: boolean;
  /** Scans hand out a key copy and a value view per entry (see the header). */
  private readonly handOut: boolean;
  private readonly keyCopy = new Uint8Array(64);
  private readonly handedOut: HandedOut = { view: new Uint8Array(0) };
  constructor(copy: boolean, handOut = false) {
    this.copy = copy;
    this.handOut = handOut;
    this.name = peerName("js-sdsl", copy, handOut);
    this.label = peerLabel(
      `@js-sdsl/ordered-map ${versionOf("@js-sdsl/ordered-map")}`,
      copy,
      handOut,
    );
  }
  reset(): void {
    this.map = new OrderedMap([], compareBytes);
  }
  insertAll(d: Data): void {
    const map = this.map;
    if (this.copy) {
      for (let i = 0; i < d.n; i++) map.setElement(d.keys[i]!.slice(), d.values[i]!.slice());
    } else {
      for (let i = 0; i < d.n; i++) map.setElement(d.keys[i]!, d.values[i]!);
    }
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
    if (this.handOut) {
      const key = this.keyCopy;
      const out = this.handedOut;
      this.map.forEach((e) => {
        sum += handOut(key, e[0], e[1], out);
      });
    } else {
      this.map.forEach((e) => {
        sum += e[0][0]! + e[1].length;
      });
    }
    return sum;
  }
  seekScans(d: Data): number {
    const end = this.map.end();
    const key = this.keyCopy;
    let sum = 0;
    for (let i = 0; i < d.seeks; i++) {
      const it = this.map.lowerBound(d.keys[d.seekOrder[i]!]!);
      for (let j = 0; j < SCAN_LENGTH && !it.equals(end); j++, it.next()) {
        const p = it.pointer;
        if (this.handOut) sum += handOut(key, p[0], p[1], this.handedOut);
        else sum += p[0][0]! + p[1].length;
      }
    }
    return sum;
  }
  smallTables(d: Data, count: number): number {
    let found = 0;
    for (let t = 0; t < count; t++) {
      const map = new OrderedMap([], compareBytes);
      if (this.copy) {
        for (let i = 0; i < SMALL_ENTRIES; i++) {
          map.setElement(d.keys[i]!.slice(), d.values[i]!.slice());
        }
      } else {
        for (let i = 0; i < SMALL_ENTRIES; i++) map.setElement(d.keys[i]!, d.values[i]!);
      }
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
  readonly label = `functional-red-black-tree ${versionOf("functional-red-black-tree")}`;
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

/**
 * The peers, fresh: each by reference, then sorted-btree and js-sdsl storing copies, then
 * those two handing out a key copy and a value view in scans (`+copy+kv`).
 */
export function peerContenders(): Contender[] {
  return [
    new SortedBTreeContender(false),
    new SdslContender(false),
    new FrbtContender(),
    new SortedBTreeContender(true),
    new SdslContender(true),
    new SortedBTreeContender(true, true),
    new SdslContender(true, true),
  ];
}

/** True for a peer that stores copies of what it is given (`NAME+copy`, `NAME+copy+kv`). */
export function storesCopies(c: Contender): boolean {
  return c.name.includes("+copy");
}

/** True for a peer whose scans hand out what `key()` and `value()` do (`NAME+copy+kv`). */
export function handsOutCopies(c: Contender): boolean {
  return c.name.endsWith("+kv");
}
