/**
 * Backward iteration keeps a pinned child value while the levels move on (PinnedIterators):
 * a step back over a key can take a level through more than one file — the step into the
 * previous file, then a range-deletion skip (RangeDelSkippingIterator's seekForPrev) past it —
 * and the table iterator of the file holding the kept value must stay open until the DB
 * iterator's next move. (Invariants mode fills a closed table iterator's blocks with 0xcc.)
 */
import {
  ArrayIterator,
  bytewiseComparator,
  InternalKeyComparator,
  MemoryFileSystem,
} from "@shale/base";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { LevelFilesIterator } from "./level-files-iterator.js";
import { PinnedIterators } from "./pinned-iterators.js";

const text = (b: Uint8Array) => new TextDecoder("latin1").decode(b);

describe("backward iteration over level files", () => {
  it("keeps a value view whose file the level left twice (step back, then a range-deletion skip)", async () => {
    const fs = new MemoryFileSystem();
    // One key per L1+ file; the tombstone over "" is newer than the level, so the level is
    // wrapped in a skipping iterator that seeks past "" after the step back from "zz".
    const db = await DB.open("/db", {
      fs,
      mergeOperator: "max",
      writeBufferSize: 64 * 1024,
      level0FileNumCompactionTrigger: 2,
      targetFileSizeBase: 1,
      maxBytesForLevelBase: 1,
    });
    db.merge("zz", " ");
    db.put("", "");
    await db.compactRange();
    db.deleteRange("", "e");
    db.put("", "");
    const backward = [...db.iterator({ reverse: true })].map(([k, v]) => [text(k), text(v)]);
    expect(backward).toEqual([
      ["zz", " "],
      ["", ""],
    ]);
    const it = db.iterator();
    it.seekToLast();
    expect([text(it.key()), text(it.value())]).toEqual(["zz", " "]);
    it.prev();
    expect([text(it.key()), text(it.value())]).toEqual(["", ""]);
    it.next(); // forward again: the held table iterators are released, the value read afresh
    expect([text(it.key()), text(it.value())]).toEqual(["zz", " "]);
    it.close();
    await db.close();
  });
});

describe("LevelFilesIterator with PinnedIterators", () => {
  const icmp = new InternalKeyComparator(bytewiseComparator);
  const compare = (a: Uint8Array, b: Uint8Array) => icmp.compare(a, b);
  const enc = (s: string) => new TextEncoder().encode(`${s}\x01\x01\0\0\0\0\0\0`);

  function run(pins: PinnedIterators | undefined) {
    const names = ["a", "b", "c", "d"];
    const files = names.map((n) => ({ smallest: enc(n), largest: enc(n), key: enc(n) }));
    const closed = new Set<string>();
    const it = new LevelFilesIterator(
      files,
      (f) => {
        const inner = new ArrayIterator([f.key], [f.key], compare);
        const close = inner.close.bind(inner);
        inner.close = () => {
          closed.add(text(f.key)[0]!);
          close();
        };
        // Its arrays are never rewritten: pinned, as a table iterator's blocks are.
        return Object.assign(inner, { isValuePinned: () => true });
      },
      compare,
      pins,
    );
    return { it, closed };
  }

  it("holds every file it leaves while the pins are active, closes them on release", () => {
    const pins = new PinnedIterators();
    const { it, closed } = run(pins);
    it.seekToLast();
    expect(it.isValuePinned()).toBe(false); // not pinning: a view lasts until the next file
    pins.start();
    expect(it.isValuePinned()).toBe(true);
    it.prev(); // left d
    it.prev(); // left c: d would be closed here without the pins
    it.seekForPrev(enc("a")); // left b
    expect(text(it.key())[0]).toBe("a");
    expect([...closed]).toEqual([]);
    pins.release();
    expect([...closed].sort()).toEqual(["c", "d"]); // b is the one it left last
    expect(it.isValuePinned()).toBe(false);
    it.close();
    expect([...closed].sort()).toEqual(["a", "b", "c", "d"]);
  });

  it("closes what the pins hold when the run is closed", () => {
    const pins = new PinnedIterators();
    const { it, closed } = run(pins);
    pins.start();
    it.seekToFirst();
    it.next();
    it.next();
    it.next();
    it.close();
    expect([...closed].sort()).toEqual(["a", "b", "c", "d"]);
    expect(pins.active).toBe(false);
  });
});
