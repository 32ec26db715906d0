/**
 * Test helpers (not part of the build: excluded in tsconfig.json). Builds tables in a
 * MemoryFileSystem and decodes their layout independently of the reader.
 */
import {
  bytewiseComparator,
  InternalKeyComparator,
  MemoryFileSystem,
  makeInternalKey,
  type RandomAccessFile,
  type RangeTombstone,
  toBytes,
} from "@shale/base";
import fc from "fast-check";
import { Block } from "../block/block.js";
import { readBlock } from "../block/block-io.js";
import { BlockIterator } from "../block/block-iterator.js";
import { KeyOrder } from "../block/key-order.js";
import { decodeFooter, resolveIndexHandle } from "../format/footer.js";
import {
  type BlockHandle,
  decodeBlockHandleInto,
  IndexType,
  TableFormat,
} from "../format/format.js";
import type { TableProperties } from "../format/properties.js";
import { type IndexEncoding, normalizeIndexBlock } from "../index/index-block.js";
import type { TableBuilderOptions } from "./builder-options.js";
import { TableBuilder } from "./table-builder.js";
import { TableReader, type TableReaderOptions } from "./table-reader.js";

export const icmp = new InternalKeyComparator(bytewiseComparator);

/** `makeInternalKey` over a string or bytes. */
export function ikey(user: string | Uint8Array, seq: number, kind: number): Uint8Array {
  return makeInternalKey(toBytes(user), seq, kind);
}

export interface BuiltTable {
  fs: MemoryFileSystem;
  path: string;
  size: number;
  properties: TableProperties;
}

/** Builds a table from sorted entries (and tombstones) into a fresh MemoryFileSystem. */
export function buildTable(
  keys: readonly Uint8Array[],
  values: readonly Uint8Array[],
  options: TableBuilderOptions = {},
  tombstones: readonly RangeTombstone[] = [],
  fs: MemoryFileSystem = new MemoryFileSystem(),
  path = "000001.sst",
): BuiltTable {
  const file = fs.openWritable(path);
  const builder = new TableBuilder(file, options);
  for (let i = 0; i < keys.length; i++) builder.add(keys[i]!, values[i]!);
  for (const t of tombstones) builder.addRangeTombstone(t.start, t.end, t.seq);
  const properties = builder.finish();
  file.sync();
  file.close();
  return { fs, path, size: fs.fileSize(path), properties };
}

/** Opens a built table. */
export function openTable(
  table: BuiltTable,
  options: Omit<TableReaderOptions, "fileSize"> = {},
  wrap?: (file: RandomAccessFile) => RandomAccessFile,
): TableReader {
  const raw = table.fs.openRandomAccess(table.path);
  const file = wrap !== undefined ? wrap(raw) : raw;
  return TableReader.open(file, { fileName: table.path, fileSize: table.size, ...options });
}

/** A RandomAccessFile that counts its reads. */
export class CountingFile implements RandomAccessFile {
  reads = 0;
  constructor(private readonly inner: RandomAccessFile) {}
  get size(): number {
    return this.inner.size;
  }
  read(offset: number, length: number, dst: Uint8Array, dstOffset = 0): number {
    this.reads++;
    return this.inner.read(offset, length, dst, dstOffset);
  }
  close(): void {
    this.inner.close();
  }
}

export interface TableLayout {
  footerOffset: number;
  metaindex: BlockHandle;
  index: BlockHandle;
  /** Meta blocks by metaindex name. */
  meta: Map<string, BlockHandle>;
  data: BlockHandle[];
  /** Each data block's first key, from a first-key index (undefined for other indexes). */
  firstKeys: Uint8Array[] | undefined;
}

function kvEntries(
  file: RandomAccessFile,
  size: number,
  handle: BlockHandle,
  order: KeyOrder,
  checksumType: number,
  contextChecksum: number,
  index?: IndexEncoding,
): { key: Uint8Array; value: Uint8Array }[] {
  let data = readBlock(file, size, handle, "t", checksumType, true, false, false, contextChecksum);
  if (index !== undefined) data = normalizeIndexBlock(data, index, "t", handle.offset);
  const block = Block.keyValue(data, "t", handle.offset);
  const it = new BlockIterator(order).init(block, "t", handle.offset);
  const out: { key: Uint8Array; value: Uint8Array }[] = [];
  for (it.seekToFirst(); it.valid(); it.next())
    out.push({ key: it.key().slice(), value: it.value().slice() });
  return out;
}

