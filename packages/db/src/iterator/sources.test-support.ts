/**
 * Test helpers for the DB iterator (not imported by production code): build LSM-like
 * sources — memtables and tables in a MemoryFileSystem — from a list of writes, and compute
 * what a reader at a snapshot must see (the model).
 */
import {
  type Comparator,
  type InternalIterator,
  InternalKeyComparator,
  MemoryFileSystem,
  makeInternalKey,
  ValueKind,
} from "@shale/base";
import { MemTable } from "@shale/memtable";
import { FragmentedRangeTombstoneList } from "@shale/range-tombstones";
import { TableBuilder, TableReader } from "@shale/sstable";
import type { MergeOperator } from "../core/merge-operator.js";
import type { DBIteratorSources } from "./index.js";

export type WriteKind = "put" | "del" | "sdel" | "merge" | "rangedel";

/** One write; `seq` is unique. For "rangedel", `key` is the start and `end` the end. */
export interface Write {
  kind: WriteKind;
  key: Uint8Array;
  value: Uint8Array;
  end?: Uint8Array;
  seq: number;
}

export type SourceKind = "mem" | "table";

const KINDS: Record<Exclude<WriteKind, "rangedel">, ValueKind> = {
  put: ValueKind.Value,
  del: ValueKind.Deletion,
  sdel: ValueKind.SingleDeletion,
  merge: ValueKind.Merge,
};

const enc = new TextEncoder();
export const b = (s: string): Uint8Array => enc.encode(s);
export const str = (u: Uint8Array): string => new TextDecoder().decode(u);

/** The parts of DBIteratorSources that come from the data. */
export interface BuiltSources {
  children: InternalIterator[];
  rangeTombstones: FragmentedRangeTombstoneList[];
  childMaxSeqs: number[];
  /** Readers to close after the test. */
  readers: TableReader[];
}

let tableCounter = 0;

/**
 * Builds one source per group of writes. `groups[0]` is the NEWEST source. Each group
 * becomes a MemTable or a table (TableBuilder into a MemoryFileSystem, opened with a
 * TableReader; small blocks so iterators cross block boundaries).
 */
export function buildSources(
  groups: readonly (readonly Write[])[],
  kinds: readonly SourceKind[],
  comparator: Comparator,
): BuiltSources {
  const icmp = new InternalKeyComparator(comparator);
  const out: BuiltSources = { children: [], rangeTombstones: [], childMaxSeqs: [], readers: [] };
  for (let g = 0; g < groups.length; g++) {
    const writes = groups[g]!;
    let maxSeq = 0;
    for (const w of writes) maxSeq = Math.max(maxSeq, w.seq);
    out.childMaxSeqs.push(maxSeq);
    if (kinds[g] === "mem") {
      const mem = new MemTable({ comparator, arenaChunkSize: 4096 });
      for (const w of writes) {
        if (w.kind === "rangedel") mem.add(w.seq, ValueKind.RangeDeletion, w.key, w.end!);
        else mem.add(w.seq, KINDS[w.kind], w.key, w.value);
      }
      out.children.push(mem.newIterator());
      out.rangeTombstones.push(new FragmentedRangeTombstoneList(mem.rangeTombstones(), comparator));
    } else {
      const fs = new MemoryFileSystem();
      const path = `${++tableCounter}.sst`;
      const file = fs.openWritable(path);
      const builder = new TableBuilder(file, {
        comparator,
        blockSize: 64,
        blockRestartInterval: 2,
      });
      const points = writes
        .filter((w) => w.kind !== "rangedel")
        .map((w) => ({
          ikey: makeInternalKey(w.key, w.seq, KINDS[w.kind as "put"]),
          value: w.value,
        }));
      points.sort((x, y) => icmp.compare(x.ikey, y.ikey));
      for (const p of points) builder.add(p.ikey, p.value);
      for (const w of writes)
        if (w.kind === "rangedel") builder.addRangeTombstone(w.key, w.end!, w.seq);
      builder.finish();
      file.close();
      const reader = TableReader.open(fs.openRandomAccess(path), {
        fileName: path,
        fileSize: fs.fileSize(path),
        comparator,
      });
      out.readers.push(reader);
      out.children.push(reader.newIterator());
      out.rangeTombstones.push(reader.rangeTombstones());
    }
  }
  return out;
}

/** Splits writes (any order) into `count` groups by seq, newest group first. */
export function splitBySeq(writes: readonly Write[], cuts: readonly number[]): Write[][] {
  const sorted = [...writes].sort((x, y) => y.seq - x.seq);
  const groups: Write[][] = [];
  const bounds = [...new Set(cuts)].sort((x, y) => y - x); // seq thresholds, descending
  let i = 0;
  for (const bound of bounds) {
    const group: Write[] = [];
    while (i < sorted.length && sorted[i]!.seq > bound) group.push(sorted[i++]!);
    groups.push(group);
  }
  groups.push(sorted.slice(i));
  return groups;
}

