/**
 * The memtable's seams for component users: `get` without a sequence or a result,
 * a reused result that cannot report the previous key's answer, deletions without a value.
 */
import { LookupResult, LookupState, toBytes, ValueKind } from "@shale/base";
import { describe, expect, it } from "vitest";
import { MemTable } from "./memtable.js";

const text = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : new TextDecoder().decode(v);

describe("MemTable seams", () => {
  it("get defaults to the latest version and returns a fresh result", () => {
    const mem = new MemTable();
    mem.add(1, ValueKind.Value, toBytes("k"), toBytes("old"));
    mem.add(2, ValueKind.Value, toBytes("k"), toBytes("new"));
    const r = mem.get(toBytes("k"));
    expect(r.state).toBe(LookupState.Found);
    expect(text(r.value)).toBe("new");
    expect(text(mem.get(toBytes("k"), 1).value)).toBe("old");
    expect(mem.get(toBytes("k"))).not.toBe(r);
  });

  // Seen failing before LookupResult.enter: the second get returned at once (`done`) and
  // reported Found "red" for a key the memtable does not hold.
  it("a reused result reports a missing key as NotFound, not the previous value", () => {
    const mem = new MemTable();
    mem.add(1, ValueKind.Value, toBytes("apple"), toBytes("red"));
    const result = new LookupResult();
    mem.get(toBytes("apple"), 10, result);
    expect(result.state).toBe(LookupState.Found);
    mem.get(toBytes("banana"), 10, result);
    expect(result.state).toBe(LookupState.NotFound);
    expect(result.value).toBeUndefined();
  });

  it("a covering range tombstone of one key does not delete the next", () => {
    const mem = new MemTable();
    mem.add(5, ValueKind.RangeDeletion, toBytes("a"), toBytes("b"));
    mem.add(1, ValueKind.Value, toBytes("c"), toBytes("3"));
    const result = new LookupResult();
    mem.get(toBytes("a"), 10, result);
    expect(result.maxCoveringSeq).toBe(5);
    mem.get(toBytes("c"), 10, result);
    expect(result.state).toBe(LookupState.Found);
    expect(result.maxCoveringSeq).toBe(0);
  });

  it("a deletion needs no value; a value does", () => {
    const mem = new MemTable();
    mem.add(1, ValueKind.Value, toBytes("k"), toBytes("v"));
    mem.add(2, ValueKind.Deletion, toBytes("k"));
    mem.add(3, ValueKind.SingleDeletion, toBytes("j"));
    expect(mem.get(toBytes("k")).state).toBe(LookupState.Deleted);
    expect(mem.get(toBytes("j")).seq).toBe(3);
    expect(() => mem.add(4, ValueKind.Value, toBytes("x"))).toThrow(TypeError);
    expect(() => mem.add(4, ValueKind.Merge, toBytes("x"))).toThrow(/value is required/);
    expect(() => mem.add(4, ValueKind.RangeDeletion, toBytes("x"))).toThrow(TypeError);
  });
});