function decodeHandle(bytes: Uint8Array): BlockHandle {
  const h: BlockHandle = { offset: 0, size: 0 };
  decodeBlockHandleInto(bytes, 0, bytes.length, h, new Int32Array(1), "t", 0);
  return h;
}

/** Decodes where every block of a table lives, without the reader. */
export function tableLayout(table: BuiltTable): TableLayout {
  const bytes = table.fs.readFile(table.path);
  const footerOffset = bytes.length - TableFormat.FOOTER_SIZE;
  const footer = decodeFooter(bytes.subarray(footerOffset), "t", footerOffset);
  const file = table.fs.openRandomAccess(table.path);
  const meta = new Map<string, BlockHandle>();
  const decoder = new TextDecoder();
  for (const e of kvEntries(
    file,
    bytes.length,
    footer.metaindexHandle,
    new KeyOrder(bytewiseComparator, false),
    footer.checksumType,
    footer.baseContextChecksum,
  )) {
    meta.set(decoder.decode(e.key), decodeHandle(e.value));
  }
  resolveIndexHandle(footer, meta, "t");
  const hasFirstKey = table.properties.indexType === IndexType.BinarySearchWithFirstKey;
  const entries = kvEntries(
    file,
    bytes.length,
    footer.indexHandle,
    new KeyOrder(bytewiseComparator, true),
    footer.checksumType,
    footer.baseContextChecksum,
    {
      keyIsUserKey: table.properties.indexKeyIsUserKey,
      valueIsDeltaEncoded: table.properties.indexValueIsDeltaEncoded,
      hasFirstKey,
    },
  );
  const data = entries.map((e) => decodeHandle(e.value));
  // A first key follows the handle, varint32-length-prefixed (RocksDB's IndexValue).
  const firstKeys = hasFirstKey
    ? entries.map((e) => {
        const at = decodeBlockHandleInto(
          e.value,
          0,
          e.value.length,
          { offset: 0, size: 0 },
          new Int32Array(1),
          "t",
          0,
        );
        let length = 0;
        let shift = 0;
        let p = at;
        for (;;) {
          const b = e.value[p++]!;
          length |= (b & 0x7f) << shift;
          if (b < 0x80) break;
          shift += 7;
        }
        return e.value.slice(p, p + length);
      })
    : undefined;
  file.close();
  return {
    footerOffset,
    metaindex: footer.metaindexHandle,
    index: footer.indexHandle,
    meta,
    data,
    firstKeys,
  };
}

/** Returns a copy of the table with byte `offset` XORed with `mask`. */
export function flipByte(table: BuiltTable, offset: number, mask = 0x01): BuiltTable {
  const bytes = table.fs.readFile(table.path).slice();
  bytes[offset] = bytes[offset]! ^ mask;
  const fs = new MemoryFileSystem();
  fs.writeFile(table.path, bytes);
  return { ...table, fs };
}

/**
 * Bytes for compression tests: random stretches (literals), runs of one byte up to `maxRun`
 * long, and repeats of a short piece (long and overlapping matches), up to 12 parts.
 */
export function compressibleBytes(maxRun: number): fc.Arbitrary<Uint8Array> {
  return fc
    .array(
      fc.oneof(
        fc.uint8Array({ maxLength: 300 }),
        fc
          .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: maxRun }))
          .map(([b, n]) => new Uint8Array(n).fill(b)),
        fc
          .tuple(fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 60 }))
          .map(([piece, times]) => {
            const out = new Uint8Array(piece.length * times);
            for (let i = 0; i < times; i++) out.set(piece, i * piece.length);
            return out;
          }),
      ),
      { maxLength: 12 },
    )
    .map((parts) => {
      const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of parts) {
        out.set(p, at);
        at += p.length;
      }
      return out;
    });
}
