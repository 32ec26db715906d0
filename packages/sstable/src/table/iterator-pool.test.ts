/**
 * The table iterators' parts pool (table-iterator.ts): an iterator built from parts a closed
 * one gave back behaves as a fresh one (no position, block, key or readahead state carries
 * over), the closed one stays closed, and a key view it handed out shows garbage in
 * invariants mode (the tests' default).
 */
import { bytewiseComparator, type InternalIterator, ValueKind } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildTable, icmp, ikey, openTable } from "./table.test-support.js";
import { pooledTableIteratorParts } from "./table-iterator.js";

function table(n: number, tag: string, blockSize: number) {
  const keys: Uint8Array[] = [];
  const values: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    keys.push(ikey(`k${String(i * 3).padStart(5, "0")}`, 1, ValueKind.Value));
    values.push(new TextEncoder().encode(`${tag}${i}`));
  }
  return { keys, values, reader: openTable(buildTable(keys, values, { blockSize })) };
}

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** Every entry from the iterator's current position on (forwards). */
function rest(it: InternalIterator): string[] {
  const out: string[] = [];
  for (; it.valid(); it.next()) out.push(`${hex(it.key())}=${hex(it.value())}`);
  return out;
}

describe("table iterator parts pool", () => {
  const a = table(300, "a", 256);
  const b = table(120, "b", 128);
  const tables = [a, b];

  it("a closed iterator gives its parts back, and stays closed when they are reused", () => {
    const first = a.reader.newIterator();
    first.seek(a.keys[150]!);
    const keyView = first.key();
    const kept = hex(keyView);
    const before = pooledTableIteratorParts();
    first.close();
    expect(pooledTableIteratorParts()).toBe(before + 1);
    // Invariants mode: the key buffer given back is overwritten.
    expect(hex(keyView)).not.toBe(kept);
    expect(keyView.every((x) => x === 0xcc)).toBe(true);

    const second = b.reader.newIterator();
    expect(pooledTableIteratorParts()).toBe(before);
    expect(second.valid()).toBe(false);
    second.seekToFirst();
    expect(hex(second.key())).toBe(hex(b.keys[0]!));
    expect(first.valid()).toBe(false);
    expect(() => first.seek(a.keys[0]!)).toThrow(/closed/);
    expect(() => first.key()).toThrow(RangeError);
    expect(() => first.next()).toThrow(RangeError);
    second.close();
  });

  it("parts of another comparator are not taken", () => {
    const reversed = {
      name: "test.Reverse",
      compare: (x: Uint8Array, y: Uint8Array) => -bytewiseComparator.compare(x, y),
      findShortestSeparator: (x: Uint8Array) => x,
      findShortSuccessor: (x: Uint8Array) => x,
    };
    const keys = [ikey("z", 1, ValueKind.Value), ikey("a", 1, ValueKind.Value)];
    const values = [new Uint8Array([1]), new Uint8Array([2])];
    const r = openTable(buildTable(keys, values, { comparator: reversed }), {
      comparator: reversed,
    });
    a.reader.newIterator().close(); // parts of the bytewise order on top of the pool
    const it = r.newIterator();
    it.seek(ikey("m", 100, ValueKind.Value));
    expect(hex(it.key())).toBe(hex(keys[1]!));
    it.close();
  });

  it("iterators opened and closed in any order read what a fresh iterator reads", () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("open" as const), table: fc.integer({ min: 0, max: 1 }) }),
      fc.record({ kind: fc.constant("close" as const), slot: fc.nat(7) }),
      fc.record({
        kind: fc.constant("seek" as const),
        slot: fc.nat(7),
        target: fc.nat(1000),
        back: fc.boolean(),
      }),
      fc.record({ kind: fc.constant("step" as const), slot: fc.nat(7), back: fc.boolean() }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        type Open = { it: InternalIterator; t: (typeof tables)[number]; pos: number };
        const open: Open[] = [];
        for (const o of ops) {
          if (o.kind === "open") {
            const t = tables[o.table]!;
            const it = t.reader.newIterator();
            expect(it.valid()).toBe(false);
            open.push({ it, t, pos: -1 });
            continue;
          }
          const s = open[o.slot % Math.max(1, open.length)];
          if (s === undefined) continue;
          const n = s.t.keys.length;
          if (o.kind === "close") {
            s.it.close();
            open.splice(open.indexOf(s), 1);
            expect(s.it.valid()).toBe(false);
            continue;
          }
          if (o.kind === "seek") {
            const target = ikey(`k${String(o.target).padStart(5, "0")}`, 1, ValueKind.Value);
            if (o.back) {
              s.it.seekForPrev(target);
              let p = -1;
              for (let i = 0; i < n; i++) if (icmp.compare(s.t.keys[i]!, target) <= 0) p = i;
              s.pos = p;
            } else {
              s.it.seek(target);
              let p = n;
              for (let i = n - 1; i >= 0; i--) if (icmp.compare(s.t.keys[i]!, target) >= 0) p = i;
              s.pos = p < n ? p : -1;
            }
          } else if (s.pos >= 0) {
            if (o.back) s.it.prev();
            else s.it.next();
            s.pos += o.back ? -1 : 1;
            if (s.pos >= n) s.pos = -1;
          }
          expect(s.it.valid()).toBe(s.pos >= 0);
          if (s.pos >= 0) {
            expect(hex(s.it.key())).toBe(hex(s.t.keys[s.pos]!));
            expect(hex(s.it.value())).toBe(hex(s.t.values[s.pos]!));
          }
        }
        for (const s of open) {
          s.it.seekToFirst();
          expect(rest(s.it)).toEqual(s.t.keys.map((k, i) => `${hex(k)}=${hex(s.t.values[i]!)}`));
          s.it.close();
        }
      }),
      { numRuns: 200 },
    );
  });
});
