import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BIG_CHARGE, EntryTable, IN_CACHE, STATE, STRIDE, WIDE_KEY } from "./entry-table.js";
import { hashKey } from "./key.js";

describe("EntryTable", () => {
  it("matches a Map through adds, removals, slot reuse, growth and wide keys", () => {
    // Few narrow keys and wide ones sharing their low 32 bits: chains with collisions, and
    // wide and narrow keys that must not be confused.
    const halves = [0, 1, 2, 7, 2 ** 32, 2 ** 32 + 1, 2 ** 33 + 2, 2 ** 53 - 1];
    const op = fc.record({
      remove: fc.boolean(),
      id: fc.constantFrom(...halves),
      offset: fc.oneof(fc.constantFrom(...halves), fc.nat(300)),
      charge: fc.oneof(fc.nat(100), fc.constant(2 ** 40 + 3)),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const table = new EntryTable<string>();
        const model = new Map<string, { slot: number; charge: number }>();
        for (const { remove, id, offset, charge } of ops) {
          const key = `${id}/${offset}`;
          const h = hashKey(id, offset);
          const existing = model.get(key);
          expect(table.find(h, id, offset)).toBe(existing?.slot ?? 0);
          if (remove) {
            if (existing === undefined) continue;
            table.unchain(existing.slot);
            table.freeSlot(existing.slot);
            model.delete(key);
          } else if (existing === undefined) {
            const slot = table.add(h, id, offset, key, charge, 0);
            expect(slot).toBeGreaterThan(0);
            model.set(key, { slot, charge });
          }
        }
        expect(table.count).toBe(model.size);
        expect(table.allocated).toBe(model.size);
        const slots = new Set<number>();
        for (const [key, { slot, charge }] of model) {
          const [id, offset] = key.split("/").map(Number) as [number, number];
          slots.add(slot);
          expect(table.find(hashKey(id, offset), id, offset)).toBe(slot);
          expect(table.idOf(slot)).toBe(id);
          expect(table.offsetOf(slot)).toBe(offset);
          expect(table.chargeOf(slot)).toBe(charge);
          expect(table.values[slot]).toBe(key);
          expect(table.hashOf(slot)).toBe(hashKey(id, offset));
          const st = table.meta[slot * STRIDE + STATE]!;
          expect(st & IN_CACHE).toBe(IN_CACHE);
          expect((st & WIDE_KEY) !== 0).toBe(id >= 2 ** 32 || offset >= 2 ** 32);
          expect((st & BIG_CHARGE) !== 0).toBe(charge >= 2 ** 32);
        }
        expect(slots.size).toBe(model.size); // no slot holds two entries
        // The side Maps hold exactly the live wide keys and big charges.
        let wide = 0;
        let big = 0;
        for (const [key, { charge }] of model) {
          const [id, offset] = key.split("/").map(Number) as [number, number];
          if (id >= 2 ** 32 || offset >= 2 ** 32) wide++;
          if (charge >= 2 ** 32) big++;
        }
        expect(table.wideIds?.size ?? 0).toBe(wide);
        expect(table.bigCharges?.size ?? 0).toBe(big);
      }),
      { numRuns: 300 },
    );
  });

  it("reuses freed slots before growing", () => {
    const table = new EntryTable<number>();
    const first = table.add(hashKey(1, 0), 1, 0, 0, 1, 0);
    table.unchain(first);
    table.freeSlot(first);
    expect(table.add(hashKey(1, 4096), 1, 4096, 0, 1, 0)).toBe(first);
    const meta = table.meta;
    for (let i = 1; i < 15; i++) table.add(hashKey(2, i), 2, i, 0, 1, 0);
    expect(table.meta).toBe(meta); // 15 entries fit the first 16 slots (slot 0 is reserved)
    table.add(hashKey(3, 0), 3, 0, 0, 1, 0);
    expect(table.meta).not.toBe(meta);
    expect(table.meta.length).toBe(24 * STRIDE); // by half
    for (let i = 1; i < 15; i++) expect(table.find(hashKey(2, i), 2, i)).toBeGreaterThan(0);
  });
});
