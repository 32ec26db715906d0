/**
 * @shale/memtable as a memtable-bench.ts contender: `add(seq, Value, key, value)` copies key
 * and value into the arena; a get is `get(key, MAX_SEQ, result)` with one reused
 * LookupResult; a seek target is the user key with the largest trailer.
 *
 *   shale          scans through the iterator's `key()` (a copy in a reused array) and
 *                  `value()` (a view into the arena)
 *   shale-offsets  scans in place: `entryBytes()`, `keyOffset()`, `valueLength()` (no
 *                  object per entry)
 */
import {
  KIND_FOR_SEEK,
  LookupResult,
  LookupState,
  MAX_SEQ,
  putTrailer,
  ValueKind,
} from "@shale/base";
import { MemTable } from "@shale/memtable";
import { type Contender, SCAN_LENGTH, SMALL_ENTRIES } from "./memtable-contender.js";
import { type Data, KEY_SIZE } from "./memtable-data.js";

/**
 * A new class per call: its methods are new closures with type feedback of their own, so the
 * two ways of scanning do not share (and make polymorphic) one set of call sites.
 */
function makeShaleClass() {
  return class Shale implements Contender {
    readonly name: string;
    readonly label: string;
    private mem = new MemTable();
    private readonly result = new LookupResult();
    private readonly target = new Uint8Array(KEY_SIZE + 8);
    private readonly offsets: boolean;

    constructor(offsets: boolean) {
      this.offsets = offsets;
      this.name = offsets ? "shale-offsets" : "shale";
      this.label = offsets
        ? "@shale/memtable (scans in place)"
        : "@shale/memtable (scans with `key()`, `value()`)";
      putTrailer(this.target, KEY_SIZE, MAX_SEQ, KIND_FOR_SEEK);
    }
    reset(): void {
      this.mem.unref();
      this.mem = new MemTable();
    }
    insertAll(d: Data): void {
      const mem = this.mem;
      const keys = d.keys;
      const values = d.values;
      for (let i = 0; i < d.n; i++) mem.add(i + 1, ValueKind.Value, keys[i]!, values[i]!);
    }
    getAll(d: Data, keys: Uint8Array[]): number {
      const mem = this.mem;
      const result = this.result;
      const order = d.getOrder;
      let found = 0;
      for (let i = 0; i < d.n; i++) {
        result.reset();
        mem.get(keys[order[i]!]!, MAX_SEQ, result);
        if (result.state === LookupState.Found) found++;
      }
      return found;
    }
    scan(): number {
      const it = this.mem.newIterator();
      let sum = 0;
      if (this.offsets) {
        for (it.seekToFirst(); it.valid(); it.next()) {
          sum += it.entryBytes()[it.keyOffset()]! + it.valueLength();
        }
      } else {
        for (it.seekToFirst(); it.valid(); it.next()) sum += it.key()[0]! + it.value().length;
      }
      it.close();
      return sum;
    }
    seekScans(d: Data): number {
      const it = this.mem.newIterator();
      const target = this.target;
      const keys = d.keys;
      let sum = 0;
      for (let i = 0; i < d.seeks; i++) {
        const key = keys[d.seekOrder[i]!]!;
        for (let j = 0; j < KEY_SIZE; j++) target[j] = key[j]!;
        it.seek(target);
        if (this.offsets) {
          for (let j = 0; j < SCAN_LENGTH && it.valid(); j++, it.next()) {
            sum += it.entryBytes()[it.keyOffset()]! + it.valueLength();
          }
        } else {
          for (let j = 0; j < SCAN_LENGTH && it.valid(); j++, it.next()) {
            sum += it.key()[0]! + it.value().length;
          }
        }
      }
      it.close();
      return sum;
    }
    smallTables(d: Data, count: number): number {
      const result = this.result;
      let found = 0;
      for (let t = 0; t < count; t++) {
        const mem = new MemTable();
        for (let i = 0; i < SMALL_ENTRIES; i++) {
          mem.add(i + 1, ValueKind.Value, d.keys[i]!, d.values[i]!);
        }
        result.reset();
        mem.get(d.keys[t % SMALL_ENTRIES]!, MAX_SEQ, result);
        if (result.state === LookupState.Found) found++;
        mem.unref();
      }
      return found;
    }
    buildCopies(d: Data): unknown {
      const mem = new MemTable();
      const key = new Uint8Array(KEY_SIZE);
      for (let i = 0; i < d.n; i++) {
        key.set(d.keys[i]!);
        mem.add(i + 1, ValueKind.Value, key, d.values[i]!);
      }
      return mem;
    }
  };
}

/** The memtable scanned through `key()` / `value()`, and scanned in place. */
export function shaleContenders(): Contender[] {
  return [new (makeShaleClass())(false), new (makeShaleClass())(true)];
}
