/**
 * The memtable iterator's optimized code survives full collections that find no iterator
 * alive. V8 holds a hidden class (map) weakly from the code specialized on it: when no live
 * object has the map, a full collection frees it and throws that code away ("weak objects"
 * in `--trace-deopt`). Iterators are short-lived, so every scan after such a collection ran
 * its steps unoptimized until V8 compiled them again (the component bench's first scans of
 * a fresh table took 4-8x its later ones). The memtable keeps one iterator alive for that
 * (`iterator-shape.ts`). Checked with V8's natives syntax and `gc`, switched on at run time.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { ValueKind } from "@shale/base";
import { isOptimized, optimizeOnNextCall } from "@shale/base/testing";
import { describe, expect, it, vi } from "vitest";
import { MemTable } from "./memtable.js";
import { MemTableIterator } from "./memtable-iterator.js";

setFlagsFromString("--expose-gc");
const fullGc = runInNewContext("gc") as () => void;

/** Scans `mem` with a new iterator, in place; the iterator is closed and dropped. */
function scan(mem: MemTable): number {
  const it = mem.newIterator();
  let sum = 0;
  for (it.seekToFirst(); it.valid(); it.next()) sum += it.valueLength();
  it.close();
  return sum;
}

describe("memtable iterator shape", () => {
  it("the step stays optimized across full collections with no iterator alive", () => {
    const mem = new MemTable();
    const enc = new TextEncoder();
    for (let i = 0; i < 300; i++) {
      mem.add(
        i + 1,
        ValueKind.Value,
        enc.encode(`k${String(i).padStart(6, "0")}`),
        enc.encode("v"),
      );
    }
    const next = MemTableIterator.prototype.next;
    let sum = scan(mem) + scan(mem);
    optimizeOnNextCall(next);
    sum += scan(mem);
    expect(isOptimized(next)).toBe(true);
    // V8 keeps a map that optimized code uses through a few full collections after its
    // last object died (--retain-maps-for-n-gc, 2): more than that here.
    for (let i = 0; i < 6; i++) fullGc();
    expect(isOptimized(next)).toBe(true);
    expect(sum).toBe(3 * 300);
    mem.unref();
  });

  it("the kept iterator holds no reference to the memtable whose newIterator() made it", async () => {
    // A fresh copy of the modules: the test above has made the keeper in this one already.
    vi.resetModules();
    const fresh = (await import("./memtable.js")) as typeof import("./memtable.js");
    const shape = (await import("./iterator-shape.js")) as typeof import("./iterator-shape.js");
    expect(shape.iteratorShapeKept()).toBe(false);
    const mem = new fresh.MemTable();
    mem.add(1, ValueKind.Value, new Uint8Array([1]), new Uint8Array([2]));
    expect(mem.references).toBe(1);
    const it = mem.newIterator();
    expect(shape.iteratorShapeKept()).toBe(true);
    expect(mem.references).toBe(2);
    it.close();
    expect(mem.references).toBe(1);
    mem.unref();
    expect(mem.references).toBe(0);
    expect(() => mem.newIterator()).toThrow(/released/);
  });
});
