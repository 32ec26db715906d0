/**
 * The base iterator conformance suite, run against the DB iterator in "bytes" mode.
 *
 * The suite hands over sorted unique user keys with values; the adapter hides each entry
 * among noise that the DB iterator must see through: the entries spread over four sources,
 * some values split into a base and a merge operand (or two operands over a deletion), older
 * shadowed versions, deleted keys, versions newer than the snapshot, a range tombstone under
 * every visible entry and an invisible one over everything. The DB iterator must present
 * exactly the suite's entries. The second run declares each source's largest seq, so the
 * source of old entries jumps over the range tombstone with seeks instead of being read.
 */
import {
  ArrayIterator,
  bytewiseComparator,
  concatBytes,
  type InternalIterator,
  InternalKeyComparator,
  makeInternalKey,
  type RangeTombstone,
  toHex,
  ValueKind,
} from "@shale/base";
import { describeIteratorConformance, Random } from "@shale/base/testing";
import { FragmentedRangeTombstoneList } from "@shale/range-tombstones";
import type { MergeOperator } from "../core/merge-operator.js";
import { newDBIterator } from "./index.js";

const icmp = new InternalKeyComparator(bytewiseComparator);
const SNAPSHOT = 1_000_000;
const TOMBSTONE_SEQ = 90_000;

const concatOperator: MergeOperator = {
  name: "concat",
  fullMerge: (_key, base, operands) => concatBytes(base ?? new Uint8Array(0), ...operands),
};

interface Entry {
  ikey: Uint8Array;
  value: Uint8Array;
}

function build(keys: Uint8Array[], values: Uint8Array[], withMaxSeqs: boolean): InternalIterator {
  const rnd = new Random(keys.length * 7 + 3);
  const present = new Set(keys.map(toHex));
  const sources: Entry[][] = [[], [], [], []];
  const put = (source: number, key: Uint8Array, seq: number, kind: number, value: Uint8Array) =>
    sources[source]!.push({ ikey: makeInternalKey(key, seq, kind), value });
  const garbage = new Uint8Array([0xde, 0xad]);
  let seq = 100_000;
  let oldSeq = 1;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const value = values[i]!;
    const source = rnd.uniform(3);
    const shape = rnd.uniform(4);
    if (shape === 0 && value.length > 0) {
      // base + one operand
      const cut = rnd.uniform(value.length + 1);
      put(2, key, seq++, ValueKind.Value, value.subarray(0, cut));
      put(source, key, seq++, ValueKind.Merge, value.subarray(cut));
    } else if (shape === 1) {
      // two operands over a deletion
      const cut = rnd.uniform(value.length + 1);
      put(3, key, oldSeq++, ValueKind.Deletion, new Uint8Array(0));
      put(1, key, seq++, ValueKind.Merge, value.subarray(0, cut));
      put(source, key, seq++, ValueKind.Merge, value.subarray(cut));
    } else {
      put(source, key, seq++, ValueKind.Value, value);
    }
    // An older version, shadowed.
    if (rnd.oneIn(3)) put(3, key, oldSeq++, ValueKind.Value, garbage);
    // Versions newer than the snapshot.
    if (rnd.oneIn(4))
      put(0, key, SNAPSHOT + 1 + i, rnd.oneIn(2) ? ValueKind.Deletion : ValueKind.Value, garbage);
    // A deleted neighbour.
    const ghost = concatBytes(key, new Uint8Array([0]));
    if (rnd.oneIn(4) && !present.has(toHex(ghost))) {
      put(1, ghost, seq++, ValueKind.Deletion, new Uint8Array(0));
      put(3, ghost, oldSeq++, ValueKind.Value, garbage);
    }
  }
  const everything: RangeTombstone = {
    start: new Uint8Array(0),
    end: new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
    seq: TOMBSTONE_SEQ, // above every old version, below every visible one
  };
  const tombstones = [
    new FragmentedRangeTombstoneList([everything]),
    new FragmentedRangeTombstoneList([{ ...everything, seq: SNAPSHOT + 100_000 }]),
  ];
  const children = sources.map((entries) => {
    entries.sort((a, b) => icmp.compare(a.ikey, b.ikey));
    return new ArrayIterator(
      entries.map((e) => e.ikey),
      entries.map((e) => e.value),
      (a, b) => icmp.compare(a, b),
    );
  });
  return newDBIterator({
    children,
    rangeTombstones: tombstones,
    comparator: bytewiseComparator,
    mergeOperator: concatOperator,
    snapshotSeq: SNAPSHOT,
    // Source 3 holds only old entries, all under the tombstone: it skips them with a seek.
    ...(withMaxSeqs ? { childMaxSeqs: [SNAPSHOT + 10_000, seq, seq, oldSeq] } : {}),
  });
}

describeIteratorConformance("DBIterator over noisy sources", {
  keys: "bytes",
  build: (keys, values) => build(keys, values, false),
});

describeIteratorConformance("DBIterator over noisy sources with skipping children", {
  keys: "bytes",
  sizes: [0, 1, 17, 300],
  build: (keys, values) => build(keys, values, true),
});
