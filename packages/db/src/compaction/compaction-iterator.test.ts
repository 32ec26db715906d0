/**
 * CompactionIterator against a model: for random entries, snapshots, range tombstones, merge
 * operators and older data below the output level, reading the compaction's output (plus
 * the surviving tombstones, plus the data below) at every snapshot and at the latest state
 * gives the same answer as reading its input — and what no reader needs is gone.
 */
import {
  ArrayIterator,
  bytewiseComparator,
  compareBytes,
  formatInternalKey,
  InternalKeyComparator,
  MAX_SEQ,
  makeInternalKey,
  type RangeTombstone,
  ShaleError,
  ValueKind,
} from "@shale/base";
import {
  dataDrivenTests,
  internalKeyText,
  keyText,
  parseInternalKeyText,
  parseKeyText,
} from "@shale/base/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeUint64,
  encodeUint64,
  type MergeOperator,
  maxOperator,
  stringAppendOperator,
  uint64AddOperator,
} from "../core/merge-operator.js";
import type { KeyRange } from "../version/key-range.js";
import { BottommostChecker } from "./bottommost.js";
import { CompactionIterator } from "./compaction-iterator.js";
import { compactTombstones } from "./compaction-job.js";

const icmp = new InternalKeyComparator(bytewiseComparator);
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

interface Entry {
  key: string;
  seq: number;
  kind: number;
  value: string;
}

/** Appends with "+" and has no partialMerge: order-sensitive, operands must stay apart. */
const appendNoPartial: MergeOperator = {
  name: "append-no-partial",
  fullMerge(_k, base, ops) {
    const parts = base === undefined ? [] : [dec(base)];
    for (const o of ops) parts.push(dec(o));
    return enc(parts.join("+"));
  },
};

const OPERATORS: Record<string, MergeOperator> = {
  max: maxOperator,
  stringappend: stringAppendOperator(),
  appendNoPartial,
};

/** A get at `snapshot` over point entries and tombstones (the db's read semantics). */
function modelGet(
  entries: readonly Entry[],
  tombstones: readonly RangeTombstone[],
  key: string,
  snapshot: number,
  op: MergeOperator,
): string | undefined {
  const k = enc(key);
  let cover = 0;
  for (const t of tombstones) {
    if (
      t.seq <= snapshot &&
      t.seq > cover &&
      compareBytes(t.start, k) <= 0 &&
      compareBytes(k, t.end) < 0
    )
      cover = t.seq;
  }
  const mine = entries
    .filter((e) => e.key === key && e.seq <= snapshot)
    .sort((a, b) => b.seq - a.seq);
  const operands: Uint8Array[] = [];
  let base: Uint8Array | undefined;
  for (const e of mine) {
    if (e.seq < cover) break;
    if (e.kind === ValueKind.Merge) {
      operands.push(enc(e.value));
      continue;
    }
    if (e.kind === ValueKind.Value) base = enc(e.value);
    break;
  }
  if (operands.length === 0) return base === undefined ? undefined : dec(base);
  return dec(op.fullMerge(k, base, operands.reverse())!);
}

function sortEntries(entries: Entry[]): Entry[] {
  return entries.sort((a, b) =>
    icmp.compare(
      makeInternalKey(enc(a.key), a.seq, a.kind),
      makeInternalKey(enc(b.key), b.seq, b.kind),
    ),
  );
}

interface Outcome {
  output: Entry[];
  surviving: RangeTombstone[];
}

