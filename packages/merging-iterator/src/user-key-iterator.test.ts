/**
 * UserKeyIterator against a brute-force model: random versions (values, deletions, merge
 * operands) spread over several sources merged by a MergingIterator, random range
 * tombstones, snapshots and bounds; forward, reverse, seeks and direction changes.
 */
import {
  ArrayIterator,
  bytewiseComparator,
  compareBytes,
  InternalKeyComparator,
  makeInternalKey,
  reverseBytewiseComparator,
  ShaleError,
  toBytes,
  ValueKind,
} from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { newMergingIterator } from "./merging-iterator.js";
import {
  type MergeOperator,
  type RangeTombstoneSource,
  UserKeyIterator,
} from "./user-key-iterator.js";

const dec = new TextDecoder();
const icmp = new InternalKeyComparator(bytewiseComparator);
const cmp = (a: Uint8Array, b: Uint8Array) => icmp.compare(a, b);

interface Version {
  key: string;
  seq: number;
  kind: number;
  value: string;
}
interface Tombstone {
  start: string;
  end: string;
  seq: number;
}

/** Concatenates operands onto the base with "," (RocksDB's stringappend). */
const append: MergeOperator = {
  name: "append",
  fullMerge: (_k, existing, operands) =>
    toBytes(
      [...(existing ? [dec.decode(existing)] : []), ...operands.map((o) => dec.decode(o))].join(
        ",",
      ),
    ),
};

class TombstoneList implements RangeTombstoneSource {
  constructor(private readonly list: readonly Tombstone[]) {}
  maxCoveringSeq(userKey: Uint8Array, snapshot: number): number {
    const k = dec.decode(userKey);
    let best = 0;
    for (const t of this.list)
      if (t.seq <= snapshot && t.start <= k && k < t.end && t.seq > best) best = t.seq;
    return best;
  }
}

/** The live keys at `snapshot`, in order, with their merged values. */
function model(versions: readonly Version[], tombstones: readonly Tombstone[], snapshot: number) {
  const live: [string, string][] = [];
  const keys = [...new Set(versions.map((v) => v.key))].sort();
  const list = new TombstoneList(tombstones);
  for (const key of keys) {
    const covering = list.maxCoveringSeq(toBytes(key), snapshot);
    const mine = versions
      .filter((v) => v.key === key && v.seq <= snapshot)
      .sort((a, b) => b.seq - a.seq);
    const operands: string[] = [];
    let result: string | undefined;
    let settled = false;
    for (const v of mine) {
      if (v.seq < covering || v.kind === ValueKind.Deletion) {
        settled = true;
        break;
      }
      if (v.kind === ValueKind.Merge) operands.push(v.value);
      else {
        result = [v.value, ...operands.reverse()].join(",");
        settled = true;
        operands.length = 0;
        break;
      }
    }
    if (result !== undefined) live.push([key, result]);
    else if (operands.length > 0) live.push([key, operands.reverse().join(",")]);
    void settled;
  }
  return live;
}

function build(
  versions: readonly Version[],
  sources: number,
  tombstones: readonly Tombstone[],
  options = {},
) {
  const parts: Version[][] = Array.from({ length: sources }, () => []);
  for (let i = 0; i < versions.length; i++) parts[i % sources]!.push(versions[i]!);
  const children = parts.map((part) => {
    const sorted = part
      .map((v) => ({ k: makeInternalKey(toBytes(v.key), v.seq, v.kind), v: toBytes(v.value) }))
      .sort((a, b) => cmp(a.k, b.k));
    return new ArrayIterator(
      sorted.map((e) => e.k),
      sorted.map((e) => e.v),
      cmp,
    );
  });
  return new UserKeyIterator(newMergingIterator(children, cmp), {
    mergeOperator: append,
    rangeTombstones: [new TombstoneList(tombstones)],
    ...options,
  });
}

const key = fc.constantFrom("a", "b", "c", "d", "e", "f");
const versionsArb = fc
  .array(
    fc.record({
      key,
      kind: fc.constantFrom(ValueKind.Value, ValueKind.Deletion, ValueKind.Merge),
      value: fc.string({ maxLength: 3 }),
    }),
    {
      maxLength: 30,
    },
  )
  .map((vs) => vs.map((v, i) => ({ ...v, seq: i + 1 }))); // unique seqs
const tombstonesArb = fc.array(
  fc
    .record({
      start: key,
      end: fc.constantFrom("b", "c", "e", "g"),
      seq: fc.integer({ min: 1, max: 31 }),
    })
    .filter((t) => t.start < t.end),
  { maxLength: 3 },
);

const entries_ = (it: UserKeyIterator, reverse = false) => entries(it, reverse);
const entries = (it: UserKeyIterator, reverse = false) => {
  const out: [string, string][] = [];
  if (reverse)
    for (it.seekToLast(); it.valid(); it.prev())
      out.push([dec.decode(it.key()), dec.decode(it.value())]);
  else
    for (it.seekToFirst(); it.valid(); it.next())
      out.push([dec.decode(it.key()), dec.decode(it.value())]);
  return out;
};

