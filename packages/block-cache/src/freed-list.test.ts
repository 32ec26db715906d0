import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CacheEntry, type EntryShard } from "./entry.js";
import { FreedList } from "./freed-list.js";

const shard = {} as EntryShard<number>;
const entry = (n: number) => new CacheEntry<number>(shard, 1, n, 0, n, 1, false);
const slots = (list: FreedList<number>) =>
  (list as unknown as { items: (CacheEntry<number> | undefined)[] }).items;

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
                list.push(entry(next));
                model.push(next++);
              }
            } else {
              const n = Math.min(op.drop, model.length);
              list.dropFirst(n);
              model.splice(0, n);
            }
            expect(list.count).toBe(model.length);
            for (let i = 0; i < model.length; i++) expect(list.at(i).value).toBe(model[i]);
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
    for (let i = 0; i < 3; i++) list.push(entry(i));
    const items = slots(list);
    list.dropFirst(3);
    expect(list.count).toBe(0);
    expect(items.length).toBe(3);
    list.push(entry(7));
    expect(slots(list)).toBe(items);
    expect(items.length).toBe(3);
    expect(list.at(0).value).toBe(7);
  });
});
