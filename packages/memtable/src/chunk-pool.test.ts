import { invariants, ShaleError, ValueKind } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ChunkPool, MemTable, POISON_BYTE } from "./index.js";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const CHUNK = 1 << 16;

/** A memtable of `n` entries `prefix:i -> value(prefix, i)` (values of 200 bytes). */
function filled(pool: ChunkPool, prefix: string, n: number): MemTable {
  const mem = new MemTable({ chunkPool: pool });
  for (let i = 0; i < n; i++) mem.add(i + 1, ValueKind.Value, key(prefix, i), value(prefix, i));
  return mem;
}
const key = (prefix: string, i: number) => enc(`${prefix}:${String(i).padStart(6, "0")}`);
const value = (prefix: string, i: number) => enc(`${prefix}/${i}/`.padEnd(200, "v"));

describe("ChunkPool", () => {
  it("reuses released chunks only after promote, zeroing node chunks", () => {
    const pool = new ChunkPool({ chunkSize: CHUNK, maxBytes: 16 * CHUNK });
    const a = pool.allocate(CHUNK, true);
    new Int32Array(a).fill(7);
    pool.release([a]);
    expect(pool.hasPending).toBe(true);
    // Pending chunks are not handed out: a view into one may still be valid.
    const b = pool.allocate(CHUNK, true);
    expect(b).not.toBe(a);
    pool.promote();
    expect(pool.hasPending).toBe(false);
    const c = pool.allocate(CHUNK, true);
    expect(c).toBe(a);
    expect(new Int32Array(c).every((w) => w === 0)).toBe(true);
    expect(pool.stats).toMatchObject({ allocated: 2, reused: 1, freeBytes: 0, pendingBytes: 0 });
  });

  it("poisons promoted chunks in the invariants mode", () => {
    expect(invariants).toBe(true); // the test setup turns it on
    const pool = new ChunkPool({ chunkSize: CHUNK, maxBytes: 16 * CHUNK });
    const a = pool.allocate(CHUNK, false);
    new Uint8Array(a).fill(1);
    pool.release([a]);
    expect(new Uint8Array(a)[0]).toBe(1); // untouched while pending
    pool.promote();
    expect(new Uint8Array(a).every((x) => x === POISON_BYTE)).toBe(true);
  });

  it("keeps at most maxBytes; the rest and a retired pool's chunks are spare for any pool", () => {
    const pool = new ChunkPool({ chunkSize: CHUNK, maxBytes: CHUNK });
    const held = [pool.allocate(CHUNK, false), pool.allocate(CHUNK, false)];
    pool.release(held);
    pool.promote();
    expect(pool.stats).toMatchObject({ freeBytes: CHUNK, dropped: 1 });
    // The dropped one is spare (weakly held; `held` keeps it alive here).
    const other = new ChunkPool({ chunkSize: CHUNK, maxBytes: CHUNK });
    expect(held).toContain(other.allocate(CHUNK, false));
    expect(other.stats).toMatchObject({ allocated: 0, spared: 1 });
    pool.retire();
    expect(pool.stats.freeBytes).toBe(0);
    expect(held).toContain(other.allocate(CHUNK, false));
    // Released after retire: spare at once.
    const late = pool.allocate(CHUNK, false);
    pool.release([late]);
    expect(pool.hasPending).toBe(false);
    expect(other.allocate(CHUNK, false)).toBe(late);
  });

  it("ignores chunks of other sizes and checks its options", () => {
    const pool = new ChunkPool({ chunkSize: CHUNK });
    pool.release([new SharedArrayBuffer(CHUNK * 3)]);
    expect(pool.hasPending).toBe(false);
    expect(() => new ChunkPool({ chunkSize: 3 })).toThrow(ShaleError);
    expect(() => new ChunkPool({ maxBytes: -1 })).toThrow(ShaleError);
    expect(() => new ChunkPool({ maxBytes: "1" as unknown as number })).toThrow(TypeError);
    expect(() => new MemTable({ chunkPool: {} as ChunkPool })).toThrow(TypeError);
    expect(() => new MemTable({ chunkPool: pool, arenaChunkSize: CHUNK * 2 })).toThrow(ShaleError);
  });
});

