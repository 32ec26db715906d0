/**
 * The DB iterator's contract: visibility, bounds, direction switches, the reseek over long
 * runs of versions, ownership of key/value views, close semantics, the iterable protocol,
 * errors and statistics.
 */
import {
  ArrayIterator,
  bytewiseComparator,
  type InternalIterator,
  InternalKeyComparator,
  isShaleError,
  MAX_SEQ,
  makeInternalKey,
  ShaleError,
  Statistics,
  Ticker,
  ValueKind,
} from "@shale/base";
import { describe, expect, it } from "vitest";
import { stringAppendOperator } from "../core/merge-operator.js";
import { type DBIterator, type DBIteratorSources, newDBIterator } from "./index.js";
import { pooledIteratorBuffers } from "./iterator-buffers.js";
import {
  b,
  buildSources,
  CountingIterator,
  type SourceKind,
  scanBackward,
  scanForward,
  str,
  type Write,
  w,
} from "./sources.test-support.js";

const icmp = new InternalKeyComparator(bytewiseComparator);

function open(
  groups: Write[][],
  kinds: SourceKind[],
  extra: Partial<DBIteratorSources> = {},
): DBIterator {
  const built = buildSources(groups, kinds, bytewiseComparator);
  return newDBIterator({
    children: built.children,
    rangeTombstones: built.rangeTombstones,
    comparator: bytewiseComparator,
    mergeOperator: stringAppendOperator(),
    snapshotSeq: MAX_SEQ,
    ...extra,
  });
}

const FIVE = [
  [
    w("put", "a", "1", 1),
    w("put", "b", "2", 2),
    w("put", "c", "3", 3),
    w("put", "d", "4", 4),
    w("put", "e", "5", 5),
  ],
];

function expectCode(f: () => unknown, code: string): void {
  let error: unknown;
  try {
    f();
  } catch (e) {
    error = e;
  }
  expect(isShaleError(error), `expected ShaleError ${code}, got ${String(error)}`).toBe(true);
  expect((error as ShaleError).code).toBe(code);
}

describe("DBIterator visibility", () => {
  it("yields the newest visible version per key and hides deletions", () => {
    const it = open(
      [
        [w("del", "b", "", 9), w("put", "c", "c-new", 8), w("put", "e", "e-future", 20)],
        [
          w("put", "a", "a1", 3),
          w("put", "b", "b1", 4),
          w("put", "c", "c1", 5),
          w("sdel", "d", "", 6),
        ],
        [w("put", "d", "d0", 1), w("put", "b", "b0", 2)],
      ],
      ["mem", "table", "table"],
      { snapshotSeq: 10 },
    );
    expect(scanForward(it)).toEqual(["a=a1", "c=c-new"]);
    expect(scanBackward(it)).toEqual(["c=c-new", "a=a1"]);
    it.close();
  });

  it("switches direction on every key", () => {
    const it = open(FIVE, ["table"]);
    it.seek("c");
    it.prev();
    expect(str(it.key())).toBe("b");
    it.next();
    expect(str(it.key())).toBe("c");
    it.next();
    it.prev();
    expect(str(it.key())).toBe("c");
    it.seekToFirst();
    it.prev();
    expect(it.valid()).toBe(false);
    it.seekToLast();
    it.next();
    expect(it.valid()).toBe(false);
    it.close();
  });

  it("crosses long runs of versions with a seek, both ways", () => {
    const entries: { ikey: Uint8Array; value: Uint8Array }[] = [];
    const add = (k: string, seq: number) =>
      entries.push({ ikey: makeInternalKey(b(k), seq, ValueKind.Value), value: b(`${k}${seq}`) });
    add("a", 1);
    for (let s = 2000; s > 1000; s--) add("b", s); // all newer than the snapshot
    for (let s = 900; s > 10; s--) add("c", s); // one visible, 889 older
    add("d", 2);
    entries.sort((x, y) => icmp.compare(x.ikey, y.ikey));
    const entryKeys = entries.map((e) => e.ikey);
    const entryValues = entries.map((e) => e.value);
    const child = new CountingIterator(
      new ArrayIterator(entryKeys, entryValues, (x, y) => icmp.compare(x, y)),
    );
    const it = newDBIterator({
      children: [child],
      rangeTombstones: [],
      comparator: bytewiseComparator,
      mergeOperator: undefined,
      snapshotSeq: 1000,
    });
    expect(scanForward(it)).toEqual(["a=a1", "c=c900", "d=d2"]);
    expect(child.nexts).toBeLessThan(60);
    expect(scanBackward(it)).toEqual(["d=d2", "c=c900", "a=a1"]);
    expect(child.prevs).toBeLessThan(60);
    it.close();
  });
});

