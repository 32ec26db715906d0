import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CRC32C_WASM_THRESHOLD,
  checksum32,
  checksumReady,
  crc32c,
  crc32cExtend,
  maskChecksum,
  maskedChecksum32,
  maskedCrc32c,
  sliceHash64BigInt,
  sliceHash64Into,
  unmaskChecksum,
  XXH32_WASM_THRESHOLD,
  xxh3BigInt,
  xxh3Into,
  xxh3Low32,
  xxh32,
  xxh64BigInt,
  xxh64Into,
  xxh64Low32,
} from "./checksum.js";
import { crc32cExtendJs8, crc32cExtendJs16 } from "./checksum-crc32c-js.js";
import { WASM_LARGE_MAX, WASM_XXH32_MAX, wasmChecksums } from "./checksum-wasm.js";
import { useWasmForLongInputs } from "./checksum-xxh3.js";
import { xxh32 as xxh32Js } from "./checksum-xxh32.js";
import { useWasmForXxh64 } from "./checksum-xxh64.js";

const text = (s: string) => new TextEncoder().encode(s);

describe("CRC32C", () => {
  it("matches RocksDB's crc32c_test vectors", () => {
    expect(crc32c(text("123456789"))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa);
    expect(crc32c(new Uint8Array(32).fill(0xff))).toBe(0x62a8ab43);
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i))).toBe(0x46dd794e);
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => 31 - i))).toBe(0x113fdb5c);
    // An iSCSI SCSI Read (10) command PDU (RFC 3720 B.4).
    const iscsi = Uint8Array.of(
      0x01,
      0xc0,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x14,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x04,
      0x00,
      0x00,
      0x00,
      0x00,
      0x14,
      0x00,
      0x00,
      0x00,
      0x18,
      0x28,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x02,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
    );
    expect(crc32c(iscsi)).toBe(0xd9963a56);
    expect(crc32c(new Uint8Array(0))).toBe(0);
  });

  it("extends like RocksDB's Extend (hello world in two pieces)", () => {
    expect(crc32cExtend(crc32c(text("hello ")), text("world"))).toBe(crc32c(text("hello world")));
  });

  it("masks like crc32c::Mask: rotate right 15, add 0xa282ead8; Unmask inverts", () => {
    const c = crc32c(text("foo"));
    expect(maskChecksum(c)).not.toBe(c);
    expect(maskChecksum(maskChecksum(c))).not.toBe(c);
    expect(unmaskChecksum(maskChecksum(c))).toBe(c);
    expect(unmaskChecksum(unmaskChecksum(maskChecksum(maskChecksum(c))))).toBe(c);
    expect(maskChecksum(0)).toBe(0xa282ead8);
    expect(maskChecksum(1)).toBe((0x00020000 + 0xa282ead8) >>> 0);
    expect(maskedCrc32c(text("foo"))).toBe(maskChecksum(c));
  });

  it("JS and WebAssembly paths agree on random inputs at every offset (property)", () => {
    const wasm = wasmChecksums();
    expect(wasm).toBeDefined();
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 2500 }),
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 0, max: 0xffffffff }),
        (d, a, b, seed) => {
          const start = d.length === 0 ? 0 : a % (d.length + 1);
          const end = start + (b % (d.length - start + 1));
          const want = crc32cExtendJs8(seed, d, start, end);
          expect(crc32cExtendJs16(seed, d, start, end)).toBe(want);
          expect(wasm!.crc32c8(seed, d, start, end)).toBe(want);
          expect(wasm!.crc32c16(seed, d, start, end)).toBe(want);
          expect(crc32cExtend(seed, d, start, end)).toBe(want);
          // A sub-range hashes like a copy of it.
          expect(crc32cExtend(seed, d.slice(start, end))).toBe(want);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("agrees at every start offset and length around the 8/16-byte steps and the wasm threshold", () => {
    const wasm = wasmChecksums()!;
    const d = Uint8Array.from(
      { length: CRC32C_WASM_THRESHOLD + 80 },
      (_, i) => (i * 167 + 13) & 0xff,
    );
    for (let start = 0; start < 17; start++) {
      for (const len of [
        0,
        1,
        7,
        8,
        9,
        15,
        16,
        17,
        31,
        33,
        CRC32C_WASM_THRESHOLD - 1,
        CRC32C_WASM_THRESHOLD,
        CRC32C_WASM_THRESHOLD + 1,
      ]) {
        const want = crc32cExtendJs8(0, d, start, start + len);
        expect(wasm.crc32c16(0, d, start, start + len)).toBe(want);
        expect(wasm.crc32c8(0, d, start, start + len)).toBe(want);
        expect(crc32c(d, start, start + len)).toBe(want);
      }
    }
  });

  it("hashes inputs longer than the wasm module's 64 KiB piece in pieces", () => {
    const d = Uint8Array.from({ length: 200_003 }, (_, i) => (i * 31 + (i >>> 9)) & 0xff);
    expect(crc32c(d, 5, 199_999)).toBe(crc32cExtendJs16(0, d, 5, 199_999));
  });

  it("detects a flipped bit", () => {
    const d = new Uint8Array(4096).map((_, i) => i & 0xff);
    const before = crc32c(d);
    d[2048]! ^= 1;
    expect(crc32c(d)).not.toBe(before);
  });
});