describe("UserKeyIterator", () => {
  it("the worked example of the file header", () => {
    const versions: Version[] = [
      { key: "a", seq: 9, kind: ValueKind.Value, value: "x" },
      { key: "a", seq: 7, kind: ValueKind.Value, value: "1" },
      { key: "b", seq: 6, kind: ValueKind.Deletion, value: "" },
      { key: "b", seq: 2, kind: ValueKind.Value, value: "2" },
      { key: "c", seq: 5, kind: ValueKind.Merge, value: "+1" },
      { key: "c", seq: 3, kind: ValueKind.Value, value: "1" },
      { key: "d", seq: 4, kind: ValueKind.Value, value: "4" },
    ];
    const it = build(versions, 2, [{ start: "d", end: "e", seq: 6 }], { snapshotSeq: 8 });
    expect(entries(it)).toEqual([
      ["a", "1"],
      ["c", "1,+1"],
    ]);
    expect(entries(it, true)).toEqual([
      ["c", "1,+1"],
      ["a", "1"],
    ]);
    it.close();
  });

  it("matches the model forward, backward and at every seek", () => {
    fc.assert(
      fc.property(
        versionsArb,
        tombstonesArb,
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 1, max: 3 }),
        (versions, tombstones, snapshot, sources) => {
          const expected = model(versions, tombstones, snapshot);
          const it = build(versions, sources, tombstones, { snapshotSeq: snapshot });
          expect(entries(it)).toEqual(expected);
          expect(entries(it, true)).toEqual([...expected].reverse());
          for (const target of ["", "a", "b", "bb", "c", "d", "e", "f", "g"]) {
            it.seek(toBytes(target));
            const ge = expected.find(([k]) => k >= target);
            expect(it.valid() ? [dec.decode(it.key()), dec.decode(it.value())] : undefined).toEqual(
              ge,
            );
            it.seekForPrev(toBytes(target));
            const le = [...expected].reverse().find(([k]) => k <= target);
            expect(it.valid() ? [dec.decode(it.key()), dec.decode(it.value())] : undefined).toEqual(
              le,
            );
            if (it.valid()) {
              // direction change: next after a reverse positioning
              it.next();
              const after = expected.find(([k]) => k > le![0]);
              expect(it.valid() ? dec.decode(it.key()) : undefined).toEqual(after?.[0]);
            }
          }
          it.close();
        },
      ),
      { numRuns: 300 },
    );
  });

  it("respects lowerBound and upperBound", () => {
    fc.assert(
      fc.property(versionsArb, tombstonesArb, key, key, (versions, tombstones, lo, hi) => {
        const expected = model(versions, tombstones, 100).filter(([k]) => k >= lo && k < hi);
        const it = build(versions, 2, tombstones, {
          lowerBound: toBytes(lo),
          upperBound: toBytes(hi),
        });
        expect(entries(it)).toEqual(expected);
        expect(entries(it, true)).toEqual([...expected].reverse());
        it.seek(toBytes(""));
        expect(it.valid() ? dec.decode(it.key()) : undefined).toEqual(expected[0]?.[0]);
        it.seekForPrev(toBytes("z"));
        expect(it.valid() ? dec.decode(it.key()) : undefined).toEqual(expected.at(-1)?.[0]);
        it.close();
      }),
      { numRuns: 200 },
    );
  });

  it("follows a custom comparator (reverse bytewise)", () => {
    const rcmp = new InternalKeyComparator(reverseBytewiseComparator);
    const c = (a: Uint8Array, b: Uint8Array) => rcmp.compare(a, b);
    const entries = [
      ["a", 1, ValueKind.Value, "1"],
      ["b", 3, ValueKind.Deletion, ""],
      ["b", 2, ValueKind.Value, "2"],
      ["c", 4, ValueKind.Value, "3"],
    ] as const;
    const ikeys = entries.map(([k, seq, kind]) => makeInternalKey(toBytes(k), seq, kind));
    const order = ikeys.map((_, i) => i).sort((x, y) => c(ikeys[x]!, ikeys[y]!));
    const inner = new ArrayIterator(
      order.map((i) => ikeys[i]!),
      order.map((i) => toBytes(entries[i]![3])),
      c,
    );
    const it = new UserKeyIterator(inner, { comparator: reverseBytewiseComparator });
    expect(entries_(it)).toEqual([
      ["c", "3"],
      ["a", "1"],
    ]);
    expect(entries_(it, true)).toEqual([
      ["a", "1"],
      ["c", "3"],
    ]);
    it.seek(toBytes("b")); // the first key >= b in reverse order: a
    expect(dec.decode(it.key())).toBe("a");
    it.close();
  });

  it("iterates with for...of (copies) and closes at the end", () => {
    const it = build([{ key: "a", seq: 1, kind: ValueKind.Value, value: "1" }], 1, []);
    const got = [...it].map(([k, v]) => `${dec.decode(k)}=${dec.decode(v)}`);
    expect(got).toEqual(["a=1"]);
    expect(it.valid()).toBe(false);
    expect(() => it.seekToFirst()).toThrow(/closed/);
  });

  it("reports misuse and failed merges clearly", () => {
    const merge: Version[] = [{ key: "a", seq: 1, kind: ValueKind.Merge, value: "1" }];
    const noOperator = new UserKeyIterator(build(merge, 1, [])["inner" as never], {});
    expect(() => noOperator.seekToFirst()).toThrow(/without a merge operator/);
    const failing = build(merge, 1, [], {
      mergeOperator: { name: "fails", fullMerge: () => undefined },
    });
    try {
      failing.seekToFirst();
      expect.unreachable();
    } catch (e) {
      expect(ShaleError.isInstance(e) && e.code).toBe("Corruption");
    }
    const it = build([], 1, []);
    it.seekToFirst();
    expect(() => it.key()).toThrow(/not valid/);
    expect(() => it.next()).toThrow(/not valid/);
    expect(() => it.seek("a" as never)).toThrow(TypeError);
    expect(() => new UserKeyIterator({} as never)).toThrow(TypeError);
    expect(() => build([], 1, [], { snapshotSeq: -1 })).toThrow(/snapshotSeq/);
    expect(() => build([], 1, [], { rangeTombstones: [{}] })).toThrow(TypeError);
    void compareBytes;
  });
});