function compact(
  input: Entry[],
  tombstones: RangeTombstone[],
  snapshots: number[],
  op: MergeOperator | undefined,
  lower: KeyRange[][],
): Outcome {
  const sorted = sortEntries(input.slice());
  const keys = sorted.map((e) => makeInternalKey(enc(e.key), e.seq, e.kind));
  const values = sorted.map((e) => enc(e.value));
  const bottommost = new BottommostChecker(bytewiseComparator, lower);
  const { fragmented, surviving } = compactTombstones(
    tombstones,
    bytewiseComparator,
    snapshots,
    bottommost,
  );
  const it = new CompactionIterator(new ArrayIterator(keys, values, (a, b) => icmp.compare(a, b)), {
    icmp,
    snapshots,
    mergeOperator: op,
    tombstones: fragmented,
    bottommost,
  });
  const output: Entry[] = [];
  let last: Uint8Array | undefined;
  for (it.seekToFirst(); it.valid(); it.next()) {
    const k = it.key();
    if (last !== undefined) expect(icmp.compare(last, k), "output is sorted").toBeLessThan(0);
    last = k.slice();
    const t = k.length - 8;
    output.push({
      key: dec(k.subarray(0, t)),
      seq: Number(formatInternalKey(k).split("#")[1]!.split(",")[0]),
      kind: k[t]!,
      value: dec(it.value()),
    });
  }
  expect(it.stats.inputEntries).toBe(input.length);
  return { output, surviving };
}

const KEYS = ["a", "b", "c", "d", "e"];

const scenario = fc
  .record({
    kinds: fc.array(
      fc.record({
        key: fc.constantFrom(...KEYS),
        kind: fc.constantFrom(
          ValueKind.Value,
          ValueKind.Value,
          ValueKind.Merge,
          ValueKind.Merge,
          ValueKind.Deletion,
        ),
        value: fc.string({ minLength: 1, maxLength: 3, unit: fc.constantFrom("x", "y", "z") }),
      }),
      { maxLength: 40 },
    ),
    ranges: fc.array(fc.tuple(fc.constantFrom(...KEYS, "f"), fc.constantFrom(...KEYS, "f")), {
      maxLength: 4,
    }),
    snapshotPicks: fc.array(fc.nat(), { maxLength: 4 }),
    op: fc.constantFrom("max", "stringappend", "appendNoPartial"),
    lowerKeys: fc.subarray(KEYS),
  })
  .map((s) => {
    // Seqs: data below the output level 1..L, then the inputs (points and tombstones mixed).
    const lower: Entry[] = s.lowerKeys.map((key, i) => ({
      key,
      seq: i + 1,
      kind: ValueKind.Value,
      value: `old${i}`,
    }));
    let seq = lower.length;
    // Tombstones are spread among the points (seqs interleave).
    const input: Entry[] = [];
    const tombstones: RangeTombstone[] = [];
    const stride = Math.max(1, Math.floor(s.kinds.length / (s.ranges.length + 1)));
    let r = 0;
    for (let i = 0; i < s.kinds.length; i++) {
      input.push({ ...s.kinds[i]!, seq: ++seq });
      if ((i + 1) % stride === 0 && r < s.ranges.length) {
        const [a, b] = s.ranges[r++]!;
        tombstones.push({ start: enc(a < b ? a : b), end: enc(a < b ? b : a), seq: ++seq });
      }
    }
    while (r < s.ranges.length) {
      const [a, b] = s.ranges[r++]!;
      tombstones.push({ start: enc(a < b ? a : b), end: enc(a < b ? b : a), seq: ++seq });
    }
    const snapshots = [...new Set(s.snapshotPicks.map((p) => p % (seq + 1)))].sort((x, y) => x - y);
    // Lower levels: one level, one file per lower key (a point range).
    const ranges: KeyRange[][] = [
      s.lowerKeys.map((k) => ({ lo: enc(k), hi: enc(k), hiExclusive: false })),
    ];
    return { lower, input, tombstones, snapshots, op: OPERATORS[s.op]!, ranges, lastSeq: seq };
  });

