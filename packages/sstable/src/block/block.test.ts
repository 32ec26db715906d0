import {
  bytewiseComparator,
  compareBytes,
  isCorruption,
  putFixed32,
  toBytes,
  toHex,
} from "@shale/base";
import { describeIteratorConformance } from "@shale/base/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { icmp } from "../table/table.test-support.js";
import { Block } from "./block.js";
import { BlockBuilder } from "./block-builder.js";
import { BlockIterator } from "./block-iterator.js";
import { KeyOrder } from "./key-order.js";

const internalOrder = new KeyOrder(bytewiseComparator, true);
const bytesOrder = new KeyOrder(bytewiseComparator, false);

function buildBlock(
  keys: readonly Uint8Array[],
  values: readonly Uint8Array[],
  interval: number,
): Block {
  const b = new BlockBuilder(interval);
  for (let i = 0; i < keys.length; i++) b.add(keys[i]!, values[i]!);
  // Copy: the builder's buffer is reused.
  return Block.keyValue(b.finish().slice(), "b", 0);
}

function iterator(block: Block, order: KeyOrder): BlockIterator {
  return new BlockIterator(order).init(block, "b", 0);
}

describe("BlockBuilder format", () => {
  it("writes the documented worked example", () => {
    const b = new BlockBuilder(2);
    b.add(toBytes("apple"), toBytes("1"));
    b.add(toBytes("apply"), toBytes("2"));
    b.add(toBytes("b"), toBytes("3"));
    expect(toHex(b.finish())).toBe(
      "0005016170706c6531" + "0401017932" + "0001016233" + "000000000e000000" + "02000000",
    );
  });

  it("encodes an empty block as one restart at 0", () => {
    const b = new BlockBuilder(16);
    expect(b.empty).toBe(true);
    const data = b.finish();
    expect(toHex(data)).toBe("0000000001000000");
    const block = Block.keyValue(data.slice(), "b", 0);
    expect(block.isEmpty).toBe(true);
    const it = iterator(block, bytesOrder);
    it.seekToFirst();
    expect(it.valid()).toBe(false);
    it.seekToLast();
    expect(it.valid()).toBe(false);
    it.seek(toBytes("a"));
    expect(it.valid()).toBe(false);
    it.seekForPrev(toBytes("a"));
    expect(it.valid()).toBe(false);
  });

  it("reuses its memory after reset", () => {
    const b = new BlockBuilder(4);
    b.add(toBytes("x"), toBytes("1"));
    b.finish();
    b.reset();
    b.add(toBytes("a"), toBytes("2"));
    const block = Block.keyValue(b.finish().slice(), "b", 0);
    const it = iterator(block, bytesOrder);
    it.seekToFirst();
    expect(new TextDecoder().decode(it.key())).toBe("a");
    it.next();
    expect(it.valid()).toBe(false);
  });

  it("rejects a bad restart interval", () => {
    expect(() => new BlockBuilder(0)).toThrow(/blockRestartInterval/);
  });
});

describe("Block parsing rejects damage", () => {
  const good = buildBlock(
    [toBytes("a"), toBytes("b"), toBytes("c")],
    [toBytes("1"), toBytes("2"), toBytes("3")],
    2,
  );

  it("too short, bad counts and bad restart offsets", () => {
    const cases: Uint8Array[] = [new Uint8Array(3)];
    const zero = good.data.slice();
    putFixed32(zero, zero.length - 4, 0);
    cases.push(zero);
    const many = good.data.slice();
    putFixed32(many, many.length - 4, 1000);
    cases.push(many);
    const badRestart = good.data.slice();
    putFixed32(badRestart, good.restartsOffset + 4, 9999);
    cases.push(badRestart);
    for (const data of cases) {
      try {
        Block.keyValue(data, "f.sst", 1234);
        expect.unreachable();
      } catch (e) {
        expect(isCorruption(e)).toBe(true);
        expect((e as { file?: string }).file).toBe("f.sst");
        expect((e as { offset?: number }).offset).toBe(1234);
      }
    }
  });

  it("a malformed entry throws Corruption at the block offset", () => {
    const data = good.data.slice();
    data[1] = 200; // unshared length runs past the entries
    const block = Block.keyValue(data, "f.sst", 77);
    const it = new BlockIterator(bytesOrder).init(block, "f.sst", 77);
    expect(() => it.seekToFirst()).toThrow(
      expect.objectContaining({ code: "Corruption", offset: 77 }),
    );
  });
});

const entryArb = (keyArb: fc.Arbitrary<Uint8Array>) =>
  fc.uniqueArray(fc.tuple(keyArb, fc.uint8Array({ maxLength: 40 })), {
    selector: ([k]) => toHex(k),
    maxLength: 120,
  });

function checkBlock(entries: [Uint8Array, Uint8Array][], interval: number, order: KeyOrder): void {
  const cmp = order.internal ? (a: Uint8Array, b: Uint8Array) => icmp.compare(a, b) : compareBytes;
  entries.sort((a, b) => cmp(a[0], b[0]));
  const keys = entries.map((e) => e[0]);
  const values = entries.map((e) => e[1]);
  const block = buildBlock(keys, values, interval);
  const it = iterator(block, order);
  const seen: string[] = [];
  for (it.seekToFirst(); it.valid(); it.next())
    seen.push(`${toHex(it.key())}=${toHex(it.value())}`);
  const expected = keys.map((k, i) => `${toHex(k)}=${toHex(values[i]!)}`);
  expect(seen).toEqual(expected);
  const back: string[] = [];
  for (it.seekToLast(); it.valid(); it.prev()) back.push(`${toHex(it.key())}=${toHex(it.value())}`);
  expect(back).toEqual(expected.slice().reverse());
  for (let i = 0; i < keys.length; i++) {
    it.seek(keys[i]!);
    expect(toHex(it.key())).toBe(toHex(keys[i]!));
    it.seekForPrev(keys[i]!);
    expect(toHex(it.key())).toBe(toHex(keys[i]!));
  }
}

describe("block round trips (property-based)", () => {
  for (const interval of [1, 2, 16]) {
    it(`byte keys, restart interval ${interval}`, () => {
      fc.assert(
        fc.property(entryArb(fc.uint8Array({ maxLength: 12, max: 3 })), (entries) =>
          checkBlock(entries, interval, bytesOrder),
        ),
        { numRuns: 60 },
      );
    });
    it(`internal keys, restart interval ${interval}`, () => {
      const keyArb = fc
        .tuple(
          fc.uint8Array({ maxLength: 8, max: 2 }),
          fc.integer({ min: 0, max: 50 }),
          fc.constantFrom(0, 1, 2, 7),
        )
        .map(([u, seq, kind]) => {
          const k = new Uint8Array(u.length + 8);
          k.set(u);
          k[u.length] = kind;
          k[u.length + 1] = seq;
          return k;
        });
      fc.assert(
        fc.property(entryArb(keyArb), (entries) => checkBlock(entries, interval, internalOrder)),
        { numRuns: 60 },
      );
    });
  }
});

for (const interval of [1, 2, 16]) {
  describeIteratorConformance(`BlockIterator (internal keys, restart interval ${interval})`, {
    keys: "internal",
    build: (keys, values) => iterator(buildBlock(keys, values, interval), internalOrder),
  });
}

describeIteratorConformance("BlockIterator (byte keys, restart interval 16)", {
  keys: "bytes",
  build: (keys, values) => iterator(buildBlock(keys, values, 16), bytesOrder),
});
