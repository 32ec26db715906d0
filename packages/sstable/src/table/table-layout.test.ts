import { compareTrailers, ValueKind } from "@shale/base";
import { describe, expect, it } from "vitest";
import { buildTable, tableLayout as decodeLayout, ikey, openTable } from "./table.test-support.js";
import { tableIndexEntries, tableLayout } from "./table-layout.js";

function sample(options = {}) {
  const keys: Uint8Array[] = [];
  const values: Uint8Array[] = [];
  for (let i = 0; i < 1500; i++) {
    keys.push(ikey(`key${String(i).padStart(5, "0")}`, i + 1, ValueKind.Value));
    values.push(new TextEncoder().encode(`value-${i}`));
  }
  return {
    table: buildTable(keys, values, { blockSize: 512, bitsPerKey: 10, ...options }),
    keys,
  };
}

describe("tableLayout / tableIndexEntries (for tools)", () => {
  it("give the footer, the meta blocks and every data block's handle, as an independent decode does", () => {
    for (const formatVersion of [4, 5] as const) {
      const { table, keys } = sample({ formatVersion });
      const expected = decodeLayout(table);
      const reader = openTable(table);
      const layout = tableLayout(reader);
      expect(layout.formatVersion).toBe(formatVersion);
      expect(layout.metaindex).toEqual(expected.metaindex);
      expect(layout.index).toEqual(expected.index);
      expect(new Map(layout.metaBlocks.map((m) => [m.name, m.handle]))).toEqual(expected.meta);
      expect(layout.metaBlocks.map((m) => m.name)).toEqual(
        [...layout.metaBlocks.map((m) => m.name)].sort(),
      );
      const entries = tableIndexEntries(reader);
      expect(entries.map((e) => e.handle)).toEqual(expected.data);
      expect(entries.length).toBeGreaterThan(10);
      // Each separator is >= the last key of its block and < the first key of the next.
      const last = keys[keys.length - 1]!;
      const cmp = (a: Uint8Array, b: Uint8Array) =>
        Buffer.compare(a.subarray(0, -8), b.subarray(0, -8)) || compareTrailers(a, b);
      expect(cmp(entries[entries.length - 1]!.separator, last)).toBeGreaterThanOrEqual(0);
      for (let i = 1; i < entries.length; i++)
        expect(cmp(entries[i - 1]!.separator, entries[i]!.separator)).toBeLessThan(0);
      // Copies: they survive the reader.
      reader.close();
      expect(entries[0]!.separator.length).toBeGreaterThan(8);
    }
  });
});