describe("memtable references", () => {
  it("releases the arena with the last reference; a released memtable refuses reads", () => {
    const pool = new ChunkPool({ chunkSize: CHUNK, maxBytes: 64 * CHUNK });
    const mem = filled(pool, "a", 100);
    const it = mem.newIterator();
    expect(mem.references).toBe(2);
    mem.unref();
    expect(pool.hasPending).toBe(false); // the iterator still reads it
    it.seekToFirst();
    expect(dec(it.value())).toBe(dec(value("a", 0)));
    it.close();
    it.close(); // twice is harmless: one reference dropped
    expect(mem.references).toBe(0);
    expect(pool.hasPending).toBe(true);
    expect(() => mem.newIterator()).toThrow(ShaleError);
    expect(() => mem.add(1000, ValueKind.Value, enc("x"), enc("y"))).toThrow(ShaleError);
    expect(() => mem.get(enc("a:000000"))).toThrow(/released memtable/);
    expect(() => it.seekToFirst()).toThrow(ShaleError);
    expect(mem.numEntries).toBe(100); // counters stay
    expect(() => mem.unref()).toThrow(/without a reference/); // one too many (invariants mode)
  });

  it("a view taken before the release keeps its bytes while its iterator is open", () => {
    const pool = new ChunkPool({ chunkSize: CHUNK, maxBytes: 64 * CHUNK });
    const mem = filled(pool, "a", 2000);
    const it = mem.newIterator();
    it.seek(new Uint8Array([...key("a", 1000), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]));
    const view = it.value();
    mem.seal();
    mem.unref(); // the flush is done, say
    pool.promote();
    // Later memtables take chunks from the pool: not this one's.
    const later = [filled(pool, "b", 2000), filled(pool, "c", 2000)];
    expect(dec(view)).toBe(dec(value("a", 1000)));
    let n = 1000;
    for (; it.valid(); it.next()) expect(dec(it.value())).toBe(dec(value("a", n++)));
    expect(n).toBe(2000);
    it.close();
    for (const m of later) m.unref();
  });

  it("recycles: fresh allocations stay bounded over many memtables", () => {
    const pool = new ChunkPool({ chunkSize: CHUNK, maxBytes: 64 * CHUNK });
    let previous: MemTable | undefined;
    for (let round = 0; round < 30; round++) {
      const mem = filled(pool, `r${round}`, 1000);
      mem.seal();
      previous?.unref(); // two memtables alive at a time, as mutable + flushing
      pool.promote();
      previous = mem;
    }
    const perMemtable = pool.stats.reused / 28;
    // About 5 chunks per memtable (200 KB of entries, node chunks): two memtables' worth new.
    expect(pool.stats.allocated).toBeLessThanOrEqual(3 * Math.ceil(perMemtable) + 3);
    expect(pool.stats.reused).toBeGreaterThan(28 * 3);
  });

  it("property: no reused chunk changes bytes an open iterator can see", () => {
    // Commands over a few memtables sharing one pool: fill a new one, open an iterator on a
    // live one (keeping its current value view and the expected bytes), drop the creator's
    // reference, close an iterator, promote. After each, every open iterator's view and
    // position still show what was written.
    type Cmd =
      | { t: "fill"; n: number }
      | { t: "open"; which: number; at: number }
      | { t: "drop"; which: number }
      | { t: "close"; which: number }
      | { t: "promote" };
    const cmd: fc.Arbitrary<Cmd> = fc.oneof(
      {
        arbitrary: fc.record({
          t: fc.constant("fill" as const),
          n: fc.integer({ min: 1, max: 800 }),
        }),
        weight: 3,
      },
      {
        arbitrary: fc.record({ t: fc.constant("open" as const), which: fc.nat(), at: fc.nat() }),
        weight: 3,
      },
      { arbitrary: fc.record({ t: fc.constant("drop" as const), which: fc.nat() }), weight: 3 },
      { arbitrary: fc.record({ t: fc.constant("close" as const), which: fc.nat() }), weight: 1 },
      { arbitrary: fc.record({ t: fc.constant("promote" as const) }), weight: 3 },
    );
    fc.assert(
      fc.property(fc.array(cmd, { minLength: 10, maxLength: 40 }), (cmds) => {
        const pool = new ChunkPool({ chunkSize: CHUNK, maxBytes: 8 * CHUNK });
        const mems: { mem: MemTable; prefix: string; n: number; owned: boolean }[] = [];
        const open: { it: ReturnType<MemTable["newIterator"]>; view: Uint8Array; want: string }[] =
          [];
        let id = 0;
        for (const c of cmds) {
          if (c.t === "fill") {
            const prefix = `m${id++}`;
            mems.push({ mem: filled(pool, prefix, c.n), prefix, n: c.n, owned: true });
          } else if (c.t === "open") {
            const live = mems.filter((m) => m.mem.references > 0);
            if (live.length === 0) continue;
            const m = live[c.which % live.length]!;
            const it = m.mem.newIterator();
            it.seekToFirst();
            for (let i = 0; i < c.at % m.n; i++) it.next();
            open.push({ it, view: it.value(), want: dec(value(m.prefix, c.at % m.n)) });
          } else if (c.t === "drop") {
            const owned = mems.filter((m) => m.owned);
            if (owned.length === 0) continue;
            const m = owned[c.which % owned.length]!;
            m.owned = false;
            m.mem.unref();
          } else if (c.t === "close") {
            if (open.length === 0) continue;
            open.splice(c.which % open.length, 1)[0]!.it.close();
          } else pool.promote();
          for (const o of open) {
            expect(dec(o.view)).toBe(o.want);
            expect(dec(o.it.value())).toBe(o.want);
          }
        }
        for (const o of open) o.it.close();
      }),
      { numRuns: 60 },
    );
  });
});
