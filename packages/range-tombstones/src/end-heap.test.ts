import { compareBytes } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EndHeap } from "./end-heap.js";

describe("EndHeap", () => {
  it("pops indices in end order under any interleaving of pushes and pops", () => {
    const arbEnds = fc.array(
      fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3 }).map((a) => Uint8Array.from(a)),
      { maxLength: 60 },
    );
    fc.assert(
      fc.property(arbEnds, fc.array(fc.boolean(), { maxLength: 120 }), (ends, popFirst) => {
        const heap = new EndHeap(ends, compareBytes);
        const model: number[] = [];
        let next = 0;
        const popBoth = () => {
          model.sort((a, b) => compareBytes(ends[a]!, ends[b]!));
          expect(compareBytes(heap.topEnd(), ends[model[0]!]!)).toBe(0);
          expect(compareBytes(ends[heap.top()]!, heap.topEnd())).toBe(0);
          model.splice(model.indexOf(heap.top()), 1);
          heap.pop();
        };
        for (const pop of popFirst) {
          if (pop && model.length > 0) popBoth();
          else if (next < ends.length) {
            heap.push(next);
            model.push(next++);
          }
          expect(heap.size).toBe(model.length);
        }
        while (model.length > 0) popBoth();
        expect(heap.size).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
