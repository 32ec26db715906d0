/**
 * A table iterator keeps its hidden class (V8's map) when block offsets arrive as heap
 * numbers. The handles' `offset` field holds doubles once any `{ offset, size }` object held
 * one; an offset stored from there into a small-integer field of the iterator would turn
 * that field to a double, and V8 would then give every iterator made after a new map and
 * deprecate the old one. Code and kept objects on the old map are lost for the new one
 * (`@shale/db` keeps one DB iterator, with a table iterator in it, so the optimized steps
 * survive collections; it must stay on the live map). `smallOffset` stores small integers.
 */
import { ValueKind } from "@shale/base";
import { haveSameMap } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import { buildTable, ikey, openTable } from "./table.test-support.js";

describe("table iterator shape", () => {
  it("keeps its map when handle offsets are heap numbers", () => {
    const keys: Uint8Array[] = [];
    const values: Uint8Array[] = [];
    for (let i = 0; i < 300; i++) {
      keys.push(ikey(`k${String(i).padStart(5, "0")}`, 1, ValueKind.Value));
      values.push(new TextEncoder().encode(`v${i}`));
    }
    const reader = openTable(buildTable(keys, values, { blockSize: 256 }));
    const first = reader.newIterator();
    first.seekToFirst();
    expect(first.valid()).toBe(true);
    // A handle-shaped object with a fractional offset: every `{ offset, size }` object's
    // offset field holds a double from now on, the table iterators' handles included.
    const doubled = { offset: 0.5, size: 0 };
    expect(doubled.offset).toBe(0.5);
    const second = reader.newIterator();
    let n = 0;
    for (second.seek(keys[200]!); second.valid(); second.next()) n++;
    for (second.seekToLast(); second.valid() && n < 200; second.prev()) n++;
    expect(n).toBe(200);
    expect(haveSameMap(first, second)).toBe(true);
    const parts = (it: object) => it as unknown as { data: object; index: object };
    expect(haveSameMap(parts(first).data, parts(second).data)).toBe(true);
    expect(haveSameMap(parts(first).index, parts(second).index)).toBe(true);
    first.close();
    second.close();
    reader.close();
  });
});
