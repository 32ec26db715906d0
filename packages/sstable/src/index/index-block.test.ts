/**
 * The index block in RocksDB's format_version 4/5 encoding: separators as RocksDB computes
 * them, user keys when no user key spans blocks, no value lengths, and the reader's rewrite
 * of such blocks (and of delta-encoded handles) into the classic form.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bytewiseComparator, toBytes, toHex, ValueKind } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Block } from "../block/block.js";
import { BlockBuilder } from "../block/block-builder.js";
import { ikey } from "../table/table.test-support.js";
import { bytewiseSeparator, IndexBuilder, normalizeIndexBlock } from "./index-block.js";

const here = dirname(fileURLToPath(import.meta.url));
const fromHex = (hex: string) => Uint8Array.from(Buffer.from(hex, "hex"));

describe("bytewiseSeparator", () => {
  it("equals RocksDB's BytewiseComparator::FindShortestSeparator on 400 pairs", () => {
    const pairs = JSON.parse(
      readFileSync(join(here, "..", "..", "testdata", "bytewise-separators.json"), "utf8"),
    ) as [string, string, string][];
    expect(pairs.length).toBe(400);
    for (const [a, b, sep] of pairs) {
      expect(toHex(bytewiseSeparator(fromHex(a), fromHex(b))), `${a} ${b}`).toBe(sep);
    }
  });

  it("worked cases", () => {
    const s = (a: string, b: string) =>
      new TextDecoder().decode(bytewiseSeparator(toBytes(a), toBytes(b)));
    expect(s("key000019", "key000020")).toBe("key00002"); // LevelDB's would keep "key000019"
    expect(s("abc1", "abc3")).toBe("abc2");
    expect(s("abc", "abcd")).toBe("abc");
    expect(s("ab", "b")).toBe("ac");
  });
});

describe("IndexBuilder", () => {
  it("user keys and no value lengths when no user key spans blocks (format version 5)", () => {
    const b = new IndexBuilder(bytewiseComparator, 5);
    b.add(ikey("key000019", 5, ValueKind.Value), ikey("key000020", 4, ValueKind.Value), {
      offset: 0,
      size: 100,
    });
    b.add(ikey("key000040", 1, ValueKind.Value), undefined, { offset: 105, size: 200 });
    const { contents, keyIsUserKey } = b.finish();
    expect(keyIsUserKey).toBe(true);
    expect(toHex(contents)).toBe(
      `0008${toHex(toBytes("key00002"))}0064` +
        `0009${toHex(toBytes("key000040"))}69c801` +
        "00000000" +
        "0c000000" +
        "02000000",
    );
  });

  it("internal keys once a separator has the next block's user key", () => {
    const b = new IndexBuilder(bytewiseComparator, 5);
    b.add(ikey("a", 9, ValueKind.Value), ikey("b", 9, ValueKind.Value), { offset: 0, size: 10 });
    b.add(ikey("b", 9, ValueKind.Value), ikey("b", 8, ValueKind.Value), { offset: 15, size: 10 });
    b.add(ikey("b", 8, ValueKind.Value), undefined, { offset: 30, size: 10 });
    const { contents, keyIsUserKey } = b.finish();
    expect(keyIsUserKey).toBe(false);
    // "a" could not be shortened below "b": the first entry is a#9,SET itself.
    expect(toHex(contents.subarray(0, 2 + 9 + 2))).toBe(`0009${toHex(ikey("a", 9, 1))}000a`);
  });

  it("format versions 2 and 3 keep value lengths; 2 keeps sequence numbers", () => {
    for (const [fv, userKeys, first] of [
      [2, false, `000902${toHex(ikey("b", 1, 1))}0001`],
      [3, true, "00010262" + "0001"],
    ] as const) {
      const b = new IndexBuilder(bytewiseComparator, fv);
      b.add(ikey("b", 1, 1), undefined, { offset: 0, size: 1 });
      const { contents, keyIsUserKey } = b.finish();
      expect(keyIsUserKey).toBe(userKeys);
      expect(toHex(contents).startsWith(first)).toBe(true);
    }
  });
});

describe("normalizeIndexBlock", () => {
  it("rewrites user keys (+ 8 zero bytes) and delta-encoded handles into the classic form", () => {
    // RocksDB's encoding with restart interval 2: the second entry shares "k0" and stores
    // its handle as the size delta +20 (zigzag 40 = 0x28) after (0, 100).
    const raw = fromHex(
      `0003${toHex(toBytes("k01"))}00640201${toHex(toBytes("5"))}280000000001000000`,
    );
    const out = normalizeIndexBlock(raw, { keyIsUserKey: true, valueIsDeltaEncoded: true }, "f", 0);
    const block = Block.keyValue(out, "f", 0);
    expect(block.numRestarts).toBe(2);
    expect(toHex(out)).toBe(
      `000b02${toHex(toBytes("k01"))}00000000000000000064` +
        `000b02${toHex(toBytes("k05"))}00000000000000006978` +
        "00000000" +
        "10000000" +
        "02000000",
    );
  });

  it("leaves a classic block alone (same memory)", () => {
    const b = new BlockBuilder(1);
    b.add(ikey("a", 1, 1), fromHex("0001"));
    const raw = b.finish().slice();
    expect(
      normalizeIndexBlock(raw, { keyIsUserKey: false, valueIsDeltaEncoded: false }, "f", 0),
    ).toBe(raw);
  });

  it("malformed entries are Corruption naming the file and the block", () => {
    const enc = { keyIsUserKey: true, valueIsDeltaEncoded: true };
    const bad = [
      `0003${toHex(toBytes("k01"))}800000000001000000`, // truncated handle
      `0501${toHex(toBytes("x"))}020000000001000000`, // shared > previous key
      `0209${toHex(toBytes("x"))}0000000001000000`, // overruns
    ];
    for (const hex of bad) {
      expect(() => normalizeIndexBlock(fromHex(hex), enc, "f", 77)).toThrow(
        expect.objectContaining({ code: "Corruption", file: "f", offset: 77 }),
      );
    }
    // A delta before any whole handle.
    const delta = fromHex("0000" + "28" + "00000000" + "01000000");
    expect(() =>
      normalizeIndexBlock(delta, { keyIsUserKey: true, valueIsDeltaEncoded: true }, "f", 77),
    ).toThrow(expect.objectContaining({ code: "Corruption" }));
  });

  it("the whole-entries fast path equals the general rewrite (property-based)", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.uint8Array({ minLength: 0, maxLength: 12, max: 3 }), {
          selector: (k) => toHex(k),
          minLength: 0,
          maxLength: 60,
        }),
        fc.constantFrom(3, 4, 5),
        fc.boolean(),
        (users, formatVersion, spanning) => {
          const sorted = users.slice().sort((a, b) => bytewiseComparator.compare(a, b));
          const b = new IndexBuilder(bytewiseComparator, formatVersion);
          let offset = 0;
          for (let i = 0; i < sorted.length; i++) {
            const last = ikey(sorted[i]!, 5, ValueKind.Value);
            // With `spanning`, every other block's next key has the same user key.
            const next =
              i + 1 < sorted.length
                ? ikey(spanning && i % 2 === 0 ? sorted[i]! : sorted[i + 1]!, 4, ValueKind.Value)
                : undefined;
            b.add(last, next, { offset, size: 100 + i });
            offset += 105 + i;
          }
          const { contents, keyIsUserKey } = b.finish();
          const encoding = { keyIsUserKey, valueIsDeltaEncoded: formatVersion >= 4 };
          const fast = normalizeIndexBlock(contents, encoding, "f", 0);
          const general = normalizeIndexBlock(contents, encoding, "f", 0, false);
          expect(toHex(fast)).toBe(toHex(general));
          Block.keyValue(fast, "f", 0);
        },
      ),
      { numRuns: 300 },
    );
  });
});
