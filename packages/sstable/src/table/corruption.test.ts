/**
 * Every block of a real table (data, index, filter, range-del, properties, metaindex) and
 * the footer reject a flipped byte with Corruption naming the file and the block's (or the
 * footer's) offset.
 */
import { LookupResult, MAX_SEQ, MemoryFileSystem, toBytes, toHex, ValueKind } from "@shale/base";
import { expectShaleError } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import { decodeFooter, encodeFooter } from "../format/footer.js";
import { ChecksumType, encodeBlockHandle, MetaBlockName, TableFormat } from "../format/format.js";
import {
  type BuiltTable,
  buildTable,
  flipByte,
  ikey,
  openTable,
  tableLayout,
} from "./table.test-support.js";
import type { TableReader } from "./table-reader.js";

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
  expectShaleError(fn, "Corruption", { file, offset });
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
      MetaBlockName.FULL_FILTER,
      MetaBlockName.PROPERTIES,
      MetaBlockName.RANGE_DEL,
    ]);
    expect(layout.data.length).toBeGreaterThan(5);
    readAll(openTable(table));
  });

  const metaBlocks: [string, () => { offset: number; size: number }][] = [
    ["metaindex", () => layout.metaindex],
    ["index", () => layout.index],
    ["filter", () => layout.meta.get(MetaBlockName.FULL_FILTER)!],
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

  it("footer: every byte (the format has no footer checksum: each field is checked)", () => {
    const indexHandleStart = 1 + encodeBlockHandle(layout.metaindex).length;
    const indexHandleEnd = indexHandleStart + encodeBlockHandle(layout.index).length;
    for (let p = 0; p < TableFormat.FOOTER_SIZE; p++) {
      for (const mask of [0x01, 0x80]) {
        const damaged = flipByte(table, layout.footerOffset + p, mask);
        if (p === TableFormat.FOOTER_VERSION_OFFSET && mask === 0x01) {
          // Format version 5 -> 4: the same block formats (only the filter's differs, and it
          // has its own marker). RocksDB reads it the same way.
          readAll(openTable(damaged));
          continue;
        }
        if (p === 0) {
          // The checksum type: another known type fails at the first block read (a checksum
          // mismatch), an unknown one is NotSupported at the footer, None (0) reads the
          // intact blocks unverified, as RocksDB would.
          try {
            readAll(openTable(damaged));
            expect(damaged.fs.readFile(damaged.path)[layout.footerOffset]).toBe(0);
          } catch (e) {
            expect((e as { file?: string }).file).toBe(table.path);
          }
          continue;
        }
        let error: unknown;
        try {
          readAll(openTable(damaged));
        } catch (e) {
          error = e;
        }
        // A size varint given a continuation bit into the zero padding (an overlong
        // encoding of the same handle) still reads every entry.
        if (error === undefined && p >= indexHandleStart && p < indexHandleEnd) continue;
        expect(error, `byte ${p} mask ${mask} opened`).toBeDefined();
        const code = (error as { code?: string }).code;
        expect(
          ["Corruption", "NotSupported"],
          `byte ${p} mask ${mask}: ${String(error)}`,
        ).toContain(code);
        expect((error as { file?: string }).file).toBe(table.path);
        // Most fields fail at the footer; an index handle moved inside the file fails at the
        // bogus block it points at (its checksum), the checksum type changed to another known
        // type at the first block read.
        const offset = (error as { offset?: number }).offset;
        expect(typeof offset === "number" && offset <= layout.footerOffset).toBe(true);
        if (p >= indexHandleStart && p < indexHandleEnd) continue;
        if (p > 0)
          expect(offset, `byte ${p} mask ${mask}: ${String(error)}`).toBe(layout.footerOffset);
      }
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

  it("footer codec: worked bytes, round-trip, non-zero padding and misplaced handles", () => {
    const footer = {
      checksumType: ChecksumType.CRC32c,
      metaindexHandle: { offset: 1173, size: 80 },
      indexHandle: { offset: 269, size: 22 },
      formatVersion: 5,
      baseContextChecksum: 0,
    };
    const bytes = encodeFooter(footer, 1173 + 80 + 5);
    // Bytes of a footer RocksDB 7.8.3 wrote (testdata/rocksdb-fv5-crc32c-3keys.sst).
    expect(toHex(bytes)).toBe(
      `01950950 8d0216${"00".repeat(34)}05000000f7cff485b741e288`.replace(" ", ""),
    );
    const at = 1173 + 80 + 5;
    expect(decodeFooter(bytes, "f", at)).toEqual(footer);
    const padded = bytes.slice();
    padded[40] = 1;
    expect(() => decodeFooter(padded, "f", at)).toThrow(/non-zero padding/);
    expect(() => decodeFooter(bytes, "f", at + 1)).toThrow(
      expect.objectContaining({ code: "Corruption", file: "f", offset: at + 1 }),
    );
  });
});
