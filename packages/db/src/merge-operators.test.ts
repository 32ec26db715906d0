/**
 * Every merge operator through the whole database: the built-ins (`max`, `uint64add`,
 * `stringappend` with the default and a custom delimiter) and a user's operator object. Per
 * operator, one database holds a key merged onto no base, one merged onto a deleted base, one
 * with a base and 1,000 operands, and keys whose base and operands are spread over the
 * compacted level (L1), a flushed L0 table and the memtable. Each is read through `get`,
 * `getMany`, forward and reverse scans and seeks (see read-paths.test-support.ts), now and at
 * older snapshots, then again after more compactions and a reopen. Expected values come from
 * a model written independently of the operators (BigInt sums, `Buffer.compare`,
 * `Buffer.concat`), plus literal values computed by hand.
 *
 * Runs on the memory file system (jobs inline) and on the node file system, where flushes and
 * built-in-operator compactions run in worker threads (needs the build).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryFileSystem } from "@shale/base";
import { afterAll, describe, expect, it } from "vitest";
import { type MergeOperator, stringAppendOperator } from "./core/merge-operator.js";
import type { DbOptions } from "./core/options.js";
import type { Snapshot } from "./core/snapshot.js";
import { DB } from "./db.js";
import { hex, readAllPaths } from "./test-support/read-paths.test-support.js";

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const tmp = mkdtempSync(join(tmpdir(), "shale-merge-operators-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function le64(n: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, n, true);
  return out;
}

/**
 * A user's operator: a left fold h' = (h * 31 + sum of the operand's bytes + its length) mod
 * 1e9+7 over decimal text, starting at 17 with no base. Order-sensitive (operands applied in
 * the wrong order give another value) and without `partialMerge`, so compactions must keep
 * operands they cannot fully merge.
 */
function foldStep(h: number, operand: Uint8Array): number {
  let s = operand.length;
  for (const b of operand) s += b;
  return (h * 31 + s) % 1_000_000_007;
}
const userOperator: MergeOperator = {
  name: "test.fold",
  fullMerge(_key, existing, operands) {
    let h = existing === undefined ? 17 : Number(new TextDecoder().decode(existing));
    for (const op of operands) h = foldStep(h, op);
    return enc(String(h));
  },
};

interface OperatorCase {
  label: string;
  mergeOperator: NonNullable<DbOptions["mergeOperator"]>;
  /** The i-th operand written to a key. */
  operand(i: number): Uint8Array;
  /** The base value of the keys that have one. */
  base: Uint8Array;
  /** A base that is then deleted: it would show in any result that wrongly used it. */
  deadBase: Uint8Array;
  /** The independent model: the value of base + operands (oldest first). */
  model(base: Uint8Array | undefined, operands: readonly Uint8Array[]): Uint8Array;
  /** By hand: the value of "many" (base + operands 0..999) and of "absent" (operands 0..2). */
  many: Uint8Array;
  absent: Uint8Array;
}

const appendModel =
  (delimiter: Uint8Array) =>
  (base: Uint8Array | undefined, ops: readonly Uint8Array[]): Uint8Array => {
    const parts: Uint8Array[] = [];
    for (const p of base === undefined ? ops : [base, ...ops]) {
      if (parts.length > 0) parts.push(delimiter);
      parts.push(p);
    }
    return new Uint8Array(Buffer.concat(parts));
  };
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

const CASES: OperatorCase[] = [
  {
    label: "max",
    mergeOperator: "max",
    // A permutation of 0..999 as unpadded decimal: "99" > "100" bytewise.
    operand: (i) => enc(String((i * 7919) % 1000)),
    base: enc("95"),
    deadBase: new Uint8Array([0xff, 0xff]),
    model: (base, ops) => {
      let best = base;
      for (const op of ops) if (best === undefined || Buffer.compare(op, best) > 0) best = op;
      return best!;
    },
    many: enc("999"),
    absent: enc("919"), // operands "0", "919", "838"
  },
  {
    label: "uint64add",
    mergeOperator: "uint64add",
    operand: (i) => le64(BigInt(i + 1) * 2n ** 30n), // crosses the 32-bit boundary
    base: le64(7n),
    deadBase: le64(10n ** 12n),
    model: (base, ops) => {
      let sum =
        base === undefined ? 0n : new DataView(base.buffer, base.byteOffset).getBigUint64(0, true);
      for (const op of ops) sum += new DataView(op.buffer, op.byteOffset).getBigUint64(0, true);
      return le64(sum);
    },
    many: le64(7n + 500_500n * 2n ** 30n), // 7 + (1 + ... + 1000) * 2^30
    absent: le64(6n * 2n ** 30n), // (1 + 2 + 3) * 2^30
  },
  {
    label: "stringappend (default delimiter)",
    mergeOperator: "stringappend",
    operand: (i) => enc(`o${i}`),
    base: enc("B"),
    deadBase: enc("DEAD"),
    model: appendModel(enc(",")),
    many: enc(["B", ...range(1000).map((i) => `o${i}`)].join(",")),
    absent: enc("o0,o1,o2"),
  },
  {
    label: "stringappend (custom delimiter)",
    mergeOperator: stringAppendOperator(" → "),
    operand: (i) => enc(`o${i}`),
    base: enc("B"),
    deadBase: enc("DEAD"),
    model: appendModel(enc(" → ")),
    many: enc(["B", ...range(1000).map((i) => `o${i}`)].join(" → ")),
    absent: enc("o0 → o1 → o2"),
  },
  {
    label: "a user's operator object",
    mergeOperator: userOperator,
    operand: (i) => enc(`u${i}`),
    base: enc("5"),
    deadBase: enc("999999"),
    model: (base, ops) => userOperator.fullMerge(enc("k"), base, ops)!,
    // "u0", "u1", "u2" have byte sums 165, 166, 167 (+ length 2): 17 -> 694 -> 21682 -> 672311.
    many: (() => {
      let h = 5;
      for (let i = 0; i < 1000; i++) h = foldStep(h, enc(`u${i}`));
      return enc(String(h));
    })(),
    absent: enc("672311"),
  },
];

