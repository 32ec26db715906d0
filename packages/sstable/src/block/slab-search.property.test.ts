/**
 * SlabSearch over any bytes (a slab slot rewritten by another thread while it is read holds
 * anything): it never throws and never reads past its range, and over a real block it
 * finds what a BlockIterator finds.
 */
import { bytewiseComparator, reverseBytewiseComparator, ValueKind } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Block } from "./block.js";
import { BlockBuilder } from "./block-builder.js";
import { BlockIterator } from "./block-iterator.js";
import { KeyOrder } from "./key-order.js";
import { SlabSearch } from "./slab-search.js";

const order = new KeyOrder(bytewiseComparator, true);

function ikey(user: Uint8Array, seq: number): Uint8Array {
  const out = new Uint8Array(user.length + 8);
  out.set(user);
  const trailer = seq * 256 + ValueKind.Value;
  for (let i = 0; i < 8; i++) out[user.length + i] = Math.floor(trailer / 2 ** (8 * i)) & 0xff;
  return out;
}

describe("SlabSearch", () => {
  it("ends on garbage without throwing or leaving its range", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.integer({ min: 0, max: 40 }),
        fc.uint8Array({ minLength: 8, maxLength: 20 }),
        (bytes, pad, target) => {
          // The block sits inside a larger array, guarded by 0xEE bytes on both sides.
          const data = new Uint8Array(bytes.length + 2 * pad).fill(0xee);
          data.set(bytes, pad);
          const s = new SlabSearch(order);
          let steps = 0;
          for (s.seek(data, pad, bytes.length, target); s.valid() && steps < 1000; s.next()) {
            steps++;
            expect(s.valueOffset).toBeGreaterThanOrEqual(pad);
            expect(s.valueOffset + s.valueLength).toBeLessThanOrEqual(pad + bytes.length);
          }
          expect(steps).toBeLessThan(1000);
        },
      ),
      { numRuns: 2000 },
    );
  });

  // Bytewise: the in-place run scan (run-scan.ts); reverse: the plain scan.
  it.each([
    ["bytewise", order, (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b)],
    [
      "reverse bytewise",
      new KeyOrder(reverseBytewiseComparator, true),
      (a: Uint8Array, b: Uint8Array) => Buffer.compare(b, a),
    ],
  ] as const)(
    "finds what a BlockIterator finds, at any offset of a larger array (%s)",
    (_, order, compare) => {
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.uint8Array({ minLength: 1, maxLength: 12 }), {
            minLength: 1,
            maxLength: 80,
            selector: (k) => Buffer.from(k).toString("hex"),
          }),
          fc.integer({ min: 1, max: 16 }),
          fc.integer({ min: 0, max: 100 }),
          fc.array(fc.uint8Array({ maxLength: 13 }), { minLength: 1, maxLength: 20 }),
          (users, restartInterval, pad, probes) => {
            users.sort(compare);
            const builder = new BlockBuilder(restartInterval);
            for (let i = 0; i < users.length; i++) {
              builder.add(ikey(users[i]!, 5), new Uint8Array([i & 0xff, i >> 8]));
            }
            const bytes = builder.finish().slice();
            const data = new Uint8Array(bytes.length + 2 * pad).fill(0xab);
            data.set(bytes, pad);
            const it = new BlockIterator(order).init(
              Block.keyValue(bytes, undefined, 0),
              undefined,
              0,
            );
            const s = new SlabSearch(order);
            for (const p of [...probes, ...users]) {
              const target = ikey(p, 9);
              it.seek(target);
              s.seek(data, pad, bytes.length, target);
              expect(s.corrupt).toBe(false);
              expect(s.valid()).toBe(it.valid());
              if (it.valid()) {
                expect(Buffer.from(s.keyBuf.subarray(0, s.keyLength))).toEqual(
                  Buffer.from(it.key()),
                );
                expect(
                  Buffer.from(data.subarray(s.valueOffset, s.valueOffset + s.valueLength)),
                ).toEqual(Buffer.from(it.value()));
              }
            }
          },
        ),
        { numRuns: 300 },
      );
    },
  );
});
