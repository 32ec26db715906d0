/**
 * Every format version the builder writes (2-7) with every checksum type: random tables read
 * back (every key, scans both ways); one byte flipped anywhere in a block or the footer never
 * gives a wrong answer (Corruption, or the right value when the byte is not read or not
 * checked); and the context checksum of format 6: two same-size blocks swapped fail their
 * checksum, where format 5 cannot tell.
 */
import {
  ChecksumType,
  isShaleError,
  LookupResult,
  LookupState,
  MemoryFileSystem,
  toBytes,
  ValueKind,
} from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type BuiltTable,
  buildTable,
  ikey,
  openTable,
  tableLayout,
} from "../table/table.test-support.js";

const CHECKSUMS = [
  ChecksumType.NoChecksum,
  ChecksumType.CRC32c,
  ChecksumType.xxHash,
  ChecksumType.xxHash64,
  ChecksumType.XXH3,
];

/** Sorted distinct user keys -> values. */
const entriesArb = fc
  .uniqueArray(fc.uint8Array({ minLength: 1, maxLength: 12 }), {
    minLength: 1,
    maxLength: 120,
    selector: (k) => Buffer.from(k).toString("hex"),
  })
  .chain((keys) => {
    keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return fc.tuple(
      fc.constant(keys),
      fc.array(fc.uint8Array({ maxLength: 40 }), {
        minLength: keys.length,
        maxLength: keys.length,
      }),
    );
  });

function build(
  keys: Uint8Array[],
  values: Uint8Array[],
  formatVersion: number,
  checksumType: number,
  compression: "none" | "snappy" = "none",
): BuiltTable {
  return buildTable(
    keys.map((k) => ikey(k, 5, ValueKind.Value)),
    values,
    { formatVersion, checksumType, blockSize: 256, compression },
  );
}

/** Reads every key, then scans both ways; throws what the reader throws. */
function readAll(table: BuiltTable, keys: Uint8Array[], values: Uint8Array[]): void {
  const t = openTable(table);
  try {
    const r = new LookupResult();
    for (let i = 0; i < keys.length; i++) {
      r.reset();
      t.get(keys[i]!, 10, r);
      expect(r.state).toBe(LookupState.Found);
      expect(Buffer.from(r.value!).equals(Buffer.from(values[i]!))).toBe(true);
    }
    const it = t.newIterator();
    try {
      let n = 0;
      for (it.seekToFirst(); it.valid(); it.next(), n++) {
        expect(Buffer.from(it.key().subarray(0, -8)).equals(Buffer.from(keys[n]!))).toBe(true);
        expect(Buffer.from(it.value()).equals(Buffer.from(values[n]!))).toBe(true);
      }
      expect(n).toBe(keys.length);
      for (it.seekToLast(); it.valid(); it.prev()) {
        n--;
        expect(Buffer.from(it.value()).equals(Buffer.from(values[n]!))).toBe(true);
      }
      expect(n).toBe(0);
      it.close();
    } finally {
      // closed above on success
    }
    t.verifyChecksums();
  } finally {
    t.close();
  }
}

