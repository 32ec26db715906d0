/**
 * WriteBatch's representation outside the engine: `data()` (RocksDB's bytes), `fromData`
 * (checked: Corruption on malformed bytes, TypeError on a non-Uint8Array) and iterating a
 * batch's operations.
 */
import { MemoryFileSystem, ShaleError, toHex } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import type { BatchOperation } from "./batch-operations.js";
import { WriteBatch } from "./write-batch.js";

const utf8 = (s: string) => new TextEncoder().encode(s);
const bytes = fc.uint8Array({ minLength: 0, maxLength: 24 });
const op = fc.oneof(
  fc.record({ type: fc.constant("put" as const), key: bytes, value: bytes, cf: fc.nat(3) }),
  fc.record({ type: fc.constant("merge" as const), key: bytes, value: bytes, cf: fc.nat(3) }),
  fc.record({ type: fc.constant("delete" as const), key: bytes, cf: fc.nat(3) }),
  fc.record({ type: fc.constant("singleDelete" as const), key: bytes, cf: fc.nat(3) }),
  fc.record({ type: fc.constant("deleteRange" as const), key: bytes, value: bytes, cf: fc.nat(3) }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

/** The batch of `ops` (family ids as plain { id } handles) and the operations it must yield. */
function build(ops: readonly Op[]): { batch: WriteBatch; expected: BatchOperation[] } {
  const batch = new WriteBatch();
  const expected: BatchOperation[] = [];
  for (const o of ops) {
    const family = o.cf === 0 ? undefined : { id: o.cf };
    const columnFamily = o.cf;
    switch (o.type) {
      case "put":
        batch.put(o.key, o.value, family);
        expected.push({ type: "put", key: o.key, value: o.value, columnFamily });
        break;
      case "merge":
        batch.merge(o.key, o.value, family);
        expected.push({ type: "merge", key: o.key, value: o.value, columnFamily });
        break;
      case "delete":
        batch.delete(o.key, family);
        expected.push({ type: "delete", key: o.key, columnFamily });
        break;
      case "singleDelete":
        batch.singleDelete(o.key, family);
        expected.push({ type: "singleDelete", key: o.key, columnFamily });
        break;
      case "deleteRange": {
        const [s, e] = Buffer.compare(o.key, o.value) <= 0 ? [o.key, o.value] : [o.value, o.key];
        batch.deleteRange(s, e, family);
        expected.push({ type: "deleteRange", key: s, value: e, columnFamily });
        break;
      }
    }
  }
  return { batch, expected };
}

describe("WriteBatch data() / fromData()", () => {
  it("documents the bytes of one put (RocksDB's representation)", () => {
    const batch = new WriteBatch().put("k", "v");
    expect(batch.sequence).toBe(0);
    expect(toHex(batch.data())).toBe("0000000000000000" + "01000000" + "01016b0176");
  });

  it("round-trips every batch: same bytes, same operations, same count", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 20 }), fc.nat(2 ** 40), (ops, seq) => {
        const { batch, expected } = build(ops);
        const data = batch.data();
        // The sequence a written batch carries survives too.
        data.set(new Uint8Array(new BigUint64Array([BigInt(seq)]).buffer), 0);
        const back = WriteBatch.fromData(data);
        expect(back.count).toBe(ops.length);
        expect(back.byteSize).toBe(data.length);
        expect(toHex(back.data())).toBe(toHex(data));
        expect(WriteBatch.sequence(back.data())).toBe(seq);
        expect(back.sequence).toBe(seq);
        expect([...back]).toEqual(expected);
        expect([...batch]).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("copies: the bytes handed in and out are the caller's", () => {
    const data = new WriteBatch().put("a", "1").data();
    const batch = WriteBatch.fromData(data);
    data.fill(0xff);
    expect([...batch]).toEqual([
      { type: "put", key: utf8("a"), value: utf8("1"), columnFamily: 0 },
    ]);
    const out = batch.data();
    out.fill(0);
    expect(batch.data()[12]).toBe(1);
  });

  it("refuses what is not a Uint8Array with a TypeError", () => {
    for (const bad of [undefined, null, "0000", [1, 2], new ArrayBuffer(12), 12])
      expect(() => WriteBatch.fromData(bad as unknown as Uint8Array)).toThrow(TypeError);
  });

  it("refuses malformed bytes with Corruption", () => {
    const good = new WriteBatch().put("key", "value").delete("gone").data();
    const cases: [string, Uint8Array][] = [
      ["shorter than the header", good.subarray(0, 11)],
      ["a record cut short", good.subarray(0, good.length - 1)],
      ["fewer records than the count", good.subarray(0, good.length - 6)],
      ["bytes after the last record", Buffer.concat([good, Buffer.from([0x01])])],
      ["an unknown record type", Buffer.concat([good.subarray(0, 12), Buffer.from([0x7f, 1, 1])])],
    ];
    const countOne = good.slice();
    countOne[8] = 5; // the header says 5 records
    cases.push(["a count beyond the records", countOne]);
    for (const [what, data] of cases) {
      let error: unknown;
      try {
        WriteBatch.fromData(data);
      } catch (e) {
        error = e;
      }
      expect(ShaleError.isInstance(error), what).toBe(true);
      expect((error as ShaleError).code, what).toBe("Corruption");
    }
  });

  it("applies another database's column family records to the family of the same id", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/a", {
      fs,
      createMissingColumnFamilies: true,
      columnFamilies: { users: {} },
    });
    const users = db.columnFamily("users");
    const batch = new WriteBatch().put("d", "default").put("u", "users", users);
    const data = batch.data();
    await db.close();
    const other = await DB.open("/b", {
      fs,
      createMissingColumnFamilies: true,
      columnFamilies: { users: {} },
    });
    other.write(WriteBatch.fromData(data));
    expect(Buffer.from(other.get("d")!).toString()).toBe("default");
    expect(other.get("u")).toBeUndefined();
    expect(Buffer.from(other.columnFamily("users").get("u")!).toString()).toBe("users");
    const lone = await DB.open("/c", { fs });
    expect(() => lone.write(WriteBatch.fromData(data))).toThrow(/column family 1/);
    await other.close();
    await lone.close();
  });
});
