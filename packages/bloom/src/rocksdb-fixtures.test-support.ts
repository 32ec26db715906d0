/**
 * Test helpers for the RocksDB-made fixtures in `testdata/` (see testdata/README.md): the key
 * recipes of `make-rocksdb-fixtures.cc`, a minimal block-based-table reader that finds the
 * filter block and the properties of a RocksDB .sst, and RocksDB's legacy Bloom builder
 * written plainly from its source (to check the legacy reader against RocksDB's bytes).
 */
import { readFileSync } from "node:fs";
import { legacyBloomHash } from "./legacy-hash.js";

export const TESTDATA = new URL("../testdata/", import.meta.url);

/** `make-rocksdb-fixtures.cc`'s patternKey: key[i] = (i * 131 + len * 7 + 0x5a) & 0xff. */
export function patternKey(len: number): Uint8Array {
  const key = new Uint8Array(len);
  for (let i = 0; i < len; i++) key[i] = (i * 131 + len * 7 + 0x5a) & 0xff;
  return key;
}

/** The user keys of a fixture table, in the order RocksDB added them. */
export function fixtureKeys(recipe: string): Uint8Array[] {
  if (recipe === "seq1000") {
    const enc = new TextEncoder();
    return Array.from({ length: 1000 }, (_, i) => enc.encode(`key${String(i).padStart(6, "0")}`));
  }
  if (recipe === "varied") {
    const keys = Array.from({ length: 301 }, (_, n) => patternKey(n));
    keys.sort((a, b) => Buffer.compare(a, b));
    return keys.filter((k, i) => i === 0 || Buffer.compare(k, keys[i - 1]!) !== 0);
  }
  throw new Error(`unknown key recipe ${recipe}`);
}

export interface FixtureTable {
  file: string;
  keys: string;
  bitsPerKey: number;
  formatVersion: number;
}

export function fixtureTables(): FixtureTable[] {
  return JSON.parse(readFileSync(new URL("tables.json", TESTDATA), "utf8")) as FixtureTable[];
}

export function hashVectors(): { hash64: [number, string][]; bloomHash32: [number, string][] } {
  return JSON.parse(readFileSync(new URL("hash-vectors.json", TESTDATA), "utf8"));
}

function varint(buf: Uint8Array, pos: { at: number }): number {
  let result = 0;
  let scale = 1;
  for (;;) {
    const b = buf[pos.at++]!;
    result += (b & 0x7f) * scale;
    if (b < 0x80) return result;
    scale *= 128;
  }
}

/** The entries of an uncompressed block of a block-based table (prefix-compressed keys). */
function blockEntries(block: Uint8Array): Map<string, Uint8Array> {
  const numRestarts = new DataView(block.buffer, block.byteOffset).getUint32(
    block.length - 4,
    true,
  );
  const end = block.length - 4 - 4 * numRestarts;
  const out = new Map<string, Uint8Array>();
  const pos = { at: 0 };
  let key = new Uint8Array(0);
  while (pos.at < end) {
    const shared = varint(block, pos);
    const nonShared = varint(block, pos);
    const valueLength = varint(block, pos);
    const next = new Uint8Array(shared + nonShared);
    next.set(key.subarray(0, shared));
    next.set(block.subarray(pos.at, pos.at + nonShared), shared);
    pos.at += nonShared;
    key = next;
    out.set(Buffer.from(key).toString("latin1"), block.subarray(pos.at, pos.at + valueLength));
    pos.at += valueLength;
  }
  return out;
}

function handleAt(buf: Uint8Array, value: Uint8Array): Uint8Array {
  const pos = { at: 0 };
  const offset = varint(value, pos);
  const size = varint(value, pos);
  return buf.subarray(offset, offset + size);
}

export interface SstFilter {
  /** The filter block's contents (no block trailer), or undefined without a filter. */
  filter: Uint8Array | undefined;
  /** The metaindex names. */
  metaNames: string[];
  /** The table properties, values as raw bytes. */
  properties: Map<string, Uint8Array>;
}

/** Reads the filter block and properties of a RocksDB block-based table (format_version 2..5). */
export function readSstFilter(bytes: Uint8Array): SstFilter {
  // Footer (53 bytes): checksum type, metaindex handle, index handle, padding to 41 bytes,
  // format_version (fixed32), magic (fixed64) 0x88e241b785f4cff7.
  const footer = bytes.subarray(bytes.length - 53);
  const magic = Buffer.from(footer.subarray(45)).toString("hex");
  if (magic !== "f7cff485b741e288") throw new Error(`not a block-based table (magic ${magic})`);
  const pos = { at: 1 };
  const metaOffset = varint(footer, pos);
  const metaSize = varint(footer, pos);
  const meta = blockEntries(bytes.subarray(metaOffset, metaOffset + metaSize));
  const filterValue = meta.get("fullfilter.rocksdb.BuiltinBloomFilter");
  const propsValue = meta.get("rocksdb.properties");
  return {
    filter: filterValue !== undefined ? handleAt(bytes, filterValue) : undefined,
    metaNames: [...meta.keys()],
    properties: propsValue !== undefined ? blockEntries(handleAt(bytes, propsValue)) : new Map(),
  };
}

/** A varint64 property value. */
export function varintValue(value: Uint8Array | undefined): number | undefined {
  return value === undefined ? undefined : varint(value, { at: 0 });
}

/**
 * RocksDB 7.8.3's `LegacyBloomBitsBuilder` for `keys` at `bitsPerKey`, written plainly:
 * whole bits per key, odd line count, 2^log2LineBytes-byte lines (64 on x86), h += rotr(h, 17)
 * probes.
 */
export function legacyReferenceFilter(
  keys: readonly Uint8Array[],
  bitsPerKey: number,
  log2LineBytes = 6,
): Uint8Array {
  const lineBits = 8 * 2 ** log2LineBytes;
  const millibits = Math.floor(bitsPerKey * 1000 + 0.500001);
  const wholeBits = Math.floor((millibits + 500) / 1000);
  const numProbes = Math.min(30, Math.max(1, Math.floor(wholeBits * 0.69)));
  const hashes: number[] = [];
  for (const key of keys) {
    const h = legacyBloomHash(key);
    if (hashes.length === 0 || hashes[hashes.length - 1] !== h) hashes.push(h);
  }
  let numLines = 0;
  let totalBits = 0;
  if (hashes.length > 0) {
    numLines = Math.ceil(Math.min(hashes.length * wholeBits, 0xffff0000) / lineBits);
    if (numLines % 2 === 0) numLines++;
    totalBits = numLines * lineBits;
  }
  const filter = new Uint8Array(totalBits / 8 + 5);
  for (let h of hashes) {
    const base = (h % numLines) * (lineBits / 8);
    const delta = ((h >>> 17) | (h << 15)) >>> 0;
    for (let p = 0; p < numProbes; p++) {
      const bit = h & (lineBits - 1);
      filter[base + (bit >> 3)]! |= 1 << (bit & 7);
      h = (h + delta) >>> 0;
    }
  }
  const len = totalBits / 8;
  filter[len] = numProbes;
  new DataView(filter.buffer).setUint32(len + 1, numLines, true);
  return filter;
}
