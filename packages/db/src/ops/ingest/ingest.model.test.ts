/**
 * Model test: ingestion mixed at random with puts, deletes, range deletions, flushes,
 * compactions, snapshots and reopens, checked against a sorted map after every step — the
 * latest state and every held snapshot's (a snapshot never sees what came in after it),
 * scanned forwards and backwards.
 */
import { MemoryFileSystem } from "@shale/base";
import { SstFileWriter } from "@shale/sstable";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DB } from "../../db.js";

const key = (i: number) => `k${String(i).padStart(3, "0")}`;
const KEYS = 40;

type Model = Map<string, string>;

type Step =
  | { op: "put"; k: number; v: number }
  | { op: "delete"; k: number }
  | { op: "deleteRange"; a: number; n: number }
  | { op: "flush" }
  | { op: "compact" }
  | { op: "snapshot" }
  | { op: "reopen" }
  | {
      op: "ingest";
      files: { keys: number[]; deletes: number[]; range: [number, number] | undefined }[];
    };

const fileArb = fc.record({
  keys: fc.uniqueArray(fc.integer({ min: 0, max: KEYS - 1 }), { minLength: 1, maxLength: 12 }),
  deletes: fc.uniqueArray(fc.integer({ min: 0, max: KEYS - 1 }), { maxLength: 3 }),
  range: fc.option(
    fc.tuple(fc.integer({ min: 0, max: KEYS - 1 }), fc.integer({ min: 1, max: 6 })),
    {
      nil: undefined,
    },
  ),
});

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ op: fc.constant("put" as const), k: fc.nat(KEYS - 1), v: fc.nat(999) }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), k: fc.nat(KEYS - 1) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("deleteRange" as const),
      a: fc.nat(KEYS - 1),
      n: fc.integer({ min: 1, max: 5 }),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ op: "flush" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "compact" as const }) },
  { weight: 2, arbitrary: fc.constant({ op: "snapshot" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "reopen" as const }) },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("ingest" as const),
      files: fc.array(fileArb, { minLength: 1, maxLength: 2 }),
    }),
  },
);

/** The files of one ingestion, made apart: the second file's keys above the first's range. */
function layOut(
  files: { keys: number[]; deletes: number[]; range: [number, number] | undefined }[],
) {
  let floor = 0;
  const out: { entries: [string, string | undefined][]; range?: [string, string] }[] = [];
  for (const f of files) {
    const points = new Map<number, string | undefined>();
    for (const k of f.deletes) points.set(k, undefined);
    for (const k of f.keys) points.set(k, `i${k}`);
    const ks = [...points.keys()].map((k) => k + floor).sort((a, b) => a - b);
    let range: [string, string] | undefined;
    let top = ks.at(-1)!;
    if (f.range !== undefined) {
      const lo = f.range[0] + floor;
      range = [key(lo), key(lo + f.range[1])];
      top = Math.max(top, lo + f.range[1]);
    }
    out.push({
      entries: ks.map((k) => [key(k), points.get(k - floor) === undefined ? undefined : `i${k}`]),
      ...(range !== undefined ? { range } : {}),
    });
    floor = top + 1;
  }
  return out;
}

function scan(db: DB, snapshot?: ReturnType<DB["snapshot"]>): [string, string][] {
  const out: [string, string][] = [];
  const it = db.iterator(snapshot !== undefined ? { snapshot } : {});
  try {
    for (it.seekToFirst(); it.valid(); it.next())
      out.push([Buffer.from(it.key()).toString(), Buffer.from(it.value()).toString()]);
  } finally {
    it.close();
  }
  return out;
}

/** The same backwards (seekToLast, prev). */
function reverseScan(db: DB, snapshot?: ReturnType<DB["snapshot"]>): [string, string][] {
  const out: [string, string][] = [];
  const it = db.iterator(snapshot !== undefined ? { snapshot } : {});
  try {
    for (it.seekToLast(); it.valid(); it.prev())
      out.push([Buffer.from(it.key()).toString(), Buffer.from(it.value()).toString()]);
  } finally {
    it.close();
  }
  return out.reverse();
}

const sorted = (m: Model) =>
  [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

describe("ingestExternalFile against a model", () => {
  it("agrees with a sorted map through random steps, snapshots included", async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 5, maxLength: 30 }), async (steps) => {
        const fs = new MemoryFileSystem();
        const options = { fs, disableAutoCompactions: true };
        let db = await DB.open("/db", options);
        const model: Model = new Map();
        const snaps: { snap: ReturnType<DB["snapshot"]>; model: Model }[] = [];
        let fileNo = 0;
        try {
          for (const s of steps) {
            switch (s.op) {
              case "put":
                db.put(key(s.k), `p${s.v}`);
                model.set(key(s.k), `p${s.v}`);
                break;
              case "delete":
                db.delete(key(s.k));
                model.delete(key(s.k));
                break;
              case "deleteRange":
                db.deleteRange(key(s.a), key(s.a + s.n));
                for (const k of [...model.keys()])
                  if (k >= key(s.a) && k < key(s.a + s.n)) model.delete(k);
                break;
              case "flush":
                await db.flush();
                break;
              case "compact":
                await db.compactRange();
                break;
              case "snapshot":
                snaps.push({ snap: db.snapshot(), model: new Map(model) });
                break;
              case "reopen":
                for (const x of snaps) x.snap.release();
                snaps.length = 0;
                await db.close();
                db = await DB.open("/db", options);
                break;
              case "ingest": {
                const paths: string[] = [];
                const files = layOut(s.files);
                for (const f of files) {
                  const path = `/ext-${round}-${fileNo++}.sst`;
                  const w = new SstFileWriter({ fs });
                  w.open(path);
                  for (const [k, v] of f.entries) {
                    if (v === undefined) w.delete(k);
                    else w.put(k, v);
                  }
                  if (f.range !== undefined) w.deleteRange(f.range[0], f.range[1]);
                  w.finish();
                  paths.push(path);
                }
                await db.ingestExternalFile(paths);
                for (const f of files) {
                  // A file's range deletion removes older data only, never its own keys.
                  if (f.range !== undefined)
                    for (const k of [...model.keys()])
                      if (k >= f.range[0] && k < f.range[1]) model.delete(k);
                  for (const [k, v] of f.entries) {
                    if (v === undefined) model.delete(k);
                    else model.set(k, v);
                  }
                }
                break;
              }
            }
            expect(scan(db)).toEqual(sorted(model));
            expect(reverseScan(db)).toEqual(sorted(model));
            for (const x of snaps) {
              expect(scan(db, x.snap)).toEqual(sorted(x.model));
              expect(reverseScan(db, x.snap)).toEqual(sorted(x.model));
            }
          }
          for (let k = 0; k < KEYS + 30; k++) {
            const got = db.get(key(k));
            expect(got === undefined ? undefined : Buffer.from(got).toString()).toBe(
              model.get(key(k)),
            );
          }
        } finally {
          for (const x of snaps) x.snap.release();
          await db.close();
          round++;
        }
      }),
      { numRuns: 40 },
    );
  });
});
