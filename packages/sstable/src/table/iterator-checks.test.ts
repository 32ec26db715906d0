/**
 * A table iterator in invariants mode: keys out of order are AssertionFailed (naming file and
 * block), and the blocks it read are overwritten when it closes, so a view kept past
 * `close()` reads 0xcc garbage instead of the right bytes.
 */
import { type Comparator, compareBytes, invariants, ValueKind } from "@shale/base";
import { expectShaleError } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import { MANGLED_BYTE } from "../block/block.js";
import { buildTable, ikey, openTable } from "./table.test-support.js";

const enc = (s: string) => new TextEncoder().encode(s);
const keys = Array.from({ length: 200 }, (_, i) => `k${String(i).padStart(4, "0")}`);

describe("table iterator checks (invariants)", () => {
  it("runs in invariants mode", () => expect(invariants).toBe(true));

  it("a value view kept past close() reads garbage", () => {
    const table = buildTable(
      keys.map((k) => ikey(k, 1, ValueKind.Value)),
      keys.map((k) => enc(`value-of-${k}`)),
      { blockSize: 256 },
    );
    const reader = openTable(table);
    const it = reader.newIterator();
    it.seekToFirst();
    const first = it.value();
    it.seek(ikey("k0150", 1, ValueKind.Value));
    const later = it.value();
    expect(new TextDecoder().decode(first)).toBe("value-of-k0000");
    expect(new TextDecoder().decode(later)).toBe("value-of-k0150");
    it.close();
    expect(first.every((b) => b === MANGLED_BYTE)).toBe(true);
    expect(later.every((b) => b === MANGLED_BYTE)).toBe(true);
    // The reader's own blocks (and a new iterator's) are untouched.
    const again = reader.newIterator();
    again.seekToFirst();
    expect(new TextDecoder().decode(again.value())).toBe("value-of-k0000");
    again.close();
    reader.close();
  });

  it("keys written in another order than the reader's are AssertionFailed at the move", () => {
    // Written by a comparator that sorts backwards but carries the name of the one the reader
    // uses: the bytes pass every checksum, only the order is wrong.
    const name = "test.Order";
    const backwards: Comparator = { ...forward(name), compare: (a, b) => compareBytes(b, a) };
    const sorted = [...keys].reverse();
    const table = buildTable(
      sorted.map((k) => ikey(k, 1, ValueKind.Value)),
      sorted.map((k) => enc(k)),
      { comparator: backwards, blockSize: 256 },
    );
    const reader = openTable(table, { comparator: forward(name) });
    const it = reader.newIterator();
    it.seekToFirst();
    expectShaleError(() => it.next(), "AssertionFailed", {
      message:
        /table iterator next\(\) moved from k0199#1,SET to k0198#1,SET in 000001.sst \(data block @ 0\)/,
    });
    it.seekToLast();
    expectShaleError(() => it.prev(), "AssertionFailed", {
      message: "keys must strictly decrease",
    });
    it.close();
    reader.close();
  });
});

function forward(name: string): Comparator {
  return {
    name,
    compare: compareBytes,
    findShortestSeparator: (a) => a,
    findShortSuccessor: (a) => a,
  };
}