const KEYS = ["absent", "deleted", "many", "spread", "spread-deleted", "zz-plain"];

/** What each key holds, per read point, from the model. */
function expected(c: OperatorCase, point: "now" | "A" | "B"): Map<string, Uint8Array | undefined> {
  const ops = (from: number, to: number) => range(to - from).map((i) => c.operand(from + i));
  return new Map<string, Uint8Array | undefined>([
    ["absent", c.model(undefined, ops(0, 3))],
    ["deleted", c.model(undefined, ops(0, 3))],
    ["many", c.model(c.base, ops(0, 1000))],
    ["spread", c.model(c.base, ops(0, point === "A" ? 10 : point === "B" ? 30 : 40))],
    [
      "spread-deleted",
      point === "A" ? c.deadBase : c.model(undefined, ops(0, point === "B" ? 10 : 15)),
    ],
    ["zz-plain", enc("plain")],
  ]);
}

function check(db: DB, c: OperatorCase, snaps: { A: Snapshot; B: Snapshot } | undefined): void {
  const points = snaps === undefined ? (["now"] as const) : (["now", "A", "B"] as const);
  for (const point of points) {
    const got = readAllPaths(db, KEYS, point === "now" ? undefined : { snapshot: snaps![point] });
    const want = expected(c, point);
    for (const k of KEYS)
      expect(hex(got.get(k)), `${c.label}: ${k} at ${point}`).toBe(hex(want.get(k)));
  }
}

function levelFiles(db: DB): number[] {
  return range(7).map((l) => Number(db.getProperty(`shale.num-files-at-level${l}`)));
}

async function runCase(c: OperatorCase, dir: string, base: DbOptions): Promise<void> {
  const options: DbOptions = { ...base, mergeOperator: c.mergeOperator };
  let db = await DB.open(dir, options);
  const merge = (key: string, from: number, to: number) => {
    for (let i = from; i < to; i++) db.merge(key, c.operand(i));
  };
  // 1. Into the memtable, then flushed to L0.
  db.put("zz-plain", "plain");
  merge("absent", 0, 3);
  db.put("deleted", c.deadBase);
  db.delete("deleted");
  merge("deleted", 0, 3);
  db.put("many", c.base);
  merge("many", 0, 1000);
  db.put("spread", c.base);
  merge("spread", 0, 10);
  db.put("spread-deleted", c.deadBase);
  const A = db.snapshot();
  await db.flush();
  // 2. A second L0 table, then both compacted into L1 (a real compaction, not a move).
  merge("spread", 10, 20);
  db.delete("spread-deleted");
  merge("spread-deleted", 0, 5);
  await db.compactRange();
  // 3. A flushed L0 table above L1.
  merge("spread", 20, 30);
  merge("spread-deleted", 5, 10);
  await db.flush();
  const B = db.snapshot();
  // 4. The memtable above both.
  merge("spread", 30, 40);
  merge("spread-deleted", 10, 15);
  const files = levelFiles(db);
  expect(files[0], `${c.label}: L0 files`).toBe(1);
  expect(
    files.slice(1).reduce((a, b) => a + b, 0),
    `${c.label}: L1+ files`,
  ).toBeGreaterThan(0);

  // The hand-computed values, then the model at every read point.
  expect(hex(db.get("many")), `${c.label}: many`).toBe(hex(c.many));
  expect(hex(db.get("absent")), `${c.label}: absent`).toBe(hex(c.absent));
  check(db, c, { A, B });
  // Everything compacted with both snapshots alive: stripes are kept apart.
  await db.compactRange();
  expect(levelFiles(db)[0]).toBe(0);
  check(db, c, { A, B });
  A.release();
  B.release();
  await db.compactRange();
  check(db, c, undefined);
  await db.close();
  db = await DB.open(dir, options);
  check(db, c, undefined);
  await db.close();
}

describe("merge operators through the database", () => {
  for (const c of CASES) {
    it(`${c.label}: memory file system (jobs inline)`, async () => {
      await runCase(c, "/db", { fs: new MemoryFileSystem() });
    });
    it(`${c.label}: node file system (worker threads)`, async () => {
      await runCase(c, mkdtempSync(join(tmp, "case-")), {});
    });
  }

  it("the hand-computed user-operator steps hold", () => {
    // 17*31 + (117+48+2) = 694; 694*31 + (117+49+2) = 21682; 21682*31 + (117+50+2) = 672311.
    expect(foldStep(17, enc("u0"))).toBe(694);
    expect(foldStep(694, enc("u1"))).toBe(21682);
    expect(foldStep(21682, enc("u2"))).toBe(672311);
  });
});
