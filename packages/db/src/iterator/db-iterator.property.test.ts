/**
 * Model-based property test of the DB iterator: random puts, deletes, single deletes, merges
 * and range deletions with increasing seqs, spread over memtables and tables (newer seqs in
 * newer sources, as in the LSM), read at random snapshots within random bounds, compared
 * with a model that applies the writes one by one. Checks full scans both ways, every seek
 * and seekForPrev, and random walks mixing next/prev with seeks.
 */
import {
  bytewiseComparator,
  type Comparator,
  MAX_SEQ,
  reverseBytewiseComparator,
  toHex,
} from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { maxOperator, stringAppendOperator } from "../core/merge-operator.js";
import { type DBIterator, newDBIterator } from "./index.js";
import {
  b,
  buildSources,
  modelEntries,
  type SourceKind,
  splitBySeq,
  str,
  type Write,
  type WriteKind,
} from "./sources.test-support.js";

/** Short keys sharing prefixes, the empty key, and one longer than the key buffer. */
const KEYS = ["", "a", "aa", "ab", "b", "ba", "c", "d", `d${"x".repeat(80)}`, "e", "zz"];
/** Seek targets and bounds: every key and some between, before and after them. */
const PROBES = [...KEYS, "a\u0000", "a0", "abc", "b\u0000", "bb", "cc", "dz", "f", "zzz", "\u00ff"];

const comparators: Record<string, Comparator> = {
  bytewise: bytewiseComparator,
  reverse: reverseBytewiseComparator,
};
const operators = { max: maxOperator, stringappend: stringAppendOperator() };

/** PROBES in bytewise order: a range deletion ends a few probes after its start. */
const SORTED = [...PROBES].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));

interface RawWrite {
  kind: WriteKind;
  key: string;
  /** For a range deletion: how many probes (in bytewise order) past the start it ends. */
  span: number;
  value: string;
  gap: number;
}

const rawWrite: fc.Arbitrary<RawWrite> = fc.record({
  kind: fc.oneof(
    { weight: 5, arbitrary: fc.constant("put" as const) },
    { weight: 2, arbitrary: fc.constant("del" as const) },
    { weight: 1, arbitrary: fc.constant("sdel" as const) },
    { weight: 4, arbitrary: fc.constant("merge" as const) },
    { weight: 1, arbitrary: fc.constant("rangedel" as const) },
  ),
  key: fc.constantFrom(...KEYS),
  span: fc.integer({ min: 0, max: 6 }),
  value: fc.oneof(
    { weight: 12, arbitrary: fc.string({ maxLength: 4 }) },
    { weight: 1, arbitrary: fc.string({ minLength: 260, maxLength: 300 }) }, // grows buffers
  ),
  gap: fc.integer({ min: 1, max: 3 }),
});

interface Step {
  op: number;
  probe: number;
}

/** A bound, unset three times out of four. */
const bound = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom(...PROBES) },
);

