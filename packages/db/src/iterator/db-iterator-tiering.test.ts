/**
 * The DB iterator's step functions stay optimized when a scan reaches the end. V8 compiles a
 * hot function mid-scan from the type feedback gathered so far; a statement met only once the
 * merged iterator runs out has none, so the compiled code would deoptimize there and the next
 * scan would start in unoptimized code again. Checked with V8's natives syntax (the helpers
 * of @shale/base/testing): each step function is compiled after a partial scan, then the
 * scan runs to its end, and the function must still be optimized.
 */
import { bytewiseComparator } from "@shale/base";
import { isOptimized, optimizeOnNextCall } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import { DBIteratorCore } from "./db-iterator-core.js";
import { newDBIterator } from "./index.js";
import { buildSources, w } from "./sources.test-support.js";

const ENTRIES = 300;

function memtableIterator() {
  const writes = [];
  for (let i = 0; i < ENTRIES; i++)
    writes.push(w("put", `k${String(i).padStart(6, "0")}`, "v", i + 1));
  const built = buildSources([writes], ["mem"], bytewiseComparator);
  return newDBIterator({
    children: built.children,
    rangeTombstones: built.rangeTombstones,
    comparator: bytewiseComparator,
    mergeOperator: undefined,
    snapshotSeq: ENTRIES,
  });
}

const step = (name: string): unknown =>
  (DBIteratorCore.prototype as unknown as Record<string, unknown>)[name];

describe("DB iterator tiering", () => {
  it("findNextUserEntry stays optimized when a forward scan ends", () => {
    const it = memtableIterator();
    const f = step("findNextUserEntry");
    it.seekToFirst();
    for (let i = 0; i < 100; i++) it.next();
    optimizeOnNextCall(f);
    it.next();
    expect(isOptimized(f)).toBe(true);
    let n = 101;
    for (; it.valid(); it.next()) n++;
    expect(n).toBe(ENTRIES);
    expect(isOptimized(f)).toBe(true);
    it.close();
  });

  it("prevInternal stays optimized when a backward scan ends", () => {
    const it = memtableIterator();
    const f = step("prevInternal");
    it.seekToLast();
    for (let i = 0; i < 100; i++) it.prev();
    optimizeOnNextCall(f);
    it.prev();
    expect(isOptimized(f)).toBe(true);
    let n = 101;
    for (; it.valid(); it.prev()) n++;
    expect(n).toBe(ENTRIES);
    expect(isOptimized(f)).toBe(true);
    it.close();
  });
});
