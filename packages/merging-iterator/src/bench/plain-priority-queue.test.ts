import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PlainPriorityQueue } from "./plain-priority-queue.js";

// The benchmark's "before" must be a correct priority queue, or its figures mean nothing.
describe("PlainPriorityQueue (benchmark baseline)", () => {
  it("matches a sorted-array model under random pushes and pops", () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }), {
          maxLength: 300,
        }),
        (ops) => {
          const pq = new PlainPriorityQueue<number>((a, b) => a > b);
          const model: number[] = [];
          for (const op of ops) {
            if (op === undefined) {
              if (model.length === 0) continue;
              pq.pop();
              model.shift();
            } else {
              pq.push(op);
              model.push(op);
              model.sort((a, b) => a - b);
            }
            expect(pq.size).toBe(model.length);
            if (model.length > 0) expect(pq.top()).toBe(model[0]);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