describe("DBIterator bounds", () => {
  const bounded = (lower?: string, upper?: string) =>
    open(FIVE, ["mem"], {
      ...(lower !== undefined ? { lowerBound: b(lower) } : {}),
      ...(upper !== undefined ? { upperBound: b(upper) } : {}),
    });

  it("keeps scans within [lower, upper)", () => {
    const it = bounded("b", "d");
    expect(scanForward(it)).toEqual(["b=2", "c=3"]);
    expect(scanBackward(it)).toEqual(["c=3", "b=2"]);
    it.close();
  });

  it("clamps seeks to the bounds", () => {
    const it = bounded("b", "d");
    it.seek("a");
    expect(str(it.key())).toBe("b");
    it.seek("d");
    expect(it.valid()).toBe(false);
    it.seekForPrev("z");
    expect(str(it.key())).toBe("c");
    it.seekForPrev("d");
    expect(str(it.key())).toBe("c");
    it.seekForPrev("a");
    expect(it.valid()).toBe(false);
    it.seek("c");
    it.next();
    expect(it.valid()).toBe(false);
    it.seek("b");
    it.prev();
    expect(it.valid()).toBe(false);
    it.close();
  });

  it("works with one bound, bounds between keys, and empty ranges", () => {
    let it = bounded(undefined, "c\u0000");
    expect(scanBackward(it)).toEqual(["c=3", "b=2", "a=1"]);
    it.close();
    it = bounded("bb", undefined);
    expect(scanForward(it)).toEqual(["c=3", "d=4", "e=5"]);
    it.close();
    it = bounded("d", "b");
    expect(scanForward(it)).toEqual([]);
    expect(scanBackward(it)).toEqual([]);
    it.close();
  });

  it("copies the bounds", () => {
    const lower = b("b");
    const it = open(FIVE, ["mem"], { lowerBound: lower });
    lower[0] = "d".charCodeAt(0);
    expect(scanForward(it)[0]).toBe("b=2");
    it.close();
  });
});

/**
 * A child whose values are pinned (its own views, recorded in `handedOut`), or not: then
 * value() copies into one buffer that the next value() rewrites, as a child that reuses
 * memory would.
 */
class ValueWrapper implements InternalIterator {
  private readonly scratch = new Uint8Array(64);
  constructor(
    private readonly inner: InternalIterator,
    private readonly pinned: boolean,
    private readonly handedOut: Set<Uint8Array>,
  ) {}
  valid(): boolean {
    return this.inner.valid();
  }
  seekToFirst(): void {
    this.inner.seekToFirst();
  }
  seekToLast(): void {
    this.inner.seekToLast();
  }
  seek(target: Uint8Array): void {
    this.inner.seek(target);
  }
  seekForPrev(target: Uint8Array): void {
    this.inner.seekForPrev(target);
  }
  next(): void {
    this.inner.next();
  }
  prev(): void {
    this.inner.prev();
  }
  key(): Uint8Array {
    return this.inner.key();
  }
  value(): Uint8Array {
    const v = this.inner.value();
    if (this.pinned) {
      this.handedOut.add(v);
      return v;
    }
    this.scratch.fill(0x3f); // the previous value's bytes are gone
    this.scratch.set(v);
    const view = this.scratch.subarray(0, v.length);
    this.handedOut.add(view);
    return view;
  }
  isValuePinned(): boolean {
    return this.pinned;
  }
  close(): void {
    this.inner.close();
  }
}

