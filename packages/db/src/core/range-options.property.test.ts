/**
 * Level's range options against a sorted-array model: random puts, deletes, range deletions,
 * flushes, snapshots and clears on a database (bytewise and reverse-bytewise comparators),
 * then iterators with one random option per side (`gt`/`gte`/`lowerBound`,
 * `lt`/`lte`/`upperBound`, or none), a random `limit` and `reverse`, at every snapshot
 * taken and at the latest state — for-of forward and reverse, and the cursor walking
 * forward from seekToFirst and backward from seekToLast, and seek / seekForPrev to every
 * probe key. `clear(range)` is checked against
 * the model too (the model deletes exactly the keys in range).
 */
import {
  bytewiseComparator,
  type Comparator,
  MemoryFileSystem,
  reverseBytewiseComparator,
} from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import type { IteratorOptions, RangeOptions } from "./call-options.js";

const KEYS = ["", "a", "aa", "ab", "b", "ba", "bb", "c", "d", "dd", "e", "zz"];
/** Bounds: the keys and some between and around them. */
const PROBES = [...KEYS, "a\u0000", "abc", "b\u0000", "cc", "f", "zzz"];

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

type Op =
  | { kind: "put"; key: string; value: string }
  | { kind: "del"; key: string }
  | { kind: "rangedel"; start: string; end: string }
  | { kind: "flush" }
  | { kind: "snapshot" }
  | { kind: "clear"; range: RangeSpec };

interface RangeSpec {
  lower: "gt" | "gte" | "lowerBound" | undefined;
  lowerKey: string;
  upper: "lt" | "lte" | "upperBound" | undefined;
  upperKey: string;
}

const rangeSpec: fc.Arbitrary<RangeSpec> = fc.record({
  lower: fc.constantFrom("gt", "gte", "lowerBound", undefined),
  lowerKey: fc.constantFrom(...PROBES),
  upper: fc.constantFrom("lt", "lte", "upperBound", undefined),
  upperKey: fc.constantFrom(...PROBES),
});

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("put" as const),
      key: fc.constantFrom(...KEYS),
      value: fc.string({ maxLength: 6 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("del" as const), key: fc.constantFrom(...KEYS) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("rangedel" as const),
      start: fc.constantFrom(...PROBES),
      end: fc.constantFrom(...PROBES),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "flush" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "snapshot" as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("clear" as const), range: rangeSpec }) },
);

interface Query {
  range: RangeSpec;
  /** undefined: no limit; -1: Level's "no limit". */
  limit: number | undefined;
  reverse: boolean;
}

const query: fc.Arbitrary<Query> = fc.record({
  range: rangeSpec,
  limit: fc.oneof(fc.constant(undefined), fc.constant(-1), fc.integer({ min: 0, max: 8 })),
  reverse: fc.boolean(),
});

function rangeOptions(r: RangeSpec): RangeOptions {
  const o: RangeOptions = {};
  if (r.lower !== undefined) o[r.lower] = r.lowerKey;
  if (r.upper !== undefined) o[r.upper] = r.upperKey;
  return o;
}

/** The model: `cmp` order over string keys. */
function inRange(cmp: Comparator, key: string, r: RangeSpec): boolean {
  const k = enc(key);
  if (r.lower !== undefined) {
    const c = cmp.compare(k, enc(r.lowerKey));
    if (r.lower === "gt" ? c <= 0 : c < 0) return false;
  }
  if (r.upper !== undefined) {
    const c = cmp.compare(k, enc(r.upperKey));
    if (r.upper === "lte" ? c > 0 : c >= 0) return false;
  }
  return true;
}

function sortedEntries(cmp: Comparator, state: Map<string, string>): [string, string][] {
  return [...state].sort((x, y) => cmp.compare(enc(x[0]), enc(y[0])));
}

function expected(cmp: Comparator, state: Map<string, string>, q: Query): [string, string][] {
  let rows = sortedEntries(cmp, state).filter(([k]) => inRange(cmp, k, q.range));
  if (q.reverse) rows = rows.reverse();
  const limit = q.limit === undefined || q.limit < 0 ? rows.length : q.limit;
  return rows.slice(0, limit);
}

