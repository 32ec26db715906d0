/**
 * The memtable iterator's key copy stays optimized when a new iterator reads its first key.
 * The first calls of a function run before V8 gives it a feedback vector, so a branch that
 * only a first key took (the view made for a new iterator's key) had no type feedback when
 * the copy was compiled mid-scan, and the next iterator's first key deoptimized it: seen in
 * Chromium at the start of the browser bench's second scan. Checked with V8's natives
 * syntax (the helpers of @shale/base/testing).
 */
import { ValueKind } from "@shale/base";
import { isOptimized, optimizeOnNextCall } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import { MemTable } from "./memtable.js";
import { MemTableIterator } from "./memtable-iterator.js";

describe("memtable iterator tiering", () => {
  it("the key copy stays optimized across a new iterator's first key", () => {
    const mem = new MemTable();
    const enc = new TextEncoder();
    for (let i = 0; i < 300; i++)
      mem.add(
        i + 1,
        ValueKind.Value,
        enc.encode(`k${String(i).padStart(6, "0")}`),
        enc.encode("v"),
      );
    const copyKey = (MemTableIterator.prototype as unknown as Record<string, unknown>).copyKey;
    const first = mem.newIterator();
    first.seekToFirst();
    let sum = 0;
    for (let i = 0; i < 100; i++, first.next()) sum += first.key()[1]!;
    optimizeOnNextCall(copyKey);
    sum += first.key()[1]!;
    expect(isOptimized(copyKey)).toBe(true);
    for (; first.valid(); first.next()) sum += first.key()[1]!;
    first.close();
    expect(isOptimized(copyKey)).toBe(true);
    const second = mem.newIterator();
    second.seekToFirst();
    sum += second.key()[1]!;
    second.next();
    sum += second.key()[1]!;
    expect(isOptimized(copyKey)).toBe(true);
    expect(sum).toBeGreaterThan(0);
    second.close();
    mem.unref();
  });
});