describe("DBIterator views", () => {
  it("key() and value() stay valid until the next move and may change after", () => {
    const it = open([[w("put", "aa", "x", 1), w("put", "bb", "y", 2)]], ["mem"]);
    it.seekToLast(); // backwards: key and value are copies in reused buffers
    const k = it.key();
    const v = it.value();
    expect([str(k), str(v)]).toEqual(["bb", "y"]);
    it.prev();
    expect([str(it.key()), str(it.value())]).toEqual(["aa", "x"]);
    it.close();
  });

  it("backwards, keeps a pinned child's value view and copies a child's that is not", () => {
    // Four versions of each key in two sources: going backwards, every version's value is
    // held across the moves to the newer ones.
    const groups = [
      [w("put", "a", "a1", 1), w("put", "b", "b1", 2), w("put", "a", "a2", 3)],
      [w("put", "b", "b2", 4), w("put", "a", "a3", 5), w("put", "b", "b3", 6)],
    ];
    for (const pinned of [true, false]) {
      const built = buildSources(groups, ["mem", "table"], bytewiseComparator);
      const handedOut = new Set<Uint8Array>();
      const children = built.children.map((c) => new ValueWrapper(c, pinned, handedOut));
      const it = newDBIterator({
        children,
        rangeTombstones: built.rangeTombstones,
        comparator: bytewiseComparator,
        mergeOperator: undefined,
        snapshotSeq: MAX_SEQ,
      });
      it.seekToLast();
      expect([str(it.key()), str(it.value())]).toEqual(["b", "b3"]);
      // Pinned: the child's own view (no copy); not pinned: a copy (the child's buffer has
      // been rewritten by the moves since).
      expect(handedOut.has(it.value())).toBe(pinned);
      it.prev();
      expect([str(it.key()), str(it.value())]).toEqual(["a", "a3"]);
      expect(handedOut.has(it.value())).toBe(pinned);
      it.close();
    }
  });

  it("returns the right bytes when its key and value buffers grow", () => {
    const long = `a${"k".repeat(100)}`; // a deleted key longer than the key buffer, between a and b
    const it = open(
      [
        [
          w("put", "a", "x", 10),
          w("put", "b", "y", 11),
          w("put", "c", "z", 12),
          w("del", long, "", 13),
        ],
        [w("put", "a", "A".repeat(3000), 2), w("put", long, "L", 3)],
      ],
      ["mem", "table"],
    );
    // Backwards every version of a key is read: a's old big value grows the value buffer
    // between two one-byte values; forwards the deleted long key grows the key buffer
    // between two one-byte keys.
    expect(scanBackward(it)).toEqual(["c=z", "b=y", "a=x"]);
    expect(scanForward(it)).toEqual(["a=x", "b=y", "c=z"]);
    it.close();
  });

  it("accepts string and byte targets, and rejects others with TypeError", () => {
    const it = open(FIVE, ["mem"]);
    it.seek("c");
    expect(str(it.key())).toBe("c");
    it.seek(b("d"));
    expect(str(it.key())).toBe("d");
    it.seekForPrev("bz");
    expect(str(it.key())).toBe("b");
    expect(() => it.seek(42 as unknown as string)).toThrow(TypeError);
    expect(() => it.seekForPrev(null as unknown as string)).toThrow(TypeError);
    it.close();
  });
});

