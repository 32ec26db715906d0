/**
 * The iterator conformance suite: every InternalIterator in shale runs it.
 *
 * ```ts
 * describeIteratorConformance("my iterator", {
 *   keys: "internal",                         // or "bytes"
 *   build: (keys, values) => new MyIterator(...same entries...),
 * });
 * ```
 *
 * `build` receives entries sorted in the suite's order (internal-key order over bytewise
 * user keys for "internal", bytewise for "bytes"), with unique keys, and must return an
 * iterator over exactly those entries. The suite checks full scans both ways, every seek and
 * seekForPrev (at keys, between keys, before the first and after the last), direction
 * changes, view stability until the next move, empty and single-entry inputs, and a long
 * seeded random walk against the reference ArrayIterator.
 */
import { describe, expect, it } from "vitest";
import { compareBytes, toHex } from "../bytes.js";
import { bytewiseComparator } from "../comparator.js";
import { InternalKeyComparator, MAX_SEQ, makeInternalKey, ValueKind } from "../internal-key.js";
import { ArrayIterator, type CompareFn, type InternalIterator } from "../iterator.js";
import { Random } from "./random.js";

export interface IteratorConformanceOptions {
  /** What keys the iterator holds. Default: "internal". */
  keys?: "internal" | "bytes";
  /** Builds an iterator over exactly these entries (sorted, unique keys). */
  build: (keys: Uint8Array[], values: Uint8Array[]) => InternalIterator;
  /** Sizes of the generated inputs for the bulk tests. Default: [0, 1, 2, 17, 300, 2000]. */
  sizes?: number[];
  /** Supports `seekForPrev`/`prev`/`seekToLast` (forward-only iterators say false). Default: true. */
  reverse?: boolean;
}

interface Dataset {
  keys: Uint8Array[];
  values: Uint8Array[];
  /** Seek targets: every key, and keys between, before and after them. */
  probes: Uint8Array[];
}

const internalCmp = new InternalKeyComparator(bytewiseComparator);

function makeDataset(kind: "internal" | "bytes", n: number, seed: number): Dataset {
  const rnd = new Random(seed);
  const compare: CompareFn =
    kind === "internal" ? (a, b) => internalCmp.compare(a, b) : compareBytes;
  const seen = new Set<string>();
  const keys: Uint8Array[] = [];
  while (keys.length < n) {
    // Small alphabet and short lengths: many shared prefixes and several versions of a user key.
    const user = rnd.bytes(1 + rnd.uniform(rnd.oneIn(10) ? 40 : 6), rnd.oneIn(5) ? 256 : 4);
    const key =
      kind === "internal"
        ? makeInternalKey(
            user,
            rnd.uniform(1000),
            rnd.oneIn(3) ? ValueKind.Deletion : ValueKind.Value,
          )
        : user;
    const id = toHex(key);
    if (seen.has(id)) continue;
    seen.add(id);
    keys.push(key);
  }
  keys.sort(compare);
  const values = keys.map((_, i) =>
    rnd.bytes(rnd.oneIn(20) ? 500 : rnd.uniform(12)).map((b) => b ^ (i & 0xff)),
  );
  const probes: Uint8Array[] = [...keys];
  for (let i = 0; i < Math.min(200, n + 5); i++) {
    const user = rnd.bytes(rnd.uniform(7), 5);
    probes.push(
      kind === "internal" ? makeInternalKey(user, rnd.uniform(1001), ValueKind.Value) : user,
    );
  }
  if (kind === "internal") {
    probes.push(makeInternalKey(new Uint8Array(0), MAX_SEQ, ValueKind.RangeDeletion));
    probes.push(
      makeInternalKey(
        new Uint8Array([255, 255, 255, 255, 255, 255, 255, 255]),
        0,
        ValueKind.Deletion,
      ),
    );
  } else {
    probes.push(new Uint8Array(0), new Uint8Array([255, 255, 255, 255, 255, 255, 255, 255]));
  }
  return { keys, values, probes };
}

function position(it: InternalIterator): string {
  return it.valid() ? `${toHex(it.key())}=${toHex(it.value())}` : "<invalid>";
}

