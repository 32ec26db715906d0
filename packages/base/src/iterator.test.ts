import { describe, expect, it } from "vitest";
import { compareBytes } from "./bytes.js";
import { bytewiseComparator } from "./comparator.js";
import { InternalKeyComparator } from "./internal-key.js";
import { ArrayIterator, EmptyIterator } from "./iterator.js";
import { describeIteratorConformance } from "./testing/iterator-conformance.js";

const icmp = new InternalKeyComparator(bytewiseComparator);

describeIteratorConformance("ArrayIterator (internal keys)", {
  keys: "internal",
  build: (keys, values) => new ArrayIterator(keys, values, (a, b) => icmp.compare(a, b)),
});

describeIteratorConformance("ArrayIterator (bytes)", {
  keys: "bytes",
  build: (keys, values) => new ArrayIterator(keys, values, compareBytes),
});

describe("EmptyIterator", () => {
  it("is never valid and refuses to move", () => {
    const it2 = new EmptyIterator();
    it2.seekToFirst();
    expect(it2.valid()).toBe(false);
    it2.seek(new Uint8Array([1]));
    expect(it2.valid()).toBe(false);
    expect(() => it2.key()).toThrow(RangeError);
  });
});
