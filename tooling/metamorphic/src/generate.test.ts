/**
 * The generator and the tracker: every generated list is one a correct database can run
 * (checkOps), lists are the same for the same seed, each operation's text reads back, and
 * the tracker refuses what RocksDB's contracts forbid.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateOps } from "./generate.js";
import { formatOp, type IngestWrite, type Op, parseOp } from "./ops.js";
import { checkOps, Tracker } from "./tracker.js";

describe("generateOps", () => {
  it("makes valid lists whose text reads back, the same for the same seed", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const ops = generateOps({ seed, ops: 300 });
        expect(ops.length).toBe(300);
        expect(checkOps(ops)).toBeUndefined();
        expect(generateOps({ seed, ops: 300 })).toEqual(ops);
        for (const op of ops) expect(parseOp(formatOp(op))).toEqual(op);
      }),
      { numRuns: 40 },
    );
  });

  it("draws every kind of operation over a long list", () => {
    const kinds = new Set(generateOps({ seed: 7, ops: 3000 }).map((op) => op.t));
    expect([...kinds].sort()).toEqual(
      [
        "batch",
        "checkpoint",
        "compact",
        "createCf",
        "del",
        "drange",
        "dropCf",
        "flush",
        "get",
        "ingest",
        "iter",
        "merge",
        "prefix",
        "put",
        "release",
        "reopen",
        "sdel",
        "snap",
        "txn",
      ].sort(),
    );
  });
});

describe("Tracker", () => {
  const put = (k: string): Op => ({ t: "put", cf: "default", k, v: "v" });
  const sdel = (k: string): Op => ({ t: "sdel", cf: "default", k });

  it("allows a single delete only of a key put once since its last single delete", () => {
    expect(checkOps([put("a"), sdel("a")])).toBeUndefined();
    expect(checkOps([sdel("a")])).toMatch(/op 0: single delete/);
    expect(checkOps([put("a"), put("a"), sdel("a")])).toMatch(/op 2: single delete/);
    expect(checkOps([put("a"), { t: "merge", cf: "default", k: "a", v: "m" }, sdel("a")])).toMatch(
      /op 2/,
    );
    // A range deletion or a Delete over the key's writes keeps it out for good: a pair that
    // vanishes in a compaction hides the entries under it, the Delete among them, and what
    // the Delete deleted would show again.
    const del = (k: string): Op => ({ t: "del", cf: "default", k });
    expect(
      checkOps([put("a"), { t: "drange", cf: "default", s: "a", e: "b" }, put("a"), sdel("a")]),
    ).toMatch(/op 3/);
    expect(checkOps([put("a"), put("a"), del("a"), put("a"), sdel("a")])).toMatch(/op 4/);
    expect(
      checkOps([{ t: "merge", cf: "default", k: "a", v: "m" }, del("a"), put("a"), sdel("a")]),
    ).toMatch(/op 3/);
    // Over nothing (no writes, or pairs that cancelled), a Delete hides nothing.
    expect(checkOps([del("a"), put("a"), sdel("a")])).toBeUndefined();
    expect(checkOps([put("a"), sdel("a"), del("a"), put("a"), sdel("a")])).toBeUndefined();
    // In a batch, in order.
    expect(
      checkOps([{ t: "batch", ops: [put("a") as never, sdel("a") as never, sdel("a") as never] }]),
    ).toMatch(/single delete/);
  });

  it("takes ingested files of distinct keys in ascending order, in one family", () => {
    const file = (...ops: IngestWrite[]): Op => ({ t: "ingest", cf: "default", ops });
    const p = (k: string): IngestWrite => ({ t: "put", cf: "default", k, v: "v" });
    const range = { t: "drange", cf: "default", s: "a", e: "c" } as const;
    expect(checkOps([file(p("a"), p("b"), range)])).toBeUndefined();
    expect(checkOps([file(p("b"), p("a"))])).toMatch(/out of order or repeated: b then a/);
    expect(checkOps([file(p("a"), p("a"))])).toMatch(/out of order or repeated/);
    expect(checkOps([file()])).toMatch(/no entries/);
    expect(
      checkOps([{ t: "ingest", cf: "default", ops: [{ t: "put", cf: "x", k: "a", v: "v" }] }]),
    ).toMatch(/family x in a file for default/);
    // An ingested Put counts as a Put: once, then a single delete may take it.
    expect(checkOps([file(p("a")), { t: "sdel", cf: "default", k: "a" }])).toBeUndefined();
  });

  it("refuses families, snapshots and transactions that do not fit", () => {
    expect(checkOps([{ t: "get", cf: "x", k: "a" }])).toMatch(/family x does not exist/);
    expect(
      checkOps([
        { t: "createCf", cf: "x" },
        { t: "dropCf", cf: "x" },
        { t: "createCf", cf: "x" },
      ]),
    ).toMatch(/created before/);
    expect(checkOps([{ t: "dropCf", cf: "default" }])).toMatch(/cannot be dropped/);
    expect(checkOps([{ t: "get", cf: "default", k: "a", snap: 0 }])).toMatch(/not live/);
    expect(checkOps([{ t: "snap", id: 0 }, { t: "reopen" }, { t: "release", id: 0 }])).toMatch(
      /not live/,
    );
    expect(
      checkOps([{ t: "txn", ops: [{ t: "drange", cf: "default", s: "a", e: "b" }], reads: [] }]),
    ).toMatch(/drange in a transaction/);
    expect(
      checkOps([
        {
          t: "txn",
          ops: [put("a") as never],
          reads: [],
          conflict: { cf: "default", k: "b", v: "c" },
        },
      ]),
    ).toMatch(/did not write/);
    const t = new Tracker();
    expect(t.step({ t: "snap", id: 3 })).toBeUndefined();
    expect(t.nextSnapshot).toBe(4);
  });

  it("parseOp refuses what is not an operation with a TypeError", () => {
    expect(() => parseOp("{")).toThrow(TypeError);
    expect(() => parseOp('{"t":"nope"}')).toThrow(TypeError);
    expect(() => parseOp("null")).toThrow(TypeError);
  });
});
