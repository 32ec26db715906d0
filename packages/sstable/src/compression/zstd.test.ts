import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isShaleError } from "@shale/base";
import fc from "fast-check";
import { decompress as fzstdDecompress } from "fzstd";
import { describe, expect, it } from "vitest";
import { CompressionType } from "../format/format.js";
import { compressBlock, decompressBlock } from "./compression.js";
import { loadZstd, ZstdError, zstdCodec } from "./zstd.js";
import { ZSTD_WASM_BASE64, ZSTD_WASM_VERSION } from "./zstd-wasm-bytes.js";

const TESTDATA = fileURLToPath(new URL("../../testdata/zstd/", import.meta.url));
/** A dictionary `zstd --train --maxdict=4096 --dictID=12345` made (see testdata/zstd/README.md). */
const TRAINED = new Uint8Array(readFileSync(`${TESTDATA}trained.dict`));

/** Text like the samples the trained dictionary learnt from. */
/** 4 KiB of compressible bytes, like a data block. */
function blockBytes(): Uint8Array {
  let text = "";
  for (let i = 0; text.length < 4096; i++) text += `key${(i * 7919) % 100000}:value${i % 13};`;
  return new TextEncoder().encode(text.slice(0, 4096));
}

const sampleText = fc
  .array(fc.tuple(fc.constantFrom("user", "key", "value", "order", "shale"), fc.nat(999999)), {
    maxLength: 200,
  })
  .map((parts) => new TextEncoder().encode(parts.map(([w, n]) => `${w}${n}:${w};`).join("")));

describe("zstd codec (WebAssembly)", () => {
  it("embeds exactly the pinned @bokuweb/zstd-wasm module", () => {
    const url = new URL(
      "../../node_modules/@bokuweb/zstd-wasm/dist/common/zstd.wasm",
      import.meta.url,
    );
    const pkg = JSON.parse(
      readFileSync(
        new URL("../../node_modules/@bokuweb/zstd-wasm/package.json", import.meta.url),
        "utf8",
      ),
    ) as { version: string };
    expect(ZSTD_WASM_VERSION).toBe(pkg.version);
    expect(ZSTD_WASM_BASE64).toBe(readFileSync(url).toString("base64"));
  });

  it("loads asynchronously, then is synchronous", async () => {
    expect(await loadZstd()).toBe(true);
    expect(zstdCodec()).toBeDefined();
  });

  it("round-trips any bytes at levels -5..19; fzstd reads its frames", () => {
    const codec = zstdCodec()!;
    fc.assert(
      fc.property(
        fc.oneof(fc.uint8Array({ maxLength: 9000 }), sampleText),
        fc.integer({ min: -5, max: 19 }),
        (raw, level) => {
          const frame = codec.compress(raw, level);
          expect(codec.decompress(frame, raw.length)).toEqual(raw);
          expect(codec.decompress(frame, -1)).toEqual(raw);
          expect(fzstdDecompress(frame)).toEqual(raw);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("round-trips with a trained and with a raw-content dictionary", () => {
    const codec = zstdCodec()!;
    const raw = new TextEncoder().encode("user123456:user;key42:key;".repeat(30));
    fc.assert(
      fc.property(sampleText, fc.boolean(), (text, trained) => {
        const dict = trained ? TRAINED : raw;
        const frame = codec.compress(text, 3, dict);
        expect(codec.decompress(frame, text.length, dict)).toEqual(text);
      }),
      { numRuns: 150 },
    );
  });

  it("a trained dictionary makes small blocks smaller, and is needed to read them", () => {
    const codec = zstdCodec()!;
    const text = new TextEncoder().encode(
      "user123456:user;key42:keykey;value7:value;order9:order;",
    );
    const plain = codec.compress(text, 3);
    const withDict = codec.compress(text, 3, TRAINED);
    expect(withDict.length).toBeLessThan(plain.length);
    // The frame names dictionary 12345: decoding without it fails, never returns garbage.
    expect(() => codec.decompress(withDict, text.length)).toThrow(ZstdError);
  });

  it("damaged frames throw ZstdError (never hang or crash), in any position", () => {
    const codec = zstdCodec()!;
    const raw = blockBytes();
    const frame = codec.compress(raw, 3);
    fc.assert(
      fc.property(
        fc.nat(frame.length - 1),
        fc.integer({ min: 1, max: 255 }),
        fc.nat(frame.length),
        (at, xor, cut) => {
          const bad = frame.slice(0, Math.max(cut, at + 1));
          bad[at]! ^= xor;
          try {
            const out = codec.decompress(bad, raw.length);
            // Damage in a literal or checksum-less region can decode to other bytes of the
            // same length; never to more.
            expect(out.length).toBe(raw.length);
          } catch (e) {
            expect(e).toBeInstanceOf(ZstdError);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe("zstd table blocks", () => {
  it("compressBlock/decompressBlock round-trip with RocksDB's size prefix, with and without a dictionary", () => {
    fc.assert(
      fc.property(sampleText, fc.boolean(), fc.integer({ min: 1, max: 19 }), (raw, dict, level) => {
        const d = dict ? TRAINED : undefined;
        const out = compressBlock(raw, CompressionType.ZSTD, 5, d, level);
        if (out === undefined) return; // saved < 12.5 %: stored raw
        const stream = out.subarray(0, out.length - 5);
        expect(decompressBlock(stream, CompressionType.ZSTD, "t.sst", 0, d)).toEqual(raw);
      }),
      { numRuns: 150 },
    );
  });

  it("a damaged block is Corruption at the block's offset", () => {
    const raw = blockBytes();
    const out = compressBlock(raw, CompressionType.ZSTD)!;
    const bad = out.slice();
    bad[10]! ^= 0xff;
    bad[20]! ^= 0xff;
    let error: unknown;
    try {
      decompressBlock(bad, CompressionType.ZSTD, "t.sst", 1234);
    } catch (e) {
      error = e;
    }
    expect(isShaleError(error) && error.code === "Corruption").toBe(true);
    expect(String(error)).toMatch(/zstd/);
    expect((error as { offset?: number }).offset).toBe(1234);
  });
});