describe("XXH32", () => {
  it("JS and WebAssembly paths agree on random inputs at every offset (property)", () => {
    const wasm = wasmChecksums()!;
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 2500 }),
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 0, max: 0xffffffff }),
        (d, a, b, seed) => {
          const start = d.length === 0 ? 0 : a % (d.length + 1);
          const end = start + (b % (d.length - start + 1));
          const want = xxh32Js(d, start, end, seed);
          expect(wasm.xxh32(d, start, end, seed)).toBe(want);
          expect(xxh32(d, start, end, seed)).toBe(want);
          expect(xxh32(d.slice(start, end), 0, end - start, seed)).toBe(want);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("XXH32 of blocks past the fixed wasm region (memory grown) and past the grown limit agrees with JS", () => {
    const wasm = wasmChecksums()!;
    const n = WASM_LARGE_MAX + 24;
    const d = Uint8Array.from({ length: n }, (_, i) => (i * 131 + (i >>> 9)) & 0xff);
    for (const [start, end] of [
      [0, WASM_XXH32_MAX + 1],
      [7, 7 + 1_300_000],
      [1, WASM_LARGE_MAX + 1],
      [0, WASM_LARGE_MAX + 1], // over the limit: JS
      [3, n],
    ] as const) {
      const want = xxh32Js(d, start, end, 5);
      expect(xxh32(d, start, end, 5), `${start}..${end}`).toBe(want);
      if (end - start <= WASM_LARGE_MAX) expect(wasm.xxh32(d, start, end, 5)).toBe(want);
    }
    // After the memory grew, the fixed regions still work (their views were made again).
    const small = d.subarray(100, 5000);
    expect(wasm.xxh32(small, 0, small.length, 0)).toBe(xxh32Js(small, 0, small.length, 0));
    expect(crc32c(small) >>> 0).toBe(crc32cExtendJs16(0, small, 0, small.length) >>> 0);
  });

  it("agrees at every offset around the wasm threshold and beyond the wasm limit", () => {
    const wasm = wasmChecksums()!;
    const d = Uint8Array.from(
      { length: WASM_XXH32_MAX + 40 },
      (_, i) => (i * 73 + (i >>> 7)) & 0xff,
    );
    for (let start = 0; start < 17; start++) {
      for (const len of [
        0,
        3,
        4,
        15,
        16,
        17,
        XXH32_WASM_THRESHOLD - 1,
        XXH32_WASM_THRESHOLD,
        1000,
      ]) {
        expect(wasm.xxh32(d, start, start + len, 0)).toBe(xxh32Js(d, start, start + len, 0));
        expect(xxh32(d, start, start + len)).toBe(xxh32Js(d, start, start + len, 0));
      }
    }
    expect(xxh32(d, 0, WASM_XXH32_MAX)).toBe(xxh32Js(d, 0, WASM_XXH32_MAX, 0));
    expect(xxh32(d)).toBe(xxh32Js(d, 0, d.length, 0));
  });

  it("computes XXH32 with seed 0 (reference vectors)", () => {
    expect(xxh32(new Uint8Array(0))).toBe(0x02cc5d05);
    expect(xxh32(text("a"))).toBe(0x550d7456);
    expect(xxh32(text("abc"))).toBe(0x32d153ff);
    expect(checksum32(text("abc"))).toBe(0x32d153ff);
    expect(maskedChecksum32(text("abc"))).toBe(maskChecksum(0x32d153ff));
  });
  it("takes a seed", () => {
    // xxHash's sanity test: XXH32 of "" with seed PRIME32 (2654435761) = 0x36b78ae7.
    expect(xxh32(new Uint8Array(0), 0, 0, 2654435761)).toBe(0x36b78ae7);
  });
});