describe("format versions 2-7 x checksum types", () => {
  it("random tables read back: every key, scans both ways, verifyChecksums", () => {
    fc.assert(
      fc.property(
        entriesArb,
        fc.integer({ min: 2, max: 7 }),
        fc.constantFrom(...CHECKSUMS),
        fc.constantFrom("none" as const, "snappy" as const),
        ([keys, values], version, checksum, compression) => {
          const table = build(keys, values, version, checksum, compression);
          const layout = tableLayout(table);
          expect(layout.meta.has("rocksdb.index")).toBe(version >= 6);
          readAll(table, keys, values);
        },
      ),
      { numRuns: 120 },
    );
  });

  it("a flipped byte in any block or the footer: Corruption or the right answer, never a wrong one", () => {
    fc.assert(
      fc.property(
        entriesArb,
        fc.integer({ min: 2, max: 7 }),
        fc.constantFrom(...CHECKSUMS.slice(1)),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        ([keys, values], version, checksum, where, mask) => {
          const table = build(keys, values, version, checksum);
          const bytes = table.fs.readFile(table.path).slice();
          const at = where % bytes.length;
          bytes[at] = bytes[at]! ^ mask;
          const fs = new MemoryFileSystem();
          fs.writeFile(table.path, bytes);
          try {
            readAll({ ...table, fs }, keys, values);
          } catch (e) {
            if (!isShaleError(e, "Corruption") && !isShaleError(e, "NotSupported")) throw e;
            expect((e as { file?: string }).file).toBe(table.path);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("context checksums (format 6+)", () => {
  /** A table with data blocks of one size: 64 keys of 8 bytes, values of 24, 4 per block. */
  function sameSizeBlocks(formatVersion: number): {
    table: BuiltTable;
    keys: Uint8Array[];
    values: Uint8Array[];
  } {
    const keys: Uint8Array[] = [];
    const values: Uint8Array[] = [];
    for (let i = 0; i < 64; i++) {
      keys.push(toBytes(`key${String(i).padStart(5, "0")}`));
      values.push(toBytes(`v${String(i).padStart(23, "0")}`));
    }
    const table = buildTable(
      keys.map((k) => ikey(k, 5, ValueKind.Value)),
      values,
      { formatVersion, checksumType: ChecksumType.XXH3, blockSize: 128, compression: "none" },
    );
    return { table, keys, values };
  }

  function swapBlocks(table: BuiltTable, a: number, b: number): BuiltTable {
    const layout = tableLayout(table);
    const ha = layout.data[a]!;
    const hb = layout.data[b]!;
    expect(ha.size).toBe(hb.size);
    const bytes = table.fs.readFile(table.path).slice();
    const n = ha.size + 5;
    const copyA = bytes.slice(ha.offset, ha.offset + n);
    bytes.copyWithin(ha.offset, hb.offset, hb.offset + n);
    bytes.set(copyA, hb.offset);
    const fs = new MemoryFileSystem();
    fs.writeFile(table.path, bytes);
    return { ...table, fs };
  }

  it("two swapped same-size data blocks fail the checksum at format 6; format 5 cannot tell", () => {
    for (const version of [5, 6, 7]) {
      const { table, keys } = sameSizeBlocks(version);
      const swapped = swapBlocks(table, 1, 2);
      const t = openTable(swapped);
      try {
        const r = new LookupResult();
        const probe = keys[5]!; // in block 1 (4 keys a block)
        if (version === 5) {
          // The blocks pass their checksums: the index sends the lookup to the wrong keys.
          expect(t.verifyChecksums().dataBlocks).toBeGreaterThan(3);
          r.reset();
          t.get(probe, 10, r);
          expect(r.state).toBe(LookupState.NotFound);
        } else {
          expect(() => t.verifyChecksums()).toThrow(
            expect.objectContaining({ code: "Corruption", file: swapped.path }),
          );
          expect(() => t.get(probe, 10, r)).toThrow(
            /block checksum mismatch: stored \(context removed\)/,
          );
        }
      } finally {
        t.close();
      }
    }
  });

  it("a block copied into another format-6 table at the same offset fails (another base)", () => {
    const a = sameSizeBlocks(6).table;
    const b = sameSizeBlocks(6).table;
    const layout = tableLayout(a);
    const h = layout.data[1]!;
    const bytes = b.fs.readFile(b.path).slice();
    const fromA = a.fs.readFile(a.path).subarray(h.offset, h.offset + h.size + 5);
    // Same contents, so the bytes differ only in the stored checksum (the bases differ).
    expect(
      Buffer.compare(
        Buffer.from(fromA),
        Buffer.from(bytes.subarray(h.offset, h.offset + h.size + 5)),
      ),
    ).not.toBe(0);
    bytes.set(fromA, h.offset);
    const fs = new MemoryFileSystem();
    fs.writeFile(b.path, bytes);
    const t = openTable({ ...b, fs });
    try {
      expect(() => t.verifyChecksums()).toThrow(expect.objectContaining({ code: "Corruption" }));
    } finally {
      t.close();
    }
  });
});
