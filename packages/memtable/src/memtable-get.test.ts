/**
 * Property tests of MemTable.get (and of everything a lookup depends on) against a
 * brute-force model: random adds of every kind, random snapshots, random incoming lookup
 * states (as left by newer layers).
 */
import {
  bytewiseComparator,
  type Comparator,
  InternalKeyComparator,
  isShaleError,
  LookupResult,
  LookupState,
  MAX_SEQ,
  makeInternalKey,
  toHex,
  ValueKind,
} from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FIRST_CHUNK_SIZE } from "./arena.js";
import { MemTable } from "./index.js";

interface Op {
  seq: number;
  kind: ValueKind;
  key: Uint8Array;
  value: Uint8Array;
}

interface Snapshot {
  state: LookupState;
  seq: number;
  value: string | undefined;
  operands: string[];
  maxCoveringSeq: number;
}

const reverseComparator: Comparator = {
  ...bytewiseComparator,
  name: "test.ReverseBytewise",
  compare: (a, b) => bytewiseComparator.compare(b, a),
};

/** The obvious, slow implementation. */
class Model {
  readonly points: Op[] = [];
  readonly tombstones: { start: Uint8Array; end: Uint8Array; seq: number }[] = [];
  constructor(readonly cmp: Comparator) {}

  /** False for a duplicate (userKey, seq, kind). */
  add(op: Op): boolean {
    const list =
      op.kind === ValueKind.RangeDeletion
        ? this.tombstones.map((t) => ({ ...t, key: t.start, kind: op.kind }))
        : this.points;
    if (
      list.some(
        (e) => e.seq === op.seq && e.kind === op.kind && this.cmp.compare(e.key, op.key) === 0,
      )
    )
      return false;
    if (op.kind === ValueKind.RangeDeletion)
      this.tombstones.push({ start: op.key, end: op.value, seq: op.seq });
    else this.points.push(op);
    return true;
  }

  maxCovering(key: Uint8Array, snap: number): number {
    let best = 0;
    for (const t of this.tombstones) {
      if (t.seq <= snap && this.cmp.compare(t.start, key) <= 0 && this.cmp.compare(key, t.end) < 0)
        best = Math.max(best, t.seq);
    }
    return best;
  }

  get(key: Uint8Array, snap: number, r: Snapshot): Snapshot {
    if (r.state === LookupState.Found || r.state === LookupState.Deleted) return r;
    const out: Snapshot = { ...r, operands: [...r.operands] };
    out.maxCoveringSeq = Math.max(out.maxCoveringSeq, this.maxCovering(key, snap));
    const versions = this.points
      .filter((p) => p.seq <= snap && this.cmp.compare(p.key, key) === 0)
      .sort((a, b) => b.seq - a.seq || b.kind - a.kind);
    for (const p of versions) {
      if (
        p.seq < out.maxCoveringSeq ||
        p.kind === ValueKind.Deletion ||
        p.kind === ValueKind.SingleDeletion
      ) {
        return { ...out, state: LookupState.Deleted, seq: p.seq };
      }
      if (p.kind === ValueKind.Value)
        return { ...out, state: LookupState.Found, seq: p.seq, value: toHex(p.value) };
      out.operands.push(toHex(p.value));
      out.state = LookupState.Merging;
    }
    return out;
  }

  sortedPoints(): string[] {
    const icmp = new InternalKeyComparator(this.cmp);
    return this.points
      .map((p) => ({ ikey: makeInternalKey(p.key, p.seq, p.kind), value: p.value }))
      .sort((a, b) => icmp.compare(a.ikey, b.ikey))
      .map((e) => `${toHex(e.ikey)}=${toHex(e.value)}`);
  }
}

function snapshotOf(r: LookupResult): Snapshot {
  return {
    state: r.state,
    seq: r.seq,
    value: r.value === undefined ? undefined : toHex(r.value),
    operands: r.operands.map(toHex),
    maxCoveringSeq: r.maxCoveringSeq,
  };
}

function resultFrom(s: Snapshot): LookupResult {
  const r = new LookupResult();
  r.state = s.state;
  r.seq = s.seq;
  r.value = s.value === undefined ? undefined : Buffer.from(s.value, "hex");
  for (const o of s.operands) r.operands.push(Buffer.from(o, "hex"));
  r.maxCoveringSeq = s.maxCoveringSeq;
  return r;
}

const seqArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 2 ** 24 - 3, max: 2 ** 24 + 3 }) },
  { weight: 1, arbitrary: fc.integer({ min: MAX_SEQ - 3, max: MAX_SEQ }) },
);
const keyArb = fc.uint8Array({ minLength: 0, maxLength: 3, max: 3 });
const kindArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant(ValueKind.Value) },
  { weight: 2, arbitrary: fc.constant(ValueKind.Deletion) },
  { weight: 1, arbitrary: fc.constant(ValueKind.SingleDeletion) },
  { weight: 3, arbitrary: fc.constant(ValueKind.Merge) },
  { weight: 1, arbitrary: fc.constant(ValueKind.RangeDeletion) },
);
/** Short values, and long ones (copied word-aligned) as views at odd offsets. */
const valueArb = fc.oneof(
  { weight: 4, arbitrary: fc.uint8Array({ maxLength: 5 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.uint8Array({ minLength: 30, maxLength: 90 }), fc.integer({ min: 0, max: 7 }))
      .map(([bytes, offset]) => {
        const view = new Uint8Array(bytes.length + offset).subarray(offset);
        view.set(bytes);
        return view;
      }),
  },
);
const opArb = fc.record({
  seq: seqArb,
  kind: kindArb,
  key: keyArb,
  value: valueArb,
});
const incomingArb = fc.oneof(
  fc.constant<Snapshot>({
    state: LookupState.NotFound,
    seq: 0,
    value: undefined,
    operands: [],
    maxCoveringSeq: 0,
  }),
  seqArb.map<Snapshot>((s) => ({
    state: LookupState.NotFound,
    seq: 0,
    value: undefined,
    operands: [],
    maxCoveringSeq: s,
  })),
  fc.constant<Snapshot>({
    state: LookupState.Merging,
    seq: 0,
    value: undefined,
    operands: ["ee"],
    maxCoveringSeq: 0,
  }),
  fc.constant<Snapshot>({
    state: LookupState.Found,
    seq: 50,
    value: "ff",
    operands: [],
    maxCoveringSeq: 0,
  }),
);

describe.each([
  ["bytewise", bytewiseComparator, true],
  ["bytewise, no hash index,", bytewiseComparator, false],
  ["custom reverse", reverseComparator, true],
])("MemTable.get against a model (%s comparator)", (_name, cmp, hashIndex) => {
  it("matches the model for random adds, snapshots and incoming states", () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { maxLength: 60 }),
        fc.constantFrom(128, 256, 1 << 20),
        fc.array(fc.tuple(keyArb, seqArb, incomingArb), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 3 }),
        (ops, arenaChunkSize, probes, probeEvery) => {
          const mem = new MemTable({ comparator: cmp, arenaChunkSize, hashIndex });
          const model = new Model(cmp);
          const fresh = probes[0]![2];
          for (const [i, op] of ops.entries()) {
            // Gets between adds too (they apply the hash index's queued inserts).
            if (probeEvery > 0 && i % probeEvery === 0) {
              const r = resultFrom(fresh);
              mem.get(op.key, MAX_SEQ, r);
              expect(snapshotOf(r)).toEqual(model.get(op.key, MAX_SEQ, fresh));
            }
            if (op.kind === ValueKind.RangeDeletion && cmp.compare(op.key, op.value) > 0) {
              [op.key, op.value] = [op.value, op.key]; // start <= end
            }
            const accepted = model.add(op);
            let threw: unknown;
            try {
              mem.add(op.seq, op.kind, op.key, op.value);
            } catch (e) {
              threw = e;
            }
            if (accepted) expect(threw).toBeUndefined();
            else expect(isShaleError(threw, "InvalidArgument")).toBe(true);
          }
          mem.checkInvariants();
          expect(mem.numEntries).toBe(model.points.length);
          expect(mem.numRangeTombstones).toBe(model.tombstones.length);
          const seqs = [...model.points.map((p) => p.seq), ...model.tombstones.map((t) => t.seq)];
          expect(mem.firstSeq).toBe(seqs.length === 0 ? 0 : Math.min(...seqs));
          expect(mem.largestSeq).toBe(seqs.length === 0 ? 0 : Math.max(...seqs));
          expect(mem.rangeTombstones().map((t) => [toHex(t.start), toHex(t.end), t.seq])).toEqual(
            model.tombstones.map((t) => [toHex(t.start), toHex(t.end), t.seq]),
          );
          const scanned: string[] = [];
          const it = mem.newIterator();
          for (it.seekToFirst(); it.valid(); it.next())
            scanned.push(`${toHex(it.key())}=${toHex(it.value())}`);
          expect(scanned).toEqual(model.sortedPoints());

          const allProbes = [...probes, ...ops.map((o) => [o.key, o.seq, fresh] as const)];
          for (const [key, snap, incoming] of allProbes) {
            for (const s of [snap, MAX_SEQ]) {
              expect(mem.maxCoveringTombstoneSeq(key, s)).toBe(model.maxCovering(key, s));
              const r = resultFrom(incoming);
              mem.get(key, s, r);
              expect(snapshotOf(r), `get ${toHex(key)} @${s}`).toEqual(model.get(key, s, incoming));
            }
          }
        },
      ),
      { numRuns: 250 },
    );
  });
});