describe("64-bit hashes", () => {
  it("long inputs: the wasm and JS paths agree at every offset (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 241, maxLength: 5000 }), fc.nat(), (d, a) => {
        const start = a % (d.length - 240);
        const wasm = [xxh3BigInt(d, start), sliceHash64BigInt(d, start), xxh64BigInt(d, start)];
        useWasmForLongInputs(false);
        useWasmForXxh64(false);
        try {
          expect([
            xxh3BigInt(d, start),
            sliceHash64BigInt(d, start),
            xxh64BigInt(d, start),
          ]).toEqual(wasm);
        } finally {
          useWasmForLongInputs(true);
          useWasmForXxh64(true);
        }
      }),
      { numRuns: 100 },
    );
  });

  it("XXH3 and XXPH3 of blocks past the fixed wasm region (memory grown) and past the grown limit agree with JS", () => {
    const n = WASM_LARGE_MAX + 24;
    const d = Uint8Array.from({ length: n }, (_, i) => (i * 197 + (i >>> 11)) & 0xff);
    const spans = [
      [0, WASM_XXH32_MAX + 1],
      [5, 5 + 700_001],
      [1, WASM_LARGE_MAX + 1],
      [0, WASM_LARGE_MAX + 1], // over the limit: JS either way
      [3, n],
    ] as const;
    const hashes = () =>
      spans.map(([start, end]) => {
        const view = d.subarray(start, end);
        return [xxh3BigInt(view), sliceHash64BigInt(view), xxh3Low32(d, start, end)];
      });
    const inWasm = hashes();
    useWasmForLongInputs(false);
    try {
      expect(inWasm).toEqual(hashes());
    } finally {
      useWasmForLongInputs(true);
    }
    // After the memory grew, the fixed regions still work (their views were made again).
    const small = d.subarray(100, 5000);
    const want = [xxh3BigInt(small), xxh32(small)];
    useWasmForLongInputs(false);
    try {
      expect([xxh3BigInt(small), xxh32Js(small, 0, small.length, 0)]).toEqual(want);
    } finally {
      useWasmForLongInputs(true);
    }
  });

  it("match reference values (xxHash, RocksDB hash_test Hash64SmallValueSchema)", () => {
    expect(xxh64BigInt(new Uint8Array(0))).toBe(0xef46db3751d8e999n);
    expect(xxh64BigInt(text("a"))).toBe(0xd24ec4f1a98c6e5bn);
    expect(xxh3BigInt(new Uint8Array(0))).toBe(0x2d06800538d394c2n);
    expect(sliceHash64BigInt(new Uint8Array(0))).toBe(5999572062939766020n);
    expect(sliceHash64BigInt(Uint8Array.of(0x08))).toBe(583283813901344696n);
    expect(sliceHash64BigInt(Uint8Array.of(0x4d, 0x76))).toBe(6859542833406258115n);
    expect(sliceHash64BigInt(Uint8Array.of(0x30, 0x46, 0x0b))).toBe(11404699285340020889n);
    expect(sliceHash64BigInt(Uint8Array.of(0x67, 0x53, 0x81, 0x1c))).toBe(9010661983527562386n);
    expect(sliceHash64BigInt(Uint8Array.of(0xd0, 0x7a, 0x6e, 0xea, 0x56))).toBe(
      6384167718754869899n,
    );
  });

  it("Into / Low32 / BigInt agree, and a sub-range hashes like a copy (property)", () => {
    const out = new Uint32Array(4);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 1500 }), fc.nat(), fc.nat(), (d, a, b) => {
        const start = d.length === 0 ? 0 : a % (d.length + 1);
        const end = start + (b % (d.length - start + 1));
        const copy = d.slice(start, end);
        for (const [into, low, big] of [
          [xxh64Into, xxh64Low32, xxh64BigInt],
          [xxh3Into, xxh3Low32, xxh3BigInt],
          [
            sliceHash64Into,
            (x: Uint8Array, s: number, e: number) => {
              sliceHash64Into(x, s, e, out, 2);
              return out[2]!;
            },
            sliceHash64BigInt,
          ],
        ] as const) {
          into(d, start, end, out, 1);
          const v = big(copy);
          expect(out[1]).toBe(Number(v & 0xffffffffn));
          expect(out[2]).toBe(Number(v >> 32n));
          expect(low(d, start, end)).toBe(Number(v & 0xffffffffn));
        }
      }),
      { numRuns: 200 },
    );
  });
});

it("checksumReady resolves (everything is synchronous)", async () => {
  await expect(checksumReady()).resolves.toBeUndefined();
});
