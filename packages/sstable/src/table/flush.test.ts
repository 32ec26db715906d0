/**
 * flushMemTable's `rules` option and `copyMemTable`, the loop it shares with @shale/db's
 * flush job: the entries go through the rules, the range tombstones follow, the source's
 * iterator is closed on every path.
 */
import {
  type InternalIterator,
  LookupState,
  MemoryFileSystem,
  ShaleError,
  toBytes,
  ValueKind,
} from "@shale/base";
import { MemTable } from "@shale/memtable";
import { describe, expect, it } from "vitest";
import { copyMemTable, type FlushEntries, type FlushTarget, flushMemTable } from "./flush.js";
import { TableReader } from "./table-reader.js";

const dec = new TextDecoder();

/** Rules that keep the newest version of each user key (a flush with no snapshot). */
function newestOnly(input: InternalIterator): FlushEntries {
  let last: Uint8Array | undefined;
  const skipOlder = () => {
    while (input.valid()) {
      const k = input.key();
      const user = k.subarray(0, k.length - 8);
      if (last === undefined || dec.decode(user) !== dec.decode(last)) {
        last = user.slice();
        return;
      }
      input.next();
    }
  };
  return {
    seekToFirst: () => {
      input.seekToFirst();
      last = undefined;
      skipOlder();
    },
    valid: () => input.valid(),
    key: () => input.key(),
    value: () => input.value(),
    next: () => {
      input.next();
      skipOlder();
    },
  };
}

function memtable(): MemTable {
  const mem = new MemTable();
  mem.add(1, ValueKind.Value, toBytes("a"), toBytes("old"));
  mem.add(2, ValueKind.Value, toBytes("a"), toBytes("new"));
  mem.add(3, ValueKind.Value, toBytes("b"), toBytes("only"));
  mem.add(4, ValueKind.RangeDeletion, toBytes("x"), toBytes("z"));
  return mem;
}

/** A target that records what it was given, and can fail on the n-th add. */
class RecordingTarget implements FlushTarget {
  readonly calls: string[] = [];
  constructor(private readonly failAt = -1) {}
  add(key: Uint8Array, value: Uint8Array): void {
    if (this.calls.length === this.failAt) throw ShaleError.ioError("disk full");
    this.calls.push(`${dec.decode(key.subarray(0, key.length - 8))}=${dec.decode(value)}`);
  }
  addRangeTombstone(start: Uint8Array, end: Uint8Array, seq: number): void {
    this.calls.push(`[${dec.decode(start)},${dec.decode(end)})@${seq}`);
  }
}

describe("flushMemTable with rules", () => {
  it("writes only the entries the rules keep, and every range tombstone", () => {
    const fs = new MemoryFileSystem();
    const props = flushMemTable(memtable(), fs.openWritable("1.sst"), { rules: newestOnly });
    expect(props.numEntries).toBe(2);
    expect(props.numRangeDeletions).toBe(1);
    const reader = TableReader.open(fs.openRandomAccess("1.sst"));
    expect(dec.decode(reader.get(toBytes("a")).value)).toBe("new");
    expect(reader.get(toBytes("a"), 1).state).toBe(LookupState.NotFound); // the old one is gone
    reader.close();
  });

  it("without rules writes every version", () => {
    const fs = new MemoryFileSystem();
    expect(flushMemTable(memtable(), fs.openWritable("2.sst")).numEntries).toBe(3);
  });

  it("rejects rules that are not a function", () => {
    const fs = new MemoryFileSystem();
    expect(() =>
      flushMemTable(memtable(), fs.openWritable("3.sst"), { rules: 1 as never }),
    ).toThrow(TypeError);
  });
});

describe("copyMemTable", () => {
  it("adds the entries through the rules, then the range tombstones", () => {
    const target = new RecordingTarget();
    copyMemTable(memtable(), target, newestOnly);
    expect(target.calls).toEqual(["a=new", "b=only", "[x,z)@4"]);
    const all = new RecordingTarget();
    copyMemTable(memtable(), all);
    expect(all.calls).toEqual(["a=new", "a=old", "b=only", "[x,z)@4"]);
  });

  it("closes the source's iterator when the target throws", () => {
    const mem = memtable();
    let closed = 0;
    const source = {
      newIterator: () => {
        const it = mem.newIterator();
        const close = it.close.bind(it);
        it.close = () => {
          closed++;
          close();
        };
        return it;
      },
      rangeTombstones: () => mem.rangeTombstones(),
    };
    expect(() => copyMemTable(source, new RecordingTarget(1))).toThrow(/disk full/);
    expect(closed).toBe(1);
  });
});
