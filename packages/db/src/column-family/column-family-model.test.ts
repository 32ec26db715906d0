/**
 * Model-based property test of column families: 1-4 families at open, then random puts,
 * deletes, merges (stringappend: an operand applied twice would show), range deletions,
 * batches across families, fills that switch 64 KiB memtables (background flushes, and
 * compactions at 2 L0 files), flushes, compactions, snapshots, createColumnFamily,
 * dropColumnFamily, reopens and crashes (a copy of the files as a process killed then would
 * leave them, opened without closing), against a model holding each family's keys. After
 * every step (and so after every reopen) the family list, every key's get and both scans of
 * every family, and `db.iterators` over all of them at once, agree with the model, and each
 * snapshot still reads every family as it was when taken. Half the runs use atomicFlush
 * (every flush takes every family with data, installed as one MANIFEST group).
 */
import { compareBytes, MemoryFileSystem, ShaleError } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DbOptions } from "../core/options.js";
import type { Snapshot } from "../core/snapshot.js";
import { DB } from "../db.js";
import { crashCopy } from "../test-support/crash-copy.test-support.js";
import { WriteBatch } from "../write/write-batch.js";
import type { ColumnFamilyHandle } from "./handle.js";

const KEYS = ["", "a", "ab", "b", "ba", "c", "zz"];
const NAMES = ["f1", "f2", "f3"];
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);
const byKey = ([a]: [string, string], [b]: [string, string]) => compareBytes(enc(a), enc(b));

/** A write into the family at index `f` (modulo the families open at the time). */
type Write =
  | { t: "put"; f: number; k: string; v: string }
  | { t: "del"; f: number; k: string }
  | { t: "merge"; f: number; k: string; v: string }
  | { t: "range"; f: number; s: string; e: string };

type Op =
  | Write
  | { t: "batch"; writes: Write[] }
  | { t: "fill"; f: number; n: number }
  | { t: "flush"; f: number }
  | { t: "compact"; f: number }
  | { t: "create"; name: string }
  | { t: "drop"; f: number }
  | { t: "snap" }
  | { t: "reopen" }
  | { t: "crash" };

const fam = fc.nat({ max: 3 });
const key = fc.constantFrom(...KEYS);
const val = fc.string({ maxLength: 4 });
const write: fc.Arbitrary<Write> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ t: fc.constant("put" as const), f: fam, k: key, v: val }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("del" as const), f: fam, k: key }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("merge" as const), f: fam, k: key, v: val }) },
  {
    weight: 1,
    arbitrary: fc.tuple(fam, key, key).map(([f, a, b]) => {
      const [s, e] = compareBytes(enc(a), enc(b)) <= 0 ? [a, b] : [b, a];
      return { t: "range" as const, f, s, e };
    }),
  },
);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 10, arbitrary: write },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant("batch" as const),
      writes: fc.array(write, { minLength: 1, maxLength: 6 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("fill" as const),
      f: fam,
      n: fc.integer({ min: 1, max: 40 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("flush" as const), f: fam }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("compact" as const), f: fam }) },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant("create" as const), name: fc.constantFrom(...NAMES) }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("drop" as const), f: fam }) },
  { weight: 1, arbitrary: fc.constant({ t: "snap" as const }) },
  { weight: 1, arbitrary: fc.constant({ t: "reopen" as const }) },
  { weight: 1, arbitrary: fc.constant({ t: "crash" as const }) },
);

type Model = Map<string, Map<string, string>>;

function applyToModel(model: Model, name: string, w: Write): void {
  const m = model.get(name)!;
  switch (w.t) {
    case "put":
      m.set(w.k, w.v);
      break;
    case "del":
      m.delete(w.k);
      break;
    case "merge": {
      const cur = m.get(w.k);
      m.set(w.k, cur === undefined ? w.v : `${cur},${w.v}`);
      break;
    }
    case "range":
      for (const k of [...m.keys()])
        if (compareBytes(enc(k), enc(w.s)) >= 0 && compareBytes(enc(k), enc(w.e)) < 0) m.delete(k);
      break;
  }
}

function applyTo(
  target: ColumnFamilyHandle | WriteBatch,
  w: Write,
  h: ColumnFamilyHandle | undefined,
): void {
  if (target instanceof WriteBatch) {
    if (w.t === "put") target.put(w.k, w.v, h);
    else if (w.t === "del") target.delete(w.k, h);
    else if (w.t === "merge") target.merge(w.k, w.v, h);
    else target.deleteRange(w.s, w.e, h);
    return;
  }
  if (w.t === "put") target.put(w.k, w.v);
  else if (w.t === "del") target.delete(w.k);
  else if (w.t === "merge") target.merge(w.k, w.v);
  else target.deleteRange(w.s, w.e);
}

async function rejectsInvalid(p: Promise<unknown>): Promise<void> {
  let error: unknown;
  try {
    await p;
  } catch (e) {
    error = e;
  }
  expect(ShaleError.isInstance(error) && error.code === "InvalidArgument", String(error)).toBe(
    true,
  );
}

interface Snap {
  snap: Snapshot;
  model: Model;
}