describe("DBIterator errors and close", () => {
  it("REQUIRES valid(): next/prev/key/value throw InvalidArgument otherwise", () => {
    const it = open(FIVE, ["mem"]);
    expectCode(() => it.next(), "InvalidArgument");
    expectCode(() => it.prev(), "InvalidArgument");
    expectCode(() => it.key(), "InvalidArgument");
    expectCode(() => it.value(), "InvalidArgument");
    it.seek("zz");
    expectCode(() => it.key(), "InvalidArgument");
    it.close();
  });

  it("after close: valid() is false, close() is harmless, everything else throws Closed", () => {
    let released = 0;
    const it = open(FIVE, ["mem", "table"], { onClose: () => released++ });
    it.seekToFirst();
    it.close();
    expect(it.valid()).toBe(false);
    expect(it.isClosed).toBe(true);
    it.close();
    expect(released).toBe(1);
    for (const f of [
      () => it.seek("a"),
      () => it.seekForPrev("a"),
      () => it.seekToFirst(),
      () => it.seekToLast(),
      () => it.next(),
      () => it.prev(),
      () => it.key(),
      () => it.value(),
      () => it[Symbol.iterator](),
    ]) {
      expectCode(f, "Closed");
    }
  });

  it("close() closes every child and releases even if a child's close throws", () => {
    let released = 0;
    const broken = new ArrayIterator([], [], (x, y) => icmp.compare(x, y));
    broken.close = () => {
      throw ShaleError.ioError("boom");
    };
    const other = new CountingIterator(new ArrayIterator([], [], (x, y) => icmp.compare(x, y)));
    const it = newDBIterator({
      children: [broken, other],
      rangeTombstones: [],
      comparator: bytewiseComparator,
      mergeOperator: undefined,
      snapshotSeq: 5,
      onClose: () => released++,
    });
    expectCode(() => it.close(), "IOError");
    expect(released).toBe(1);
    expect(other.closes).toBe(1);
  });

  it("reports malformed internal keys and unexpected kinds as Corruption", () => {
    const cmp = (x: Uint8Array, y: Uint8Array) => icmp.compare(x, y);
    const short = newDBIterator({
      children: [new ArrayIterator([new Uint8Array(3)], [new Uint8Array(0)], () => 0)],
      rangeTombstones: [],
      comparator: bytewiseComparator,
      mergeOperator: undefined,
      snapshotSeq: 5,
    });
    expectCode(() => short.seekToFirst(), "Corruption");
    expectCode(() => short.seekToLast(), "Corruption");
    expect(short.valid()).toBe(false);
    short.close();
    const odd = newDBIterator({
      children: [
        new ArrayIterator([makeInternalKey(b("a"), 1, ValueKind.RangeDeletion)], [b("b")], cmp),
      ],
      rangeTombstones: [],
      comparator: bytewiseComparator,
      mergeOperator: undefined,
      snapshotSeq: 5,
    });
    expectCode(() => odd.seekToFirst(), "Corruption");
    expectCode(() => odd.seekToLast(), "Corruption");
    odd.close();
  });

  it("rejects malformed sources", () => {
    const base: DBIteratorSources = {
      children: [],
      rangeTombstones: [],
      comparator: bytewiseComparator,
      mergeOperator: undefined,
      snapshotSeq: 1,
    };
    expect(() => newDBIterator(null as unknown as DBIteratorSources)).toThrow(TypeError);
    expect(() => newDBIterator({ ...base, children: "x" as unknown as [] })).toThrow(TypeError);
    expect(() => newDBIterator({ ...base, snapshotSeq: "1" as unknown as number })).toThrow(
      TypeError,
    );
    expectCode(() => newDBIterator({ ...base, snapshotSeq: -1 }), "InvalidArgument");
    expectCode(() => newDBIterator({ ...base, childMaxSeqs: [1] }), "InvalidArgument");
    expect(() => newDBIterator({ ...base, lowerBound: 3 as unknown as Uint8Array })).toThrow(
      TypeError,
    );
    const empty = newDBIterator(base);
    empty.seekToFirst();
    expect(empty.valid()).toBe(false);
    empty.close();
  });
});

describe("DBIterator iterable protocol", () => {
  it("for-of yields owned copies from the first key, and closes at the end", () => {
    let released = 0;
    const it = open(FIVE, ["table"], { onClose: () => released++ });
    it.seek("c"); // the loop starts from the first key regardless
    const entries = Array.from(it);
    expect(entries.map(([k, v]) => `${str(k)}=${str(v)}`)).toEqual([
      "a=1",
      "b=2",
      "c=3",
      "d=4",
      "e=5",
    ]);
    expect(released).toBe(1);
    expect(it.isClosed).toBe(true);
  });

  it("with reverse: true walks from the last key backwards", () => {
    const keys: string[] = [];
    for (const [k] of open(FIVE, ["mem"], { reverse: true })) keys.push(str(k));
    expect(keys).toEqual(["e", "d", "c", "b", "a"]);
  });

  it("closes the iterator on break and on an error", () => {
    let released = 0;
    const it = open(FIVE, ["mem"], { onClose: () => released++ });
    for (const [k] of it) if (str(k) === "b") break;
    expect(released).toBe(1);

    const failing = open([[w("put", "a", "1", 1), w("merge", "b", "x", 2)]], ["mem"], {
      mergeOperator: { name: "failing", fullMerge: () => undefined },
      onClose: () => released++,
    });
    expect(() => {
      for (const _ of failing) {
        // consume
      }
    }).toThrow(expect.objectContaining({ code: "Corruption" }));
    expect(released).toBe(2);
    expect(failing.isClosed).toBe(true);
  });

  it("an empty iterator ends at once", () => {
    const it = open([[w("del", "a", "", 1)]], ["mem"]);
    expect(Array.from(it)).toEqual([]);
    expect(it.isClosed).toBe(true);
  });
});