describe("MemTable.get with no point entry (the empty-memtable fast path)", () => {
  it("matches the model for memtables holding only range tombstones, or nothing", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(seqArb, keyArb, keyArb), { maxLength: 6 }),
        fc.boolean(),
        fc.array(fc.tuple(keyArb, seqArb, incomingArb), { minLength: 1, maxLength: 20 }),
        (tombstones, hashIndex, probes) => {
          const mem = new MemTable({ hashIndex });
          const model = new Model(bytewiseComparator);
          for (const [seq, a, b] of tombstones) {
            const [start, end] = bytewiseComparator.compare(a, b) <= 0 ? [a, b] : [b, a];
            const op = { seq, kind: ValueKind.RangeDeletion, key: start, value: end };
            const accepted = model.add(op);
            let threw: unknown;
            try {
              mem.add(seq, ValueKind.RangeDeletion, start, end);
            } catch (e) {
              threw = e;
            }
            expect(threw === undefined).toBe(accepted);
          }
          expect(mem.numEntries).toBe(0);
          for (const [key, snap, incoming] of probes) {
            for (const s of [snap, MAX_SEQ]) {
              const r = resultFrom(incoming);
              mem.get(key, s, r);
              expect(snapshotOf(r), `get ${toHex(key)} @${s}`).toEqual(model.get(key, s, incoming));
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("MemTable.get", () => {
  const text = (s: string) => new TextEncoder().encode(s);

  it("collects merge operands newest first down to a base value", () => {
    const mem = new MemTable();
    mem.add(1, ValueKind.Value, text("k"), text("base"));
    mem.add(2, ValueKind.Merge, text("k"), text("m2"));
    mem.add(3, ValueKind.Merge, text("k"), text("m3"));
    mem.add(4, ValueKind.Merge, text("other"), text("x"));
    const r = new LookupResult();
    mem.get(text("k"), MAX_SEQ, r);
    expect(r.state).toBe(LookupState.Found);
    expect(Buffer.from(r.value!).toString()).toBe("base");
    expect(r.seq).toBe(1);
    expect(r.operands.map((o) => Buffer.from(o).toString())).toEqual(["m3", "m2"]);
    r.reset();
    mem.get(text("k"), 2, r);
    expect(r.operands.map((o) => Buffer.from(o).toString())).toEqual(["m2"]);
  });

  it("treats entries older than a covering range tombstone as deleted", () => {
    const mem = new MemTable();
    mem.add(1, ValueKind.Value, text("b"), text("old"));
    mem.add(2, ValueKind.RangeDeletion, text("a"), text("c"));
    mem.add(3, ValueKind.Merge, text("b"), text("new"));
    const r = new LookupResult();
    mem.get(text("b"), MAX_SEQ, r);
    expect(r.state).toBe(LookupState.Deleted);
    expect(r.maxCoveringSeq).toBe(2);
    expect(r.operands.map((o) => Buffer.from(o).toString())).toEqual(["new"]);
    r.reset();
    mem.get(text("b"), 1, r); // the tombstone is not visible at snapshot 1
    expect(r.state).toBe(LookupState.Found);
    expect(r.maxCoveringSeq).toBe(0);
    r.reset();
    mem.get(text("c"), MAX_SEQ, r); // end is exclusive
    expect(r.state).toBe(LookupState.NotFound);
    expect(mem.maxCoveringTombstoneSeq(text("a"), MAX_SEQ)).toBe(2);
    expect(mem.maxCoveringTombstoneSeq(text("c"), MAX_SEQ)).toBe(0);
  });

  it("returns views into the arena, not copies", () => {
    const mem = new MemTable();
    mem.add(7, ValueKind.Value, text("k"), text("value"));
    const r = new LookupResult();
    mem.get(text("k"), MAX_SEQ, r);
    // A view into the arena's first chunk.
    expect(r.value!.buffer.byteLength).toBeGreaterThanOrEqual(FIRST_CHUNK_SIZE);
    expect(r.value!.byteOffset).toBeGreaterThan(0);
  });
});
