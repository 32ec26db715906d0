/**
 * Compaction filters on merge operands (RocksDB's FilterMergeOperand, the kMergeOperand value
 * type): a filter function with `filterMergeOperands = true` sees each operand a compaction
 * merges, newer than every snapshot, and keeps, removes or changes it; in worker threads and
 * on the database's thread; and a model test against a stringappend database.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryFileSystem } from "@shale/base";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { DbOptions } from "./core/options.js";
import { DB } from "./db.js";

const FILTERS = new URL("./test-fixtures/compaction-filters.mjs", import.meta.url);
const text = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : new TextDecoder().decode(v);
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "shale-operand-filter-"));
  dirs.push(d);
  return d;
}

const where = [
  { name: "worker threads", dir: () => tmp(), fs: () => ({}) },
  { name: "the database's thread", dir: () => "/db", fs: () => ({ fs: new MemoryFileSystem() }) },
] as const;

describe.each(where)("a merge operand filter in $name", ({ name, dir, fs }) => {
  const thread = name === "worker threads" ? "worker" : "main";
  const options = (): DbOptions => ({
    ...fs(),
    mergeOperator: "stringappend",
    compactionFilter: { module: FILTERS, name: "operands" },
  });

  it("removes and changes operands before they are merged", async () => {
    const db = await DB.open(dir(), options());
    db.put("k", "a");
    for (const o of ["x", "drop", "up", "tag"]) db.merge("k", o);
    await db.flush();
    expect(text(db.get("k"))).toBe("a,x,drop,up,tag"); // flushes and reads do not filter
    await db.compactRange();
    expect(text(db.get("k"))).toBe(`a,x,UP,tag:${thread}`);
    await db.close();
  });

  it("with every operand removed, the entry under them stays as it was", async () => {
    const db = await DB.open(dir(), options());
    db.put("v", "base");
    db.merge("v", "drop");
    db.merge("v", "drop");
    db.delete("d");
    db.merge("d", "drop");
    db.merge("only", "drop");
    db.put("z", "1");
    await db.flush();
    await db.compactRange();
    expect(text(db.get("v"))).toBe("base");
    expect(db.get("d")).toBeUndefined();
    expect(db.get("only")).toBeUndefined();
    expect(text(db.get("z"))).toBe("1");
    const keys: string[] = [];
    for (const [k] of db.iterator()) keys.push(text(k)!);
    expect(keys).toEqual(["v", "z"]);
    await db.close();
  });

  it("does not ask about operands a snapshot may read", async () => {
    const db = await DB.open(dir(), options());
    db.put("k", "a");
    db.merge("k", "drop");
    const snap = db.snapshot();
    db.merge("k", "up");
    db.merge("k", "drop");
    await db.flush();
    await db.compactRange();
    expect(text(db.get("k", { snapshot: snap }))).toBe("a,drop");
    expect(text(db.get("k"))).toBe("a,drop,UP");
    // The operand under the snapshot was merged into a value: values are never operands again.
    snap.release();
    await db.compactRange();
    expect(text(db.get("k"))).toBe("a,drop,UP");
    await db.close();
  });
});

describe("merge operand filters", () => {
  it("a filter without filterMergeOperands never sees operands", async () => {
    const db = await DB.open("/db", {
      fs: new MemoryFileSystem(),
      mergeOperator: "stringappend",
      compactionFilter: { module: FILTERS, name: "rules" }, // removes keys starting "tmp"
    });
    db.merge("tmpM", "x");
    db.merge("tmpM", "y");
    await db.flush();
    await db.compactRange();
    expect(text(db.get("tmpM"))).toBe("x,y");
    await db.close();
  });

  type Op =
    | { t: "put"; k: string; v: string }
    | { t: "merge"; k: string; v: string }
    | { t: "del"; k: string }
    | { t: "flush" }
    | { t: "compact" };
  const key = fc.constantFrom("a", "b", "c");
  const operand = fc.constantFrom("x", "y", "drop", "up");
  const op: fc.Arbitrary<Op> = fc.oneof(
    {
      weight: 2,
      arbitrary: fc.record({
        t: fc.constant("put" as const),
        k: key,
        v: fc.constantFrom("p", "q"),
      }),
    },
    { weight: 5, arbitrary: fc.record({ t: fc.constant("merge" as const), k: key, v: operand }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("del" as const), k: key }) },
    { weight: 1, arbitrary: fc.constant({ t: "flush" as const }) },
    { weight: 1, arbitrary: fc.constant({ t: "compact" as const }) },
  );

  it("after a full compaction every key reads as its writes with the operands filtered (model)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), async (ops) => {
        const db = await DB.open("/db", {
          fs: new MemoryFileSystem(),
          mergeOperator: "stringappend",
          compactionFilter: { module: FILTERS, name: "operands" },
          disableAutoCompactions: true,
        });
        // The model: a base (or none) and the operands since, as the filter leaves them.
        const model = new Map<string, string[] | undefined>();
        const raw = new Map<string, string[] | undefined>();
        for (const o of ops) {
          if (o.t === "put") {
            model.set(o.k, [o.v]);
            raw.set(o.k, [o.v]);
          } else if (o.t === "del") {
            model.delete(o.k);
            raw.delete(o.k);
          } else if (o.t === "merge") {
            db.merge(o.k, o.v);
            raw.set(o.k, [...(raw.get(o.k) ?? []), o.v]);
            if (o.v === "drop") continue;
            model.set(o.k, [...(model.get(o.k) ?? []), o.v === "up" ? "UP" : o.v]);
            continue;
          } else if (o.t === "flush") await db.flush();
          else await db.compactRange();
          if (o.t === "put") db.put(o.k, o.v);
          if (o.t === "del") db.delete(o.k);
        }
        await db.flush();
        await db.compactRange();
        for (const k of ["a", "b", "c"]) {
          const want = model.get(k);
          // A key whose only writes were removed operands is gone.
          expect(text(db.get(k)), k).toBe(
            want === undefined || want.length === 0 ? undefined : want.join(","),
          );
        }
        await db.close();
      }),
      { numRuns: 60 },
    );
  });
});