describe("CompactionIterator", () => {
  it("keeps every answer a snapshot or the latest state can read", () => {
    fc.assert(
      fc.property(scenario, (sc) => {
        const { output, surviving } = compact(
          sc.input,
          sc.tombstones,
          sc.snapshots,
          sc.op,
          sc.ranges,
        );
        for (const snap of [...sc.snapshots, MAX_SEQ]) {
          for (const key of KEYS) {
            const before = modelGet([...sc.input, ...sc.lower], sc.tombstones, key, snap, sc.op);
            const after = modelGet([...output, ...sc.lower], surviving, key, snap, sc.op);
            expect(after, `key ${key} at ${snap}`).toBe(before);
          }
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("drops what no reader needs", () => {
    fc.assert(
      fc.property(scenario, (sc) => {
        const { output, surviving } = compact(
          sc.input,
          sc.tombstones,
          sc.snapshots,
          sc.op,
          sc.ranges,
        );
        const stripeOf = (seq: number) => {
          const i = sc.snapshots.findIndex((s) => s >= seq);
          return i < 0 ? sc.snapshots.length : i;
        };
        const perStripe = new Map<string, Entry[]>();
        for (const e of output) {
          const id = `${e.key}/${stripeOf(e.seq)}`;
          perStripe.set(id, [...(perStripe.get(id) ?? []), e]);
        }
        for (const [id, list] of perStripe) {
          // One entry per key and stripe, but operands that cannot be combined.
          const nonMerge = list.filter((e) => e.kind !== ValueKind.Merge);
          expect(nonMerge.length, id).toBeLessThanOrEqual(1);
          if (nonMerge.length === 1) expect(list[list.length - 1], id).toBe(nonMerge[0]);
          if (sc.op.partialMerge !== undefined) expect(list.length, id).toBe(1);
        }
        const bottom = (k: string) => !sc.lower.some((e) => e.key === k);
        for (const e of output) {
          // Nothing older than a surviving tombstone of its stripe that covers it.
          for (const t of surviving) {
            const covers =
              compareBytes(t.start, enc(e.key)) <= 0 && compareBytes(enc(e.key), t.end) < 0;
            if (covers && t.seq > e.seq) expect(stripeOf(t.seq)).not.toBe(stripeOf(e.seq));
          }
          if (stripeOf(e.seq) === 0 && bottom(e.key)) {
            // At the bottom, the earliest stripe holds no deletion and no lone operands.
            expect(e.kind === ValueKind.Deletion || e.kind === ValueKind.SingleDeletion).toBe(
              false,
            );
            expect(e.kind).not.toBe(ValueKind.Merge);
          }
        }
        if (sc.snapshots.length === 0 && sc.lower.length === 0) expect(surviving).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });

  it("keeps every answer when SingleDeletes keep their contract (one Put each)", () => {
    // Per key, Put and SingleDelete alternate (starting with the SingleDelete when the key
    // has a Put below the output level); keys interleave at random.
    const contract = fc
      .record({
        plan: fc.array(fc.constantFrom(...KEYS), { maxLength: 40 }),
        snapshotPicks: fc.array(fc.nat(), { maxLength: 4 }),
        lowerKeys: fc.subarray(KEYS),
      })
      .map((s) => {
        const lower: Entry[] = s.lowerKeys.map((key, i) => ({
          key,
          seq: i + 1,
          kind: ValueKind.Value,
          value: `old${i}`,
        }));
        const live = new Set(s.lowerKeys);
        let seq = lower.length;
        const input: Entry[] = s.plan.map((key) => {
          const put = !live.has(key);
          if (put) live.add(key);
          else live.delete(key);
          return put
            ? { key, seq: ++seq, kind: ValueKind.Value, value: `v${seq}` }
            : { key, seq: ++seq, kind: ValueKind.SingleDeletion, value: "" };
        });
        const snapshots = [...new Set(s.snapshotPicks.map((p) => p % (seq + 1)))].sort(
          (x, y) => x - y,
        );
        const ranges: KeyRange[][] = [
          s.lowerKeys.map((k) => ({ lo: enc(k), hi: enc(k), hiExclusive: false })),
        ];
        return { lower, input, snapshots, ranges };
      });
    fc.assert(
      fc.property(contract, (sc) => {
        const { output } = compact(sc.input, [], sc.snapshots, undefined, sc.ranges);
        for (const snap of [...sc.snapshots, MAX_SEQ]) {
          for (const key of KEYS) {
            const before = modelGet([...sc.input, ...sc.lower], [], key, snap, maxOperator);
            const after = modelGet([...output, ...sc.lower], [], key, snap, maxOperator);
            expect(after, `key ${key} at ${snap}`).toBe(before);
          }
        }
        // With no snapshot every pair in the input vanishes: what is left of a key is at
        // most its last Put and a SingleDelete for the Put below the output level.
        if (sc.snapshots.length === 0) {
          for (const key of KEYS) {
            const mine = output.filter((e) => e.key === key);
            const puts = mine.filter((e) => e.kind === ValueKind.Value);
            const singleDeletes = mine.filter((e) => e.kind === ValueKind.SingleDeletion);
            expect(puts.length + singleDeletes.length, key).toBe(mine.length);
            expect(puts.length, key).toBeLessThanOrEqual(1);
            expect(singleDeletes.length, key).toBeLessThanOrEqual(1);
            if (singleDeletes.length === 1) expect(sc.lower.some((e) => e.key === key)).toBe(true);
          }
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("collapses merges per stripe (the example of the file comment)", () => {
    const input: Entry[] = [
      { key: "k", seq: 14, kind: ValueKind.Merge, value: "3" },
      { key: "k", seq: 12, kind: ValueKind.Value, value: "7" },
      { key: "k", seq: 9, kind: ValueKind.Merge, value: "1" },
      { key: "k", seq: 8, kind: ValueKind.Deletion, value: "" },
      { key: "k", seq: 5, kind: ValueKind.Value, value: "2" },
    ];
    const { output } = compact(input, [], [10], stringAppendOperator(), [[]]);
    expect(output.map((e) => `${e.key}#${e.seq},${e.kind}=${e.value}`)).toEqual([
      "k#14,1=7,3",
      "k#9,1=1",
    ]);
  });

  it("keeps deletions above older data and drops them at the bottom", () => {
    const input: Entry[] = [
      { key: "a", seq: 3, kind: ValueKind.Deletion, value: "" },
      { key: "a", seq: 2, kind: ValueKind.Value, value: "v" },
      { key: "b", seq: 4, kind: ValueKind.SingleDeletion, value: "" },
    ];
    const below = [[{ lo: enc("a"), hi: enc("a"), hiExclusive: false }]];
    const kept = compact(input, [], [], undefined, below).output;
    expect(kept.map((e) => `${e.key}#${e.seq}`)).toEqual(["a#3"]);
    expect(compact(input, [], [], undefined, [[]]).output).toEqual([]);
    // A snapshot between the deletion and the value keeps both (and a deletion newer than
    // a snapshot stays even with nothing below it: rule 3 takes the earliest stripe only).
    expect(compact(input, [], [2], undefined, [[]]).output.map((e) => `${e.key}#${e.seq}`)).toEqual(
      ["a#3", "a#2", "b#4"],
    );
  });

  it("drops covered entries and bottommost tombstones, keeps those a snapshot needs", () => {
    const input: Entry[] = [
      { key: "b", seq: 1, kind: ValueKind.Value, value: "old" },
      { key: "c", seq: 5, kind: ValueKind.Value, value: "new" },
    ];
    const t = [{ start: enc("a"), end: enc("d"), seq: 3 }];
    const none = compact(input, t, [], undefined, [[]]);
    expect(none.output.map((e) => e.key)).toEqual(["c"]);
    expect(none.surviving).toEqual([]);
    const snap = compact(input, t, [2], undefined, [[]]);
    expect(snap.output.map((e) => e.key)).toEqual(["b", "c"]);
    expect(snap.surviving.map((x) => x.seq)).toEqual([3]);
    // Older data below the range: the tombstone stays, the covered entry goes.
    const below = compact(input, t, [], undefined, [
      [{ lo: enc("b"), hi: enc("b"), hiExclusive: false }],
    ]);
    expect(below.output.map((e) => e.key)).toEqual(["c"]);
    expect(below.surviving.map((x) => x.seq)).toEqual([3]);
  });

  it("fails with Corruption when the merge operator fails", () => {
    const failing: MergeOperator = { name: "fail", fullMerge: () => undefined };
    const input: Entry[] = [{ key: "a", seq: 1, kind: ValueKind.Merge, value: "x" }];
    expect(() => compact(input, [], [], failing, [[]])).toThrowError(ShaleError);
  });
});

/**
 * Data-driven (testdata/compaction-iterator/*.txt): `compact [snapshots=(s, ...)]
 * [merge=max|stringappend|uint64add|appendNoPartial] [below=(lo-hi, ...)]` — input: entries
 * `<key>#<seq>,<KIND> <value>` and tombstones `rangedel <start>-<end>#<seq>`; `below` are the
 * user-key ranges of files under the output level (default: none, every key bottommost). With
 * uint64add, values are written and printed as decimal numbers. Output: what the compaction
 * keeps, the surviving tombstones, and the counters.
 */
dataDrivenTests(new URL("../../testdata/compaction-iterator", import.meta.url), () => (c) => {
  if (c.cmd !== "compact") return c.fail("unknown command");
  const merge = c.hasArg("merge") ? c.arg("merge") : undefined;
  const op =
    merge === undefined ? undefined : merge === "uint64add" ? uint64AddOperator : OPERATORS[merge];
  if (merge !== undefined && op === undefined) c.fail(`unknown merge operator ${merge}`);
  const encodeValue = (v: string) => (merge === "uint64add" ? encodeUint64(Number(v)) : enc(v));
  const showValue = (v: Uint8Array) =>
    merge === "uint64add" && v.length === 8 ? String(decodeUint64(v)) : dec(v);
  const entries: { key: Uint8Array; value: Uint8Array }[] = [];
  const tombstones: RangeTombstone[] = [];
  for (const raw of c.input.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const rd = /^rangedel (\S+)-(\S+)#(\d+)$/.exec(line);
    if (rd !== null) {
      tombstones.push({
        start: parseKeyText(rd[1]!),
        end: parseKeyText(rd[2]!),
        seq: Number(rd[3]),
      });
      continue;
    }
    const space = line.indexOf(" ");
    const key = parseInternalKeyText(space < 0 ? line : line.slice(0, space));
    entries.push({ key, value: encodeValue(space < 0 ? "" : line.slice(space + 1)) });
  }
  entries.sort((a, b) => icmp.compare(a.key, b.key));
  const snapshots = c.argValues("snapshots").map(Number);
  const below = c.argValues("below").map((r) => {
    const [lo, hi] = r.split("-");
    return { lo: parseKeyText(lo!), hi: parseKeyText(hi!), hiExclusive: false };
  });
  const bottommost = new BottommostChecker(bytewiseComparator, below.length ? [below] : []);
  const { fragmented, surviving } = compactTombstones(
    tombstones,
    bytewiseComparator,
    snapshots,
    bottommost,
  );
  const it = new CompactionIterator(
    new ArrayIterator(
      entries.map((e) => e.key),
      entries.map((e) => e.value),
      (a, b) => icmp.compare(a, b),
    ),
    {
      icmp,
      snapshots,
      mergeOperator: op,
      tombstones: fragmented,
      bottommost: new BottommostChecker(bytewiseComparator, below.length ? [below] : []),
    },
  );
  const out: string[] = [];
  for (it.seekToFirst(); it.valid(); it.next()) {
    const v = showValue(it.value());
    out.push(v === "" ? internalKeyText(it.key()) : `${internalKeyText(it.key())} ${v}`);
  }
  if (out.length === 0) out.push("(no entries)");
  if (surviving.length > 0) {
    out.push(
      `tombstones: ${surviving.map((t) => `${keyText(t.start)}-${keyText(t.end)}#${t.seq}`).join(" ")}`,
    );
  }
  const s = it.stats;
  out.push(
    `stats: in ${s.inputEntries} out ${s.outputEntries} hidden ${s.droppedHidden} covered ${s.droppedCovered} deletions ${s.droppedDeletions} merged ${s.mergedOperands}`,
  );
  return out.join("\n");
});
