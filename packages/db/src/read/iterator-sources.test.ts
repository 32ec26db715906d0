/**
 * What a DB iterator merges: memtables without point entries (empty, as after a reopen, or
 * holding only range tombstones) are no child of the merge, and their tombstones still
 * delete what they cover.
 */
import {
  bytewiseComparator,
  InternalKeyComparator,
  MemoryFileSystem,
  toBytes,
  ValueKind,
} from "@shale/base";
import { MemTable } from "@shale/memtable";
import type { TableCache } from "@shale/sstable";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { Version } from "../version/version.js";
import { collectSources } from "./iterator-sources.js";

describe("iterator sources", () => {
  it("leave out memtables with no point entries, keeping their range tombstones", () => {
    const empty = new MemTable();
    const tombstonesOnly = new MemTable();
    tombstonesOnly.add(7, ValueKind.RangeDeletion, toBytes("b"), toBytes("d"));
    const points = new MemTable();
    points.add(3, ValueKind.Value, toBytes("c"), toBytes("v"));
    points.add(4, ValueKind.Deletion, toBytes("e"));
    const sources = collectSources({
      mem: empty,
      imm: [{ mem: tombstonesOnly }, { mem: points }],
      version: Version.empty(),
      tableCache: {} as TableCache, // no table to open
      icmp: new InternalKeyComparator(bytewiseComparator),
      readOptions: undefined,
    });
    expect(sources.children.length).toBe(1);
    expect(sources.childMaxSeqs).toEqual([4]);
    expect(sources.rangeTombstones.length).toBe(1);
    const child = sources.children[0]!;
    child.seekToFirst();
    expect(Buffer.from(child.key().subarray(0, 1)).toString()).toBe("c");
    for (const c of sources.children) c.close();
  });

  it("an iterator made over an empty memtable does not see later writes (its snapshot)", async () => {
    const fs = new MemoryFileSystem();
    let db = await DB.open("/db", { fs });
    db.put("a", "1");
    await db.close();
    db = await DB.open("/db", { fs }); // the table; an empty memtable
    const it = db.iterator();
    db.put("b", "2");
    db.deleteRange("a", "b");
    const seen: string[] = [];
    for (it.seekToFirst(); it.valid(); it.next()) seen.push(Buffer.from(it.key()).toString());
    expect(seen).toEqual(["a"]);
    it.close();
    const now: string[] = [];
    for (const [k] of db.iterator()) now.push(Buffer.from(k).toString());
    expect(now).toEqual(["b"]);
    await db.close();
  });

  // Puts, deletes and range deletions with flushes and reopens between them, so that
  // memtables hold only tombstones, nothing, or both; every read agrees with a model.
  it("a DB iterator over any mix of memtables and tables reads what a model holds", async () => {
    const key = fc.integer({ min: 0, max: 29 }).map((i) => `k${String(i).padStart(2, "0")}`);
    const deleteRange = fc.record({
      kind: fc.constant("deleteRange" as const),
      from: key,
      to: key,
    });
    const moveOn = fc.record({
      kind: fc.constantFrom("flush" as const, "reopen" as const, "compact" as const),
    });
    const op = fc.oneof(
      fc.record({ kind: fc.constant("put" as const), key, value: fc.nat(99) }),
      fc.record({ kind: fc.constant("delete" as const), key }),
      deleteRange,
      moveOn,
    );
    // Ending in range deletions after a flush or reopen leaves memtables of tombstones only.
    const ending = fc.array(fc.oneof(deleteRange, moveOn), { maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 25 }),
        ending,
        fc.array(key, { maxLength: 5 }),
        async (body, end, seeks) => {
          const ops = [...body, ...end];
          const fs = new MemoryFileSystem();
          const options = { fs, disableAutoCompactions: true };
          let db = await DB.open("/db", options);
          const model = new Map<string, string>();
          try {
            for (const o of ops) {
              if (o.kind === "put") {
                db.put(o.key, `v${o.value}`);
                model.set(o.key, `v${o.value}`);
              } else if (o.kind === "delete") {
                db.delete(o.key);
                model.delete(o.key);
              } else if (o.kind === "deleteRange") {
                const [from, to] = o.from <= o.to ? [o.from, o.to] : [o.to, o.from];
                db.deleteRange(from, to);
                for (const k of [...model.keys()]) if (k >= from && k < to) model.delete(k);
              } else if (o.kind === "flush") {
                await db.flush();
              } else if (o.kind === "compact") {
                await db.compactRange();
              } else {
                await db.close();
                db = await DB.open("/db", options);
              }
            }
            const expected = [...model.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
            const read = (reverse: boolean) => {
              const it = db.iterator();
              const seen: [string, string][] = [];
              for (
                reverse ? it.seekToLast() : it.seekToFirst();
                it.valid();
                reverse ? it.prev() : it.next()
              ) {
                seen.push([Buffer.from(it.key()).toString(), Buffer.from(it.value()).toString()]);
              }
              it.close();
              return seen;
            };
            expect(read(false)).toEqual(expected);
            expect(read(true)).toEqual([...expected].reverse());
            for (const target of seeks) {
              const it = db.iterator();
              it.seek(target);
              const at = expected.find(([k]) => k >= target);
              expect(it.valid() ? Buffer.from(it.key()).toString() : undefined).toBe(at?.[0]);
              it.seekForPrev(target);
              const before = [...expected].reverse().find(([k]) => k <= target);
              expect(it.valid() ? Buffer.from(it.key()).toString() : undefined).toBe(before?.[0]);
              it.close();
            }
          } finally {
            await db.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
