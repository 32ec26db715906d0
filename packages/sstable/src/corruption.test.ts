/**
 * Every block of a real table (data, index, filter, range-del, properties, metaindex) and
 * the footer reject a flipped byte with Corruption naming the file and the block's (or the
 * footer's) offset.
 */
import {
  isCorruption,
  LookupResult,
  MAX_SEQ,
  MemoryFileSystem,
  toBytes,
  ValueKind,
} from "@shale/base";
import { describe, expect, it } from "vitest";
import { decodeFooter, encodeFooter, MetaBlockName, TableFormat } from "./format.js";
import type { TableReader } from "./table-reader.js";
import {
  type BuiltTable,
  buildTable,
  flipByte,
  ikey,
  openTable,
  tableLayout,
} from "./test-support.js";

function sampleTable(): BuiltTable {
  const keys: Uint8Array[] = [];
  const values: Uint8Array[] = [];
  for (let i = 0; i < 300; i++) {
    keys.push(
      ikey(
        `key${String(i).padStart(4, "0")}`,
        1000 - i,
        i % 7 === 0 ? ValueKind.Deletion : ValueKind.Value,
      ),
    );
    values.push(toBytes(`value-${i}-${"x".repeat(i % 40)}`));
  }
  return buildTable(keys, values, { blockSize: 512 }, [
    { start: toBytes("key0010"), end: toBytes("key0020"), seq: 5000 },
    { start: toBytes("key0100"), end: toBytes("key0150"), seq: 4000 },
  ]);
}

function expectCorruption(fn: () => unknown, file: string, offset: number): void {
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(isCorruption(error), `expected Corruption, got ${String(error)}`).toBe(true);
  expect((error as { file?: string }).file).toBe(file);
  expect((error as { offset?: number }).offset).toBe(offset);
}

/** Positions to flip inside a block of `size` bytes plus its 5-byte trailer. */
function positions(size: number): number[] {
  const total = size + TableFormat.BLOCK_TRAILER_SIZE;
  const out = new Set<number>([0, 1, size - 1, size, size + 1, size + 4, Math.floor(size / 2)]);
  for (let i = 0; i < total; i += Math.max(1, Math.floor(total / 12))) out.add(i);
  return [...out].filter((p) => p >= 0 && p < total);
}

function readAll(reader: TableReader): void {
  const it = reader.newIterator();
  for (it.seekToFirst(); it.valid(); it.next()) it.value();
  it.close();
}

describe("corruption is detected with file and offset", () => {
  const table = sampleTable();
  const layout = tableLayout(table);

  it("the sample table has every block type and several data blocks", () => {
    expect([...layout.meta.keys()].sort()).toEqual([
      MetaBlockName.BLOOM_FILTER,
      MetaBlockName.PROPERTIES,
      MetaBlockName.RANGE_DEL,
    ]);
    expect(layout.data.length).toBeGreaterThan(5);
    readAll(openTable(table));
  });

  const metaBlocks: [string, () => { offset: number; size: number }][] = [
    ["metaindex", () => layout.metaindex],
    ["index", () => layout.index],
    ["filter", () => layout.meta.get(MetaBlockName.BLOOM_FILTER)!],
    ["range-del", () => layout.meta.get(MetaBlockName.RANGE_DEL)!],
    ["properties", () => layout.meta.get(MetaBlockName.PROPERTIES)!],
  ];
  for (const [name, handleOf] of metaBlocks) {
    it(`${name} block: open fails`, () => {
      const h = handleOf();
      for (const p of positions(h.size)) {
        const damaged = flipByte(table, h.offset + p);
        expectCorruption(() => openTable(damaged), table.path, h.offset);
      }
    });
  }

  it("data blocks: a scan and a get fail at the block's offset", () => {
    for (const h of [layout.data[0]!, layout.data[3]!, layout.data[layout.data.length - 1]!]) {
      for (const p of positions(h.size)) {
        const damaged = flipByte(table, h.offset + p, 0x80);
        const reader = openTable(damaged);
        expectCorruption(() => readAll(reader), table.path, h.offset);
      }
    }
    // A get of a key in a damaged block.
    const h = layout.data[2]!;
    const reader = openTable(flipByte(table, h.offset + 3));
    // A user key of block 2, found through the intact table.
    let key: Uint8Array | undefined;
    const intact = openTable(table);
    for (let i = 0; i < 300; i++) {
      const user = toBytes(`key${String(i).padStart(4, "0")}`);
      if (intact.approximateOffsetOf(ikey(user, MAX_SEQ, ValueKind.RangeDeletion)) === h.offset) {
        key = user;
        break;
      }
    }
    expect(key).toBeDefined();
    expectCorruption(() => reader.get(key!, MAX_SEQ, new LookupResult()), table.path, h.offset);
  });

  it("data blocks without checksum verification still fail cleanly on structural damage", () => {
    const h = layout.data[1]!;
    const damaged = flipByte(table, h.offset + h.size - 1, 0xff); // numRestarts
    const reader = openTable(damaged, { verifyChecksums: false });
    expectCorruption(() => readAll(reader), table.path, h.offset);
  });

  it("footer: every byte", () => {
    for (let p = 0; p < TableFormat.FOOTER_SIZE; p++) {
      const damaged = flipByte(table, layout.footerOffset + p);
      expectCorruption(() => openTable(damaged), table.path, layout.footerOffset);
    }
  });

  it("bad magic, short files and truncation", () => {
    const bytes = table.fs.readFile(table.path);
    const fs = new MemoryFileSystem();
    fs.writeFile("short.sst", bytes.subarray(0, 20));
    expectCorruption(
      () => openTable({ ...table, fs, path: "short.sst", size: 20 }),
      "short.sst",
      0,
    );
    const notTable = new Uint8Array(200).fill(0x42);
    fs.writeFile("junk.sst", notTable);
    expect(() => openTable({ ...table, fs, path: "junk.sst", size: 200 })).toThrow(/magic/);
    // A file cut in the middle: the footer is gone.
    fs.writeFile("cut.sst", bytes.subarray(0, bytes.length - 100));
    expect(() => openTable({ ...table, fs, path: "cut.sst", size: bytes.length - 100 })).toThrow(
      expect.objectContaining({ code: "Corruption" }),
    );
    // A fileSize larger than the file: short read of the footer.
    fs.writeFile("small.sst", bytes);
    expectCorruption(
      () => openTable({ ...table, fs, path: "small.sst", size: bytes.length + 10 }),
      "small.sst",
      bytes.length + 10 - TableFormat.FOOTER_SIZE,
    );
  });

  it("footer codec round-trips and rejects non-zero padding", () => {
    const footer = {
      checksumType: 1,
      metaindexHandle: { offset: 4200, size: 60 },
      indexHandle: { offset: 4265, size: 18 },
      formatVersion: 1,
    };
    const bytes = encodeFooter(footer);
    expect(Buffer.from(bytes.subarray(0, 7)).toString("hex")).toBe("01e8203ca92112");
    expect(Buffer.from(bytes.subarray(49)).toString("latin1")).toBe("shaleSST");
    expect(decodeFooter(bytes, "f", 9)).toEqual(footer);
  });
});
