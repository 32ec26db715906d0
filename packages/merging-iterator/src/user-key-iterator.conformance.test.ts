/**
 * The base iterator conformance suite, run against UserKeyIterator in "bytes" mode (as the
 * db's DBIterator runs it): the suite's entries are hidden among noise the view must see
 * through — spread over four sources, values split into a base and a merge operand (or two
 * operands over a deletion), shadowed older versions, deleted neighbours, versions newer
 * than the snapshot, a range tombstone under every visible entry and an invisible one over
 * everything. The view must present exactly the suite's entries.
 */
import {
  ArrayIterator,
  bytewiseComparator,
  concatBytes,
  InternalKeyComparator,
  makeInternalKey,
  toHex,
  ValueKind,
} from "@shale/base";
import { describeIteratorConformance, Random } from "@shale/base/testing";
import { newMergingIterator } from "./merging-iterator.js";
import {
  type MergeOperator,
  type RangeTombstoneSource,
  UserKeyIterator,
} from "./user-key-iterator.js";

const icmp = new InternalKeyComparator(bytewiseComparator);
const SNAPSHOT = 1_000_000;
const TOMBSTONE_SEQ = 90_000;

const concat: MergeOperator = {
  name: "concat",
  fullMerge: (_key, base, operands) => concatBytes(base ?? new Uint8Array(0), ...operands),
};

/** A tombstone over every key at `seq`. */
const everything = (seq: number): RangeTombstoneSource => ({
  maxCoveringSeq: (_key, snapshot) => (seq <= snapshot ? seq : 0),
});

function build(keys: Uint8Array[], values: Uint8Array[]): UserKeyIterator {
  const rnd = new Random(keys.length * 7 + 3);
  const present = new Set(keys.map(toHex));
  const sources: { ikey: Uint8Array; value: Uint8Array }[][] = [[], [], [], []];
  const put = (source: number, key: Uint8Array, seq: number, kind: number, value: Uint8Array) =>
    sources[source]!.push({ ikey: makeInternalKey(key, seq, kind), value });
  const garbage = new Uint8Array([0xde, 0xad]);
  const empty = new Uint8Array(0);
  let seq = 100_000;
  let oldSeq = 1;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const value = values[i]!;
    const source = rnd.uniform(3);
    const shape = rnd.uniform(4);
    if (shape === 0 && value.length > 0) {
      const cut = rnd.uniform(value.length + 1);
      put(2, key, seq++, ValueKind.Value, value.subarray(0, cut));
      put(source, key, seq++, ValueKind.Merge, value.subarray(cut));
    } else if (shape === 1) {
      const cut = rnd.uniform(value.length + 1);
      put(3, key, oldSeq++, ValueKind.Deletion, empty);
      put(1, key, seq++, ValueKind.Merge, value.subarray(0, cut));
      put(source, key, seq++, ValueKind.Merge, value.subarray(cut));
    } else {
      put(source, key, seq++, ValueKind.Value, value);
    }
    if (rnd.oneIn(3)) put(3, key, oldSeq++, ValueKind.Value, garbage);
    if (rnd.oneIn(4))
      put(0, key, SNAPSHOT + 1 + i, rnd.oneIn(2) ? ValueKind.Deletion : ValueKind.Value, garbage);
    const ghost = concatBytes(key, new Uint8Array([0]));
    if (rnd.oneIn(4) && !present.has(toHex(ghost))) {
      put(1, ghost, seq++, ValueKind.Deletion, empty);
      put(3, ghost, oldSeq++, ValueKind.Value, garbage);
    }
  }
  const children = sources.map((entries) => {
    entries.sort((a, b) => icmp.compare(a.ikey, b.ikey));
    return new ArrayIterator(
      entries.map((e) => e.ikey),
      entries.map((e) => e.value),
      (a, b) => icmp.compare(a, b),
    );
  });
  return new UserKeyIterator(
    newMergingIterator(children, (a, b) => icmp.compare(a, b)),
    {
      snapshotSeq: SNAPSHOT,
      mergeOperator: concat,
      rangeTombstones: [everything(TOMBSTONE_SEQ), everything(SNAPSHOT + 100_000)],
    },
  );
}

describeIteratorConformance("UserKeyIterator over noisy sources", {
  keys: "bytes",
  build: (keys, values) => build(keys, values),
});
