/** KeptBytes: copies stay intact until cleared, across growth; a clear reuses the memory. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KeptBytes } from "./kept-bytes.js";

describe("KeptBytes", () => {
  it("every copy of a group keeps its bytes while its source is overwritten", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.uint8Array({ maxLength: 3000 }), { maxLength: 12 }), {
          maxLength: 8,
        }),
        (groups) => {
          const kept = new KeptBytes();
          const source = new Uint8Array(3000);
          for (const group of groups) {
            kept.clear();
            const views: Uint8Array[] = [];
            for (const bytes of group) {
              source.set(bytes);
              views.push(kept.keep(source.subarray(0, bytes.length)));
              source.fill(0xee); // the input moved: its bytes are rewritten
            }
            for (let i = 0; i < group.length; i++) expect(views[i]).toEqual(group[i]);
          }
        },
      ),
    );
  });

  it("a group after clear() writes over the previous one's memory", () => {
    const kept = new KeptBytes();
    const a = kept.keep(Uint8Array.of(1, 2, 3));
    kept.clear();
    const b = kept.keep(Uint8Array.of(9, 9, 9));
    expect(b.buffer).toBe(a.buffer);
    expect(Array.from(a)).toEqual([9, 9, 9]);
  });
});
