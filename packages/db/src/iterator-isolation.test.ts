/**
 * Property: an iterator reads the database as of its creation. Iterators are opened (some
 * positioned at once) at random points of a random sequence of puts, deletes, range
 * deletions (often more than the memtable scans linearly, so its cached fragmented list is
 * built and rebuilt), flushes and memtable switches; at the end every one of them, scanned
 * forward and backward, shows exactly the model's state at its creation, and a new iterator
 * the latest state.
 */
import { compareBytes, MemoryFileSystem } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DB } from "./db.js";
import type { DBIterator } from "./iterator/index.js";

const KEYS = ["a", "b", "c", "d", "e", "f", "g", "h"];
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

type Op =
  | { t: "put"; k: string; v: string }
  | { t: "del"; k: string }
  | { t: "range"; s: string; e: string }
  | { t: "open"; seek: boolean }
  | { t: "flush" };

const key = fc.constantFrom(...KEYS);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ t: fc.constant("put" as const), k: key, v: fc.string() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("del" as const), k: key }) },
  {
    weight: 3,
    arbitrary: fc.tuple(key, key).map(([a, b]) => {
      const [s, e] = a <= b ? [a, b] : [b, a];
      return { t: "range" as const, s, e };
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("open" as const), seek: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ t: "flush" as const }) },
);

function sorted(state: Map<string, string>): [string, string][] {
  return [...state.entries()].sort(([a], [b]) => compareBytes(enc(a), enc(b)));
}

function scan(it: DBIterator, backward: boolean): [string, string][] {
  const out: [string, string][] = [];
  if (backward) {
    for (it.seekToLast(); it.valid(); it.prev()) out.push([dec(it.key()), dec(it.value())]);
    return out.reverse();
  }
  for (it.seekToFirst(); it.valid(); it.next()) out.push([dec(it.key()), dec(it.value())]);
  return out;
}

describe("iterator isolation", () => {
  it("an iterator sees the state at its creation, whatever is written after", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 60 }),
        fc.boolean(),
        async (ops, smallMemtable) => {
          // With the smallest memtable and 3 KB values, it switches by itself every ~20 puts.
          const db = await DB.open("/db", {
            fs: new MemoryFileSystem(),
            ...(smallMemtable ? { writeBufferSize: 64 * 1024 } : {}),
          });
          const state = new Map<string, string>();
          const open: { it: DBIterator; expected: [string, string][] }[] = [];
          try {
            for (const o of ops) {
              switch (o.t) {
                case "put": {
                  const v = o.v.padEnd(3000, ".");
                  db.put(o.k, v);
                  state.set(o.k, v);
                  break;
                }
                case "del":
                  db.delete(o.k);
                  state.delete(o.k);
                  break;
                case "range":
                  db.deleteRange(o.s, o.e);
                  for (const k of KEYS) if (k >= o.s && k < o.e) state.delete(k);
                  break;
                case "open": {
                  const it = db.iterator();
                  if (o.seek) it.seekToFirst();
                  open.push({ it, expected: sorted(state) });
                  break;
                }
                case "flush":
                  await db.flush();
                  break;
              }
            }
            for (const { it, expected } of open) {
              expect(scan(it, false)).toEqual(expected);
              expect(scan(it, true)).toEqual(expected);
            }
            const latest = db.iterator();
            expect(scan(latest, false)).toEqual(sorted(state));
            latest.close();
          } finally {
            for (const { it } of open) it.close();
            await db.close();
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