export function describeIteratorConformance(
  name: string,
  options: IteratorConformanceOptions,
): void {
  const kind = options.keys ?? "internal";
  const sizes = options.sizes ?? [0, 1, 2, 17, 300, 2000];
  const reverse = options.reverse ?? true;
  const compare: CompareFn =
    kind === "internal" ? (a, b) => internalCmp.compare(a, b) : compareBytes;

  describe(`${name}: iterator conformance`, () => {
    for (const n of sizes) {
      const data = makeDataset(kind, n, 1000 + n);
      const reference = () => new ArrayIterator(data.keys, data.values, compare);

      it(`scans ${n} entries forward${reverse ? " and backward" : ""}`, () => {
        const it = options.build(data.keys, data.values);
        it.seekToFirst();
        for (let i = 0; i < n; i++) {
          expect(it.valid()).toBe(true);
          expect(toHex(it.key())).toBe(toHex(data.keys[i]!));
          expect(toHex(it.value())).toBe(toHex(data.values[i]!));
          it.next();
        }
        expect(it.valid()).toBe(false);
        if (reverse) {
          it.seekToLast();
          for (let i = n - 1; i >= 0; i--) {
            expect(it.valid()).toBe(true);
            expect(toHex(it.key())).toBe(toHex(data.keys[i]!));
            it.prev();
          }
          expect(it.valid()).toBe(false);
        }
        it.close();
      });

      it(`seeks ${reverse ? "and seeksForPrev " : ""}every probe over ${n} entries`, () => {
        const it = options.build(data.keys, data.values);
        const ref = reference();
        for (const probe of data.probes) {
          it.seek(probe);
          ref.seek(probe);
          expect(position(it), `seek ${toHex(probe)}`).toBe(position(ref));
          if (reverse) {
            it.seekForPrev(probe);
            ref.seekForPrev(probe);
            expect(position(it), `seekForPrev ${toHex(probe)}`).toBe(position(ref));
          }
        }
        it.close();
      });

      if (n > 0) {
        it(`keeps key/value views stable until the next move (${n} entries)`, () => {
          const it = options.build(data.keys, data.values);
          it.seekToFirst();
          let steps = 0;
          while (it.valid() && steps < 50) {
            const k = it.key();
            const v = it.value();
            const kh = toHex(k);
            const vh = toHex(v);
            // Reading again must give the same bytes, and the views must still hold them.
            expect(toHex(it.key())).toBe(kh);
            expect(toHex(it.value())).toBe(vh);
            expect(toHex(k)).toBe(kh);
            expect(toHex(v)).toBe(vh);
            it.next();
            steps++;
          }
          it.close();
        });

        it(`matches the reference on a random walk (${n} entries)`, () => {
          const rnd = new Random(7 + n);
          const it = options.build(data.keys, data.values);
          const ref = reference();
          const ops = reverse ? 8 : 4;
          for (let step = 0; step < 3000; step++) {
            const op = rnd.uniform(ops);
            const probe = data.probes[rnd.uniform(data.probes.length)]!;
            let label: string;
            if (op === 0 || op === 5) {
              label = "seek";
              it.seek(probe);
              ref.seek(probe);
            } else if (op === 1) {
              label = "seekToFirst";
              it.seekToFirst();
              ref.seekToFirst();
            } else if (op === 2 || op === 3) {
              label = "next";
              if (!ref.valid()) continue;
              it.next();
              ref.next();
            } else if (op === 4) {
              label = "seekForPrev";
              it.seekForPrev(probe);
              ref.seekForPrev(probe);
            } else if (op === 6) {
              label = "seekToLast";
              it.seekToLast();
              ref.seekToLast();
            } else {
              label = "prev";
              if (!ref.valid()) continue;
              it.prev();
              ref.prev();
            }
            expect(position(it), `step ${step}: ${label}`).toBe(position(ref));
          }
          it.close();
        });
      }

      if (reverse && n >= 2) {
        it(`switches direction correctly (${n} entries)`, () => {
          const it = options.build(data.keys, data.values);
          const mid = n >> 1;
          it.seek(data.keys[mid]!);
          expect(toHex(it.key())).toBe(toHex(data.keys[mid]!));
          it.prev();
          expect(toHex(it.key())).toBe(toHex(data.keys[mid - 1]!));
          it.next();
          expect(toHex(it.key())).toBe(toHex(data.keys[mid]!));
          it.next();
          if (mid + 1 < n) expect(toHex(it.key())).toBe(toHex(data.keys[mid + 1]!));
          else expect(it.valid()).toBe(false);
          it.seekToLast();
          it.prev();
          it.next();
          expect(toHex(it.key())).toBe(toHex(data.keys[n - 1]!));
          it.seekToFirst();
          it.next();
          it.prev();
          expect(toHex(it.key())).toBe(toHex(data.keys[0]!));
          it.prev();
          expect(it.valid()).toBe(false);
          it.close();
        });
      }
    }

    it("close() twice is harmless", () => {
      const data = makeDataset(kind, 3, 5);
      const it = options.build(data.keys, data.values);
      it.seekToFirst();
      it.close();
      it.close();
    });
  });
}
