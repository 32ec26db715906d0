/**
 * The DB iterator's optimized code survives full collections that find no DB iterator alive.
 * V8 holds a hidden class (map) weakly from the code specialized on it: when no live object
 * has the map, a full collection frees it and throws that code away ("weak objects" in
 * `--trace-deopt`). DB iterators are short-lived, so every scan after such a collection
 * started in the lower tiers again. The module keeps one iterator alive for that
 * (`iterator-shape.ts`). Checked with V8's natives syntax and `gc`, switched on at run time.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { bytewiseComparator } from "@shale/base";
import { isOptimized, optimizeOnNextCall } from "@shale/base/testing";
import { MergingIterator } from "@shale/merging-iterator";
import { describe, expect, it, vi } from "vitest";
import { DBIteratorCore } from "./db-iterator-core.js";
import { newDBIterator } from "./index.js";
import { type BuiltSources, buildSources, type Write, w } from "./sources.test-support.js";

setFlagsFromString("--expose-gc");
const fullGc = runInNewContext("gc") as () => void;

const ENTRIES = 300;

/** A memtable and a table, so the DB iterator merges (a single child is read without a merge). */
function sources(): BuiltSources {
  const older: Write[] = [];
  const newer: Write[] = [];
  for (let i = 0; i < ENTRIES; i++) {
    const key = `k${String(i).padStart(6, "0")}`;
    (i % 2 === 0 ? older : newer).push(w("put", key, "v", i + 1));
  }
  return buildSources([newer, older], ["mem", "table"], bytewiseComparator);
}

/** Scans both ways with a new DB iterator, closed and dropped after. */
function scan(built: BuiltSources): number {
  const it = newDBIterator({
    children: built.children.map((c) => c),
    rangeTombstones: built.rangeTombstones,
    comparator: bytewiseComparator,
    mergeOperator: undefined,
    snapshotSeq: ENTRIES,
  });
  let n = 0;
  for (it.seekToFirst(); it.valid(); it.next()) n++;
  for (it.seekToLast(); it.valid(); it.prev()) n++;
  it.close();
  for (const reader of built.readers) reader.close();
  return n;
}

const method = (proto: object, name: string): unknown =>
  (proto as unknown as Record<string, unknown>)[name];

describe("DB iterator shape", () => {
  it("the steps stay optimized across full collections with no DB iterator alive", () => {
    const first = sources();
    const table = Object.getPrototypeOf(first.children[1]!) as object;
    const steps: Record<string, unknown> = {
      "TableIterator.next": method(table, "next"),
      "TableIterator.prev": method(table, "prev"),
      "DBIteratorCore.findNextUserEntry": method(DBIteratorCore.prototype, "findNextUserEntry"),
      "DBIteratorCore.prevInternal": method(DBIteratorCore.prototype, "prevInternal"),
      "MergingIterator.next": method(MergingIterator.prototype, "next"),
      "MergingIterator.prev": method(MergingIterator.prototype, "prev"),
    };
    const optimized = () =>
      Object.entries(steps)
        .filter(([, f]) => isOptimized(f))
        .map(([name]) => name);
    let n = scan(first);
    for (let round = 0; round < 5; round++) n += scan(sources());
    for (const f of Object.values(steps)) optimizeOnNextCall(f);
    for (let round = 0; round < 2; round++) n += scan(sources());
    // Whether a child's step stays optimized to the end of a scan is tiering, not shape
    // (db-iterator-tiering.test.ts): the check here is that none is lost to the collections.
    const before = optimized();
    expect(before).toEqual(expect.arrayContaining(["DBIteratorCore.findNextUserEntry"]));
    expect(before).toEqual(expect.arrayContaining(["DBIteratorCore.prevInternal"]));
    // V8 keeps a map that optimized code uses through a few full collections after its
    // last object died (--retain-maps-for-n-gc, 2): more than that here.
    for (let i = 0; i < 6; i++) fullGc();
    expect(optimized()).toEqual(before);
    expect(n).toBe(8 * 2 * ENTRIES);
  });

  it("the keeper is made by the first newDBIterator and holds none of its sources", async () => {
    // A fresh copy of the modules: the test above has made the keeper in this one already.
    vi.resetModules();
    const fresh = (await import("./index.js")) as typeof import("./index.js");
    const shape = (await import("./iterator-shape.js")) as typeof import("./iterator-shape.js");
    expect(shape.iteratorShapeKept()).toBe(false);
    const built = sources();
    const closed: number[] = [];
    const it = fresh.newDBIterator({
      children: built.children,
      rangeTombstones: built.rangeTombstones,
      comparator: bytewiseComparator,
      mergeOperator: undefined,
      snapshotSeq: ENTRIES,
      onClose: () => closed.push(1),
    });
    expect(shape.iteratorShapeKept()).toBe(true);
    it.seekToFirst();
    expect(it.valid()).toBe(true);
    it.close();
    // The caller's onClose ran once, for its own iterator: the keeper shares no source.
    expect(closed).toEqual([1]);
    for (const reader of built.readers) reader.close();
  });
});