async function check(cmp: Comparator, ops: Op[], queries: Query[]): Promise<void> {
  const db = await DB.open("/db", { fs: new MemoryFileSystem(), comparator: cmp });
  try {
    const state = new Map<string, string>();
    const snapshots: { snapshot: ReturnType<DB["snapshot"]>; state: Map<string, string> }[] = [];
    for (const o of ops) {
      switch (o.kind) {
        case "put":
          db.put(o.key, o.value);
          state.set(o.key, o.value);
          break;
        case "del":
          db.delete(o.key);
          state.delete(o.key);
          break;
        case "rangedel": {
          if (cmp.compare(enc(o.start), enc(o.end)) > 0) break;
          db.deleteRange(o.start, o.end);
          const r: RangeSpec = { lower: "gte", lowerKey: o.start, upper: "lt", upperKey: o.end };
          for (const k of [...state.keys()]) if (inRange(cmp, k, r)) state.delete(k);
          break;
        }
        case "flush":
          await db.flush();
          break;
        case "snapshot":
          snapshots.push({ snapshot: db.snapshot(), state: new Map(state) });
          break;
        case "clear":
          db.clear(rangeOptions(o.range));
          for (const k of [...state.keys()]) if (inRange(cmp, k, o.range)) state.delete(k);
          break;
      }
    }
    const views = [...snapshots, { snapshot: undefined, state }];
    for (const q of queries) {
      for (const v of views) {
        const options: IteratorOptions = { ...rangeOptions(q.range), reverse: q.reverse };
        if (q.limit !== undefined) options.limit = q.limit;
        if (v.snapshot !== undefined) options.snapshot = v.snapshot;
        const want = expected(cmp, v.state, q);
        const got = [...db.iterator(options)].map(([k, val]) => [dec(k), dec(val)]);
        expect(got, JSON.stringify(q)).toEqual(want);
        // The cursor, in the query's direction: the same entries, and the same limit.
        const it = db.iterator(options);
        const walked: [string, string][] = [];
        if (q.reverse)
          for (it.seekToLast(); it.valid(); it.prev())
            walked.push([dec(it.key()), dec(it.value())]);
        else
          for (it.seekToFirst(); it.valid(); it.next())
            walked.push([dec(it.key()), dec(it.value())]);
        it.close();
        expect(walked, `cursor ${JSON.stringify(q)}`).toEqual(want);
        // seek / seekForPrev to every probe (no limit): the first key >= it in range, the
        // last key <= it in range.
        const inOrder = expected(cmp, v.state, { ...q, limit: undefined, reverse: false });
        const { limit: _limit, ...unlimited } = options;
        const seeker = db.iterator(unlimited);
        for (const probe of PROBES) {
          const p = enc(probe);
          seeker.seek(probe);
          const ge = inOrder.find(([k]) => cmp.compare(enc(k), p) >= 0);
          expect(seeker.valid() ? dec(seeker.key()) : undefined, `seek ${probe}`).toBe(ge?.[0]);
          seeker.seekForPrev(probe);
          const le = [...inOrder].reverse().find(([k]) => cmp.compare(enc(k), p) <= 0);
          expect(seeker.valid() ? dec(seeker.key()) : undefined, `seekForPrev ${probe}`).toBe(
            le?.[0],
          );
        }
        seeker.close();
      }
    }
    for (const s of snapshots) s.snapshot.release();
  } finally {
    await db.close();
  }
}

describe("range options against a sorted-array model", () => {
  for (const [name, cmp] of [
    ["bytewise", bytewiseComparator],
    ["reverse bytewise", reverseBytewiseComparator],
  ] as const) {
    it(`${name}: gt/gte/lt/lte/bounds, limit, reverse, at snapshots; clear(range)`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(op, { minLength: 1, maxLength: 40 }),
          fc.array(query, { minLength: 1, maxLength: 6 }),
          (ops, queries) => check(cmp, ops, queries),
        ),
        { numRuns: 150 },
      );
    });
  }

  it("a lower bound above the upper bound is an empty range, not an error", async () => {
    await check(
      bytewiseComparator,
      [
        { kind: "put", key: "b", value: "1" },
        { kind: "put", key: "c", value: "2" },
      ],
      [
        {
          range: { lower: "gt", lowerKey: "c", upper: "lt", upperKey: "b" },
          limit: undefined,
          reverse: false,
        },
        {
          range: { lower: "gte", lowerKey: "b", upper: "lt", upperKey: "b" },
          limit: undefined,
          reverse: true,
        },
        {
          range: { lower: "gt", lowerKey: "b", upper: "lte", upperKey: "b" },
          limit: 3,
          reverse: false,
        },
      ],
    );
  });
});
