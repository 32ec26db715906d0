/**
 * Every checksum against values computed by librocksdb 7.8.3 itself
 * (testdata/checksum-vectors.json, made by scripts/checksum-vectors.cc from the library's
 * exported rocksdb::crc32c::Extend, rocksdb::Hash64, rocksdb::ComputeBuiltinChecksum and
 * ROCKSDB_XXH32/XXH64/XXH3_64bits), on 278 lengths from 0 to 65,539 bytes: every length
 * branch of every hash (0-3, 4-8, 9-16, 17-128, 129-240, long, exact multiples of the stripe
 * and block sizes, and the 64 KiB piece size of the wasm CRC path).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  blockChecksum,
  ChecksumType,
  crc32c,
  sliceHash64BigInt,
  sliceHash64Into,
  xxh3BigInt,
  xxh3Into,
  xxh32,
  xxh64BigInt,
} from "./checksum.js";
import { crc32cExtendJs8, crc32cExtendJs16 } from "./checksum-crc32c-js.js";
import { wasmChecksums } from "./checksum-wasm.js";
import { useWasmForLongInputs } from "./checksum-xxh3.js";
import { useWasmForXxh64 } from "./checksum-xxh64.js";

interface Vector {
  length: number;
  crc32c: string;
  xxh32: string;
  xxh64: string;
  xxh3: string;
  hash64: string;
  block: [string, string, string, string];
}
const file = new URL("../testdata/checksum-vectors.json", import.meta.url);
const vectors = (JSON.parse(readFileSync(file, "utf8")) as { vectors: Vector[] }).vectors;

/** The generator of scripts/checksum-vectors.cc: xorshift32 from 0x9e3779b9 ^ n, low bytes. */
function input(n: number): Uint8Array {
  const v = new Uint8Array(n);
  let x = (0x9e3779b9 ^ n) >>> 0;
  for (let i = 0; i < n; i++) {
    x = (x ^ (x << 13)) >>> 0;
    x ^= x >>> 17;
    x = (x ^ (x << 5)) >>> 0;
    v[i] = x & 0xff;
  }
  return v;
}

const hex32 = (n: number) => n.toString(16).padStart(8, "0");
const hex64 = (b: bigint) => b.toString(16).padStart(16, "0");

/** Checks `f` on every vector, reporting the first failing length. */
function each(
  name: keyof Vector | "wasm8" | "wasm16" | "js8" | "js16",
  f: (d: Uint8Array) => string,
): void {
  const field = name.startsWith("wasm") || name.startsWith("js") ? "crc32c" : name;
  for (const v of vectors) {
    expect({ length: v.length, value: f(input(v.length)) }).toEqual({
      length: v.length,
      value: v[field as keyof Vector],
    });
  }
}

describe("checksums against librocksdb 7.8.3 (testdata/checksum-vectors.json)", () => {
  it("has the lengths it claims", () => {
    expect(vectors).toHaveLength(278);
    expect(vectors.at(-1)!.length).toBe(65539);
  });
  it("crc32c (the picked path, and each of JS/wasm slicing-by-8/16)", () => {
    const wasm = wasmChecksums()!;
    each("crc32c", (d) => hex32(crc32c(d)));
    each("js8", (d) => hex32(crc32cExtendJs8(0, d, 0, d.length)));
    each("js16", (d) => hex32(crc32cExtendJs16(0, d, 0, d.length)));
    each("wasm8", (d) => hex32(wasm.crc32c8(0, d, 0, d.length)));
    each("wasm16", (d) => hex32(wasm.crc32c16(0, d, 0, d.length)));
  });
  it("xxh32 (the picked path, and the wasm loop at every length)", () => {
    const wasm = wasmChecksums()!;
    each("xxh32", (d) => hex32(xxh32(d)));
    each("xxh32", (d) => hex32(wasm.xxh32(d, 0, d.length, 0)));
  });
  it("xxh64, in wasm and in JS", () => {
    each("xxh64", (d) => hex64(xxh64BigInt(d)));
    useWasmForXxh64(false);
    try {
      each("xxh64", (d) => hex64(xxh64BigInt(d)));
    } finally {
      useWasmForXxh64(true);
    }
  });
  it("xxh3 (final): the flat short-input code, long inputs accumulated in wasm and in JS", () => {
    const out = new Uint32Array(2);
    each("xxh3", (d) => hex64(xxh3BigInt(d)));
    each("xxh3", (d) => {
      xxh3Into(d, 0, d.length, out, 0);
      return hex32(out[1]!) + hex32(out[0]!);
    });
    useWasmForLongInputs(false);
    try {
      each("xxh3", (d) => hex64(xxh3BigInt(d)));
      each("hash64", (d) => hex64(sliceHash64BigInt(d)));
    } finally {
      useWasmForLongInputs(true);
    }
  });
  it("Hash64 / GetSliceHash64 (XXPH3 preview): the flat short-key code and the general one", () => {
    const out = new Uint32Array(3);
    each("hash64", (d) => hex64(sliceHash64BigInt(d)));
    each("hash64", (d) => {
      sliceHash64Into(d, 0, d.length, out, 1);
      return hex32(out[2]!) + hex32(out[1]!);
    });
  });
  it("block checksums of each type (ComputeBuiltinChecksum)", () => {
    const types = [
      ChecksumType.CRC32c,
      ChecksumType.xxHash,
      ChecksumType.xxHash64,
      ChecksumType.XXH3,
    ];
    for (const v of vectors) {
      const d = input(v.length);
      expect({ length: v.length, value: types.map((t) => hex32(blockChecksum(t, d))) }).toEqual({
        length: v.length,
        value: v.block,
      });
    }
    expect(blockChecksum(ChecksumType.NoChecksum, input(10))).toBe(0);
  });
});