describe("DBIterator statistics", () => {
  it("counts seeks and steps", () => {
    const stats = new Statistics();
    const it = open(FIVE, ["mem"], { statistics: stats });
    it.seekToFirst();
    it.next();
    it.next();
    it.prev();
    it.seek("c");
    it.seekForPrev("c");
    it.seekToLast();
    expect(stats.getTicker(Ticker.IterSeeks)).toBe(4);
    expect(stats.getTicker(Ticker.IterNexts)).toBe(3);
    it.close();
  });

  it("a range tombstone only hides older entries, at the snapshot", () => {
    const groups = [
      [w("rangedel", "b", "d", 6), w("put", "c", "c-new", 7)],
      [w("put", "b", "b0", 1), w("put", "c", "c0", 2)],
    ];
    let it = open(groups, ["mem", "table"]);
    expect(scanForward(it)).toEqual(["c=c-new"]);
    it.close();
    it = open(groups, ["mem", "table"], { snapshotSeq: 5 });
    expect(scanForward(it)).toEqual(["b=b0", "c=c0"]);
    it.close();
    it = open(groups, ["mem", "table"], { snapshotSeq: 6 });
    expect(scanBackward(it)).toEqual([]);
    it.close();
  });
});

describe("buffers pooled across iterators", () => {
  it("a closed iterator's buffers serve the next one, cleared, and close gives them back once", () => {
    const sources = [
      [
        w("put", "a", "1", 1),
        w("put", "bb", "22", 2),
        w("put", "ccc", "333", 3),
        w("put", "dddd", "4444", 4),
      ],
    ];
    const first = open(sources, ["table"]);
    first.seekToLast();
    first.prev(); // a value saved by the backward step (pinned or copied)
    expect(str(first.key())).toBe("ccc");
    expect(str(first.value())).toBe("333");
    const before = pooledIteratorBuffers();
    first.close();
    first.close(); // idempotent: the buffers are not given back twice
    expect(pooledIteratorBuffers()).toBe(Math.min(before + 1, 16));
    const second = open(sources, ["mem"]);
    expect(pooledIteratorBuffers()).toBe(Math.min(before + 1, 16) - 1);
    expect(scanForward(second)).toEqual(["a=1", "bb=22", "ccc=333", "dddd=4444"]);
    expect(scanBackward(second)).toEqual(["dddd=4444", "ccc=333", "bb=22", "a=1"]);
    second.seek("bb");
    expect(str(second.key())).toBe("bb");
    // The closed iterator stays closed while another uses its buffers.
    expect(first.valid()).toBe(false);
    expect(() => first.key()).toThrow(ShaleError);
    expect(() => first.seek("a")).toThrow(ShaleError);
    expect(str(second.value())).toBe("22");
    second.close();
  });

  it("merge operands of a closed iterator do not leak into the next one", () => {
    const sources = [
      [w("put", "k", "base", 1), w("merge", "k", "m1", 2), w("merge", "k", "m2", 3)],
      [w("merge", "z", "only", 4)],
    ];
    const first = open(sources, ["table", "mem"]);
    first.seekToLast();
    first.prev(); // k resolved backwards: its operands collected
    expect(str(first.value())).toBe(
      str(stringAppendOperator().fullMerge(b("k"), b("base"), [b("m1"), b("m2")])!),
    );
    first.close();
    const second = open(sources, ["mem", "table"]);
    const expected = [
      `k=${str(stringAppendOperator().fullMerge(b("k"), b("base"), [b("m1"), b("m2")])!)}`,
      `z=${str(stringAppendOperator().fullMerge(b("z"), undefined, [b("only")])!)}`,
    ];
    expect(scanForward(second)).toEqual(expected);
    expect(scanBackward(second)).toEqual([...expected].reverse());
    second.close();
  });
});