/**
 * The model: applies the writes at or below `snapshot` one by one in seq order to a map
 * (a merge folds its operand into the current value with `fullMerge(key, current, [operand])`,
 * which the built-in operators make equal to one merge of all operands), then returns the
 * entries within [lower, upper), sorted by `comparator`.
 */
export function modelEntries(
  writes: readonly Write[],
  snapshot: number,
  comparator: Comparator,
  operator: MergeOperator | undefined,
  lower?: Uint8Array,
  upper?: Uint8Array,
): [Uint8Array, Uint8Array][] {
  const cmp = (x: Uint8Array, y: Uint8Array) => comparator.compare(x, y);
  const state = new Map<string, [Uint8Array, Uint8Array]>();
  const ordered = writes.filter((w) => w.seq <= snapshot).sort((x, y) => x.seq - y.seq);
  for (const w of ordered) {
    const id = Buffer.from(w.key).toString("hex");
    switch (w.kind) {
      case "put":
        state.set(id, [w.key, w.value]);
        break;
      case "del":
      case "sdel":
        state.delete(id);
        break;
      case "merge": {
        const merged = operator!.fullMerge(w.key, state.get(id)?.[1], [w.value]);
        if (merged === undefined) throw new Error("model merge failed");
        state.set(id, [w.key, merged]);
        break;
      }
      case "rangedel":
        for (const [k, entry] of state) {
          if (cmp(w.key, entry[0]) <= 0 && cmp(entry[0], w.end!) < 0) state.delete(k);
        }
        break;
    }
  }
  const out = [...state.values()].filter(
    ([k]) =>
      (lower === undefined || cmp(k, lower) >= 0) && (upper === undefined || cmp(k, upper) < 0),
  );
  out.sort((x, y) => cmp(x[0], y[0]));
  return out;
}

/** Sources plus the settings a test wants, ready for newDBIterator. */
export function sourcesFor(
  built: BuiltSources,
  comparator: Comparator,
  operator: MergeOperator | undefined,
  snapshotSeq: number,
  extra: Partial<DBIteratorSources> = {},
): DBIteratorSources {
  return {
    children: built.children,
    rangeTombstones: built.rangeTombstones,
    comparator,
    mergeOperator: operator,
    snapshotSeq,
    ...extra,
  };
}

/** "key=value" rendering for readable assertion diffs. */
export function render(entries: readonly (readonly [Uint8Array, Uint8Array])[]): string[] {
  return entries.map(([k, v]) => `${str(k)}=${str(v)}`);
}

/** Wraps an iterator and counts the calls made to it. */
export class CountingIterator implements InternalIterator {
  nexts = 0;
  prevs = 0;
  seeks = 0;
  closes = 0;
  constructor(private readonly inner: InternalIterator) {}
  valid(): boolean {
    return this.inner.valid();
  }
  seekToFirst(): void {
    this.seeks++;
    this.inner.seekToFirst();
  }
  seekToLast(): void {
    this.seeks++;
    this.inner.seekToLast();
  }
  seek(target: Uint8Array): void {
    this.seeks++;
    this.inner.seek(target);
  }
  seekForPrev(target: Uint8Array): void {
    this.seeks++;
    this.inner.seekForPrev(target);
  }
  next(): void {
    this.nexts++;
    this.inner.next();
  }
  prev(): void {
    this.prevs++;
    this.inner.prev();
  }
  key(): Uint8Array {
    return this.inner.key();
  }
  value(): Uint8Array {
    return this.inner.value();
  }
  close(): void {
    this.closes++;
    this.inner.close();
  }
}

/** A fixed-width key "k000123" for numbered keys. */
export function numbered(i: number, width = 6): Uint8Array {
  return b(`k${String(i).padStart(width, "0")}`);
}

/** Shorthand for a write: `w("put", "a", "1", 5)`, `w("rangedel", "a", "c", 9)` (end in value). */
export function w(kind: WriteKind, key: string, value: string, seq: number): Write {
  if (kind === "rangedel")
    return { kind, key: b(key), end: b(value), value: new Uint8Array(0), seq };
  return { kind, key: b(key), value: b(value), seq };
}

/** Every [key, value] of an iterator from seekToFirst, as "key=value" strings. */
export function scanForward(it: {
  seekToFirst(): void;
  valid(): boolean;
  next(): void;
  key(): Uint8Array;
  value(): Uint8Array;
}): string[] {
  const out: string[] = [];
  for (it.seekToFirst(); it.valid(); it.next()) out.push(`${str(it.key())}=${str(it.value())}`);
  return out;
}

/** Every [key, value] of an iterator from seekToLast backwards, as "key=value" strings. */
export function scanBackward(it: {
  seekToLast(): void;
  valid(): boolean;
  prev(): void;
  key(): Uint8Array;
  value(): Uint8Array;
}): string[] {
  const out: string[] = [];
  for (it.seekToLast(); it.valid(); it.prev()) out.push(`${str(it.key())}=${str(it.value())}`);
  return out;
}