const scenario = fc.record({
  writes: fc.array(rawWrite, { maxLength: 80, size: "large" }),
  cuts: fc.array(fc.nat(), { maxLength: 4 }),
  kinds: fc.array(fc.constantFrom<SourceKind>("mem", "table"), { minLength: 5, maxLength: 5 }),
  snapshot: fc.oneof(fc.nat(), fc.constant(MAX_SEQ)),
  lower: bound,
  upper: bound,
  useMaxSeqs: fc.boolean(),
  comparator: fc.constantFrom("bytewise", "reverse"),
  operator: fc.constantFrom("max" as const, "stringappend" as const),
  walk: fc.array(
    fc.record({ op: fc.integer({ min: 0, max: 7 }), probe: fc.nat(PROBES.length - 1) }),
    { maxLength: 60, size: "large" },
  ),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function toWrites(
  raw: readonly RawWrite[],
  comparator: Comparator,
  prefix: string,
  suffix: string,
): Write[] {
  let seq = 0;
  return raw.map((r) => {
    seq += r.gap;
    const key = b(prefix + r.key + suffix);
    if (r.kind !== "rangedel") return { kind: r.kind, key, value: b(r.value), seq };
    const at = SORTED.indexOf(r.key);
    const last = SORTED[Math.min(at + r.span, SORTED.length - 1)]!;
    let [start, end] = [key, b(prefix + last + suffix)];
    if (comparator.compare(start, end) > 0) [start, end] = [end, start];
    return { kind: "rangedel", key: start, end, value: new Uint8Array(0), seq };
  });
}

function position(it: DBIterator): string {
  return it.valid() ? `${toHex(it.key())}=${str(it.value())}` : "<invalid>";
}

function expected(entries: [Uint8Array, Uint8Array][], i: number): string {
  const e = entries[i];
  return e === undefined ? "<invalid>" : `${toHex(e[0])}=${str(e[1])}`;
}

/**
 * `prefix` goes before every key, probe and bound, `suffix` after: with a long prefix
 * (db_bench's keys share most of their bytes) the forward step hints point past it, and the
 * DB iterator copies and compares only from there; a suffix makes every key 8 bytes or more,
 * so the merging iterator's heap decides most comparisons by its prefix words.
 */
function check(s: Scenario, prefix = "", suffix = ""): void {
  const comparator = comparators[s.comparator]!;
  const operator = operators[s.operator];
  const writes = toWrites(s.writes, comparator, prefix, suffix);
  const maxSeq = writes.length > 0 ? writes[writes.length - 1]!.seq : 0;
  const snapshot = s.snapshot === MAX_SEQ ? MAX_SEQ : s.snapshot % (maxSeq + 2);
  const groups = splitBySeq(
    writes,
    s.cuts.map((c) => c % (maxSeq + 1)),
  );
  const built = buildSources(groups, s.kinds, comparator);
  const lower = s.lower !== undefined ? b(prefix + s.lower + suffix) : undefined;
  const upper = s.upper !== undefined ? b(prefix + s.upper + suffix) : undefined;
  const model = modelEntries(writes, snapshot, comparator, operator, lower, upper);
  const cmp = (x: Uint8Array, y: Uint8Array) => comparator.compare(x, y);

  const it = newDBIterator({
    children: built.children,
    rangeTombstones: built.rangeTombstones,
    comparator,
    mergeOperator: operator,
    snapshotSeq: snapshot,
    ...(lower !== undefined ? { lowerBound: lower } : {}),
    ...(upper !== undefined ? { upperBound: upper } : {}),
    ...(s.useMaxSeqs ? { childMaxSeqs: built.childMaxSeqs } : {}),
  });
  try {
    // Full scans.
    const forward: string[] = [];
    for (it.seekToFirst(); it.valid(); it.next()) forward.push(position(it));
    expect(forward).toEqual(model.map((_, i) => expected(model, i)));
    const backward: string[] = [];
    for (it.seekToLast(); it.valid(); it.prev()) backward.push(position(it));
    expect(backward).toEqual(model.map((_, i) => expected(model, i)).reverse());

    // Every seek and seekForPrev.
    for (const p of PROBES) {
      const t = b(prefix + p + suffix);
      it.seek(t);
      expect(position(it), `seek ${p}`).toBe(
        expected(
          model,
          model.findIndex(([k]) => cmp(k, t) >= 0),
        ),
      );
      it.seekForPrev(t);
      let last = -1;
      model.forEach(([k], i) => {
        if (cmp(k, t) <= 0) last = i;
      });
      expect(position(it), `seekForPrev ${p}`).toBe(expected(model, last));
    }

    // A random walk.
    let pos = -1;
    for (const step of s.walk as Step[]) {
      const t = b(prefix + PROBES[step.probe]! + suffix);
      switch (step.op) {
        case 0:
          it.seek(t);
          pos = model.findIndex(([k]) => cmp(k, t) >= 0);
          break;
        case 1:
          it.seekForPrev(t);
          pos = -1;
          model.forEach(([k], i) => {
            if (cmp(k, t) <= 0) pos = i;
          });
          break;
        case 2:
          it.seekToFirst();
          pos = model.length > 0 ? 0 : -1;
          break;
        case 3:
          it.seekToLast();
          pos = model.length - 1;
          break;
        case 4:
        case 5:
          if (pos < 0) continue;
          it.next();
          pos = pos + 1 < model.length ? pos + 1 : -1;
          break;
        default:
          if (pos < 0) continue;
          it.prev();
          pos -= 1;
      }
      expect(position(it), `walk op ${step.op} ${PROBES[step.probe]}`).toBe(expected(model, pos));
    }
  } finally {
    it.close();
    for (const r of built.readers) r.close();
  }
}

describe("DBIterator against a model", () => {
  it("matches the model on random LSM states, snapshots and bounds", () => {
    fc.assert(
      fc.property(scenario, (s) => check(s)),
      { numRuns: 600 },
    );
  });

  it("matches the model with keys sharing a long prefix, walks weighted to prev", () => {
    // Most walk steps are prev: keys that part late, crossed backwards and forwards.
    const backwards = scenario.map((s) => ({
      ...s,
      walk: s.walk.map((w) => ({ ...w, op: w.op < 2 ? w.op : w.op < 4 ? 7 : w.op })),
    }));
    fc.assert(
      fc.property(backwards, (s) => check(s, "user0000000000")),
      { numRuns: 400 },
    );
  });

  it("matches the model with keys of 8 bytes or more (heap order by prefix words)", () => {
    fc.assert(
      fc.property(scenario, (s) => check(s, "abcd", "\u0001".repeat(8))),
      { numRuns: 400 },
    );
  });

  it("matches the model on memtables only (no step hints: the iterator finds where keys differ)", () => {
    const memOnly = scenario.map((s) => ({ ...s, kinds: Array<SourceKind>(5).fill("mem") }));
    fc.assert(
      fc.property(memOnly, (s) => check(s)),
      { numRuns: 300 },
    );
  });

  it("matches the model with many versions per key (reseeks past MAX_SKIP)", () => {
    const many = scenario.map((s) => ({
      ...s,
      writes: s.writes.map((w, i) => ({ ...w, key: KEYS[(i >> 4) % 3]! })),
    }));
    fc.assert(
      fc.property(
        fc.tuple(many, fc.array(rawWrite, { minLength: 40, maxLength: 80 })),
        ([s, extra]) =>
          check({
            ...s,
            writes: [...s.writes, ...extra.map((w) => ({ ...w, key: KEYS[w.gap % 3]! }))],
          }),
      ),
      { numRuns: 150 },
    );
  });
});