function check(db: DB, model: Model, snaps: readonly Snap[]): void {
  const names = [...model.keys()];
  expect(db.listColumnFamilies()).toEqual(names);
  const handles = names.map((n) => db.columnFamily(n));
  const together = db.iterators(handles);
  names.forEach((name, i) => {
    const h = handles[i]!;
    const want = [...model.get(name)!.entries()].sort(byKey);
    for (const k of KEYS) expect(dec(h.get(k)), `${name} get "${k}"`).toBe(model.get(name)!.get(k));
    const forward = [...h.iterator()].map(([k, v]) => [dec(k), dec(v)]);
    expect(forward, `${name} forwards`).toEqual(want);
    const backward = [...h.iterator({ reverse: true })].map(([k, v]) => [dec(k), dec(v)]);
    expect(backward, `${name} backwards`).toEqual(want.slice().reverse());
    const it = together[i]!;
    const atOnce = [...it].map(([k, v]) => [dec(k), dec(v)]);
    expect(atOnce, `${name} in db.iterators`).toEqual(want);
  });
  for (const { snap, model: then } of snaps) {
    // Families that exist now and did then (a dropped name created again is a new family).
    const both = names.filter(
      (n) => then.has(n) && db.columnFamily(n).id === snapIds.get(snap)?.get(n),
    );
    const its = db.iterators(
      both.map((n) => db.columnFamily(n)),
      { snapshot: snap },
    );
    both.forEach((name, i) => {
      const want = [...then.get(name)!.entries()].sort(byKey);
      const h = db.columnFamily(name);
      for (const k of KEYS)
        expect(dec(h.get(k, { snapshot: snap })), `${name} get "${k}" at snapshot`).toBe(
          then.get(name)!.get(k),
        );
      expect(
        [...its[i]!].map(([k, v]) => [dec(k), dec(v)]),
        `${name} at snapshot`,
      ).toEqual(want);
    });
  }
}

/** Each snapshot's family ids when it was taken. */
const snapIds = new WeakMap<Snapshot, Map<string, number>>();

function copyModel(model: Model): Model {
  return new Map([...model].map(([n, m]) => [n, new Map(m)]));
}

describe("column families against a model", () => {
  it("agree with a model of each family for random writes, batches, flushes, snapshots, creates, drops, reopens and crashes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 3 }),
        fc.array(op, { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        async (extra, ops, atomicFlush) => {
          let fs = new MemoryFileSystem();
          let base: DbOptions = {
            fs,
            mergeOperator: "stringappend",
            writeBufferSize: 64 * 1024,
            level0FileNumCompactionTrigger: 2,
            atomicFlush,
          };
          const initial = NAMES.slice(0, extra);
          let db = await DB.open("/db", {
            ...base,
            createMissingColumnFamilies: true,
            columnFamilies: Object.fromEntries(initial.map((n) => [n, {}])),
          });
          const model: Model = new Map([["default", new Map()]]);
          for (const n of initial) model.set(n, new Map());
          const nameAt = (f: number) => {
            const names = [...model.keys()];
            return names[f % names.length]!;
          };
          let snaps: Snap[] = [];
          try {
            check(db, model, snaps);
            for (const o of ops) {
              switch (o.t) {
                case "batch": {
                  const b = new WriteBatch();
                  for (const w of o.writes) {
                    const name = nameAt(w.f);
                    applyTo(b, w, db.columnFamily(name));
                  }
                  db.write(b);
                  for (const w of o.writes) applyToModel(model, nameAt(w.f), w);
                  break;
                }
                case "fill": {
                  // 3 KiB values: the 64 KiB memtable switches and flushes in the background.
                  const name = nameAt(o.f);
                  const h = db.columnFamily(name);
                  for (let i = 0; i < o.n; i++) {
                    const k = `fill${String(i).padStart(2, "0")}`;
                    const v = `${name}.${o.n}.${i}.`.padEnd(3072, "v");
                    h.put(k, v);
                    model.get(name)!.set(k, v);
                  }
                  break;
                }
                case "flush":
                  await db.columnFamily(nameAt(o.f)).flush();
                  break;
                case "compact":
                  await db.columnFamily(nameAt(o.f)).compactRange();
                  break;
                case "create":
                  if (model.has(o.name)) {
                    await rejectsInvalid(db.createColumnFamily(o.name));
                  } else {
                    const h = await db.createColumnFamily(o.name);
                    expect(h.name).toBe(o.name);
                    model.set(o.name, new Map());
                  }
                  break;
                case "drop": {
                  const name = nameAt(o.f);
                  if (name === "default") {
                    await rejectsInvalid(db.dropColumnFamily(name));
                  } else {
                    const h = db.columnFamily(name);
                    await db.dropColumnFamily(name);
                    model.delete(name);
                    expect(() => h.get("a")).toThrow(/column family dropped/);
                  }
                  break;
                }
                case "snap": {
                  const snap = db.snapshot();
                  snapIds.set(
                    snap,
                    new Map([...model.keys()].map((n) => [n, db.columnFamily(n).id])),
                  );
                  snaps.push({ snap, model: copyModel(model) });
                  break;
                }
                case "reopen":
                  for (const x of snaps) x.snap.release();
                  snaps = [];
                  await db.close();
                  db = await DB.open("/db", base);
                  break;
                case "crash": {
                  for (const x of snaps) x.snap.release();
                  snaps = [];
                  fs = crashCopy(fs, "/db");
                  base = { ...base, fs };
                  const killed = db;
                  db = await DB.open("/db", base);
                  await killed.close(); // writes only to the abandoned copy
                  break;
                }
                default: {
                  const name = nameAt(o.f);
                  applyTo(db.columnFamily(name), o, undefined);
                  applyToModel(model, name, o);
                }
              }
              check(db, model, snaps);
            }
            await db.close();
            db = await DB.open("/db", base);
            check(db, model, []);
          } finally {
            await db.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
