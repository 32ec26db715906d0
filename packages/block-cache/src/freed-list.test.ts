import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FreedList } from "./freed-list.js";

const slots = (list: FreedList<number>) =>
  (list as unknown as { values: (number | undefined)[] }).values;

describe("FreedList", () => {
  it("is a queue of pushes drained from the front, as an array would be", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.nat(5).map((n) => ({ push: n })),
            fc.nat(6).map((n) => ({ drop: n })),
          ),
          {
            maxLength: 60,
          },
        ),
        (ops) => {
          const list = new FreedList<number>();
          const model: number[] = [];
          let next = 0;
          for (const op of ops) {
            if ("push" in op) {
              for (let i = 0; i < op.push; i++) {
                list.push(next, 1, next * 4096);
                model.push(next++);
              }
            } else {
              const n = Math.min(op.drop, model.length);
              list.dropFirst(n);
              model.splice(0, n);
            }
            expect(list.count).toBe(model.length);
            for (let i = 0; i < model.length; i++) {
              expect(list.valueAt(i)).toBe(model[i]);
              expect(list.idAt(i)).toBe(1);
              expect(list.offsetAt(i)).toBe(model[i]! * 4096);
            }
            // Slots past the count hold nothing: a dropped entry (and its block) is not kept.
            const items = slots(list);
            for (let i = list.count; i < items.length; i++) expect(items[i]).toBeUndefined();
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps its slots when emptied, so the next evictions allocate nothing", () => {
    const list = new FreedList<number>();
    for (let i = 0; i < 3; i++) list.push(i, 1, 0);
    const items = slots(list);
    list.dropFirst(3);
    expect(list.count).toBe(0);
    expect(items.length).toBe(3);
    list.push(7, 1, 0);
    expect(slots(list)).toBe(items);
    expect(items.length).toBe(3);
    expect(list.valueAt(0)).toBe(7);
  });
});
