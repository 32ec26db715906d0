import { ArrayIterator, bytewiseComparator, InternalKeyComparator } from "@shale/base";
import { describeIteratorConformance } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import { LevelFilesIterator } from "./level-files-iterator.js";

const icmp = new InternalKeyComparator(bytewiseComparator);
const compare = (a: Uint8Array, b: Uint8Array) => icmp.compare(a, b);

interface ChunkFile {
  smallest: Uint8Array;
  largest: Uint8Array;
  keys: Uint8Array[];
  values: Uint8Array[];
}

/** Splits sorted entries into files of 1..7 entries (sizes cycle deterministically). */
function chunk(keys: Uint8Array[], values: Uint8Array[]): ChunkFile[] {
  const files: ChunkFile[] = [];
  for (let i = 0, n = 0; i < keys.length; n++) {
    const size = 1 + ((n * 5) % 7);
    const k = keys.slice(i, i + size);
    files.push({
      smallest: k[0]!,
      largest: k[k.length - 1]!,
      keys: k,
      values: values.slice(i, i + size),
    });
    i += size;
  }
  return files;
}

describeIteratorConformance("LevelFilesIterator", {
  keys: "internal",
  build: (keys, values) =>
    new LevelFilesIterator(
      chunk(keys, values),
      (f) => new ArrayIterator(f.keys, f.values, compare),
      compare,
    ),
});

describe("LevelFilesIterator", () => {
  it("keeps at most two files open (the current one and the one it left), closing each as it moves on", () => {
    const enc = (s: string) => new TextEncoder().encode(`${s}\x01\x01\0\0\0\0\0\0`);
    const keys = ["a", "b", "c", "d", "e", "f"].map(enc);
    const files = chunk(keys, keys);
    let open = 0;
    let maxOpen = 0;
    const it = new LevelFilesIterator(
      files,
      (f) => {
        open++;
        maxOpen = Math.max(maxOpen, open);
        const inner = new ArrayIterator(f.keys, f.values, compare);
        const close = inner.close.bind(inner);
        inner.close = () => {
          open--;
          close();
        };
        return inner;
      },
      compare,
    );
    let n = 0;
    let previousValue: Uint8Array | undefined;
    for (it.seekToFirst(); it.valid(); it.next()) {
      n++;
      // A view of the entry before stays valid across the move into the next file.
      if (previousValue !== undefined) expect(previousValue.length).toBeGreaterThan(0);
      previousValue = it.value();
    }
    expect(n).toBe(6);
    expect(maxOpen).toBe(2);
    expect(open).toBe(1); // the last file, closed with the run
    it.close();
    expect(open).toBe(0);
  });
});
