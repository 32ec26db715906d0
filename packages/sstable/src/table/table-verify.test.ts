import { isShaleError, ValueKind } from "@shale/base";
import { LRUCache } from "@shale/block-cache";
import { describe, expect, it } from "vitest";
import type { Block } from "../block/block.js";
import { buildTable, ikey, openTable, tableLayout } from "./table.test-support.js";

function sample() {
  const keys: Uint8Array[] = [];
  const values: Uint8Array[] = [];
  for (let i = 0; i < 2000; i++) {
    keys.push(ikey(`key${String(i).padStart(5, "0")}`, i + 1, ValueKind.Value));
    values.push(new TextEncoder().encode(`value-${i}-${"v".repeat(40)}`));
  }
  return buildTable(keys, values, { blockSize: 1024, bitsPerKey: 10 });
}

describe("TableReader.verifyChecksums", () => {
  it("reads every block: data, index, metaindex and each meta block", () => {
    const table = sample();
    const layout = tableLayout(table);
    const reader = openTable(table);
    const r = reader.verifyChecksums();
    expect(r.dataBlocks).toBe(layout.data.length);
    expect(r.dataBlocks).toBeGreaterThan(50);
    expect(r.blocks).toBe(layout.data.length + 2 + layout.meta.size);
    let bytes = layout.index.size + layout.metaindex.size + 10;
    for (const h of [...layout.data, ...layout.meta.values()]) bytes += h.size + 5;
    expect(r.bytes).toBe(bytes);
    reader.close();
  });

  it("finds a flipped byte in a data block the cache already holds, naming file and offset", () => {
    const table = sample();
    const layout = tableLayout(table);
    const cache = new LRUCache<Block>({ capacity: 1 << 20 });
    const reader = openTable(table, { blockCache: cache });
    const victim = layout.data[17]!;
    // Cache every data block, then damage the file under the reader.
    const it = reader.newIterator();
    for (it.seekToFirst(); it.valid(); it.next());
    it.close();
    const bytes = table.fs.readFile(table.path);
    bytes[victim.offset + 3] = bytes[victim.offset + 3]! ^ 0x10;
    table.fs.writeFile(table.path, bytes);
    let error: unknown;
    try {
      reader.verifyChecksums();
    } catch (e) {
      error = e;
    }
    expect(isShaleError(error, "Corruption")).toBe(true);
    expect((error as { file?: string }).file).toBe(table.path);
    expect((error as { offset?: number }).offset).toBe(victim.offset);
    reader.close();
  });

  it("finds damage in a meta block (the filter)", () => {
    const table = sample();
    const layout = tableLayout(table);
    const filter = [...layout.meta].find(([name]) => name.includes("filter"))![1];
    const reader = openTable(table);
    const bytes = table.fs.readFile(table.path);
    bytes[filter.offset + 1] = bytes[filter.offset + 1]! ^ 0x01;
    table.fs.writeFile(table.path, bytes);
    expect(() => reader.verifyChecksums()).toThrow(/Corruption/);
    reader.close();
  });
});
