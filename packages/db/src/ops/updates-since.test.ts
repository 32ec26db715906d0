/**
 * The change feed (`db.getUpdatesSince`) over live and archived WALs: a model test that
 * replays the feed into an empty database and finds the same contents (across flushes,
 * compactions and reopens); the batch containing the sequence asked for comes whole; a
 * hole is NotFound naming the sequence, never skipped; tailing the WAL being written.
 */
import { MemoryFileSystem, ShaleError } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringAppendOperator } from "../core/merge-operator.js";
import { DB } from "../db.js";
import { WriteBatch } from "../write/write-batch.js";

const merge = stringAppendOperator();
const options = {
  writeBufferSize: 64 * 1024,
  walTtlSeconds: 3600,
  mergeOperator: merge,
} as const;

const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : Buffer.from(b).toString();

/** Every key and value of `db`, as strings. */
function contents(db: DB): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of db.iterator()) out.push([text(k)!, text(v)!]);
  return out;
}

/** Applies the feed from `sequence` to `target`; returns the sequences seen, checking order. */
function replay(source: DB, target: DB, sequence: number): number[] {
  const seen: number[] = [];
  let next: number | undefined;
  for (const { sequence: seq, batch } of source.getUpdatesSince(sequence)) {
    if (next !== undefined) expect(seq).toBe(next);
    next = seq + batch.count;
    seen.push(seq);
    target.write(batch);
  }
  return seen;
}

async function thrown(f: () => unknown): Promise<ShaleError> {
  try {
    await f();
  } catch (e) {
    if (ShaleError.isInstance(e)) return e;
    throw e;
  }
  throw new Error("expected a ShaleError");
}

const key = fc.integer({ min: 0, max: 40 }).map((n) => `k${String(n).padStart(3, "0")}`);
const command = fc.oneof(
  { weight: 8, arbitrary: fc.record({ c: fc.constant("put" as const), k: key, n: fc.nat(3000) }) },
  { weight: 2, arbitrary: fc.record({ c: fc.constant("delete" as const), k: key }) },
  { weight: 2, arbitrary: fc.record({ c: fc.constant("merge" as const), k: key, n: fc.nat(99) }) },
  { weight: 1, arbitrary: fc.record({ c: fc.constant("range" as const), a: key, b: key }) },
  {
    weight: 2,
    arbitrary: fc.record({ c: fc.constant("batch" as const), ks: fc.array(key, { maxLength: 6 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ c: "flush" as const }) },
  { weight: 1, arbitrary: fc.constant({ c: "compact" as const }) },
  { weight: 1, arbitrary: fc.constant({ c: "reopen" as const }) },
);

describe("db.getUpdatesSince", () => {
  it("replayed from 0 into an empty database gives the same contents (model)", async () => {
    let run = 0;
    let archived = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 80 }), fc.nat(), async (drawn, pick) => {
        // Every run reopens at least once, somewhere in it (the end included).
        const where = pick % (drawn.length + 1);
        const cmds = [...drawn.slice(0, where), { c: "reopen" as const }, ...drawn.slice(where)];
        const fs = new MemoryFileSystem();
        const dir = `/src${run++}`;
        let db = await DB.open(dir, { fs, ...options });
        for (const cmd of cmds) {
          switch (cmd.c) {
            case "put":
              // Large values now and then: memtable switches and WAL rolls mid-run.
              db.put(cmd.k, "v".repeat(cmd.n % 7 === 0 ? cmd.n * 10 : 8) + cmd.n);
              break;
            case "delete":
              db.delete(cmd.k);
              break;
            case "merge":
              db.merge(cmd.k, `m${cmd.n}`);
              break;
            case "range":
              db.deleteRange(cmd.a < cmd.b ? cmd.a : cmd.b, cmd.a < cmd.b ? cmd.b : cmd.a);
              break;
            case "batch": {
              const b = new WriteBatch();
              for (const k of cmd.ks) b.put(k, `b-${k}`);
              if (cmd.ks.length > 1) b.delete(cmd.ks[0]!);
              db.write(b);
              break;
            }
            case "flush":
              await db.flush();
              break;
            case "compact":
              await db.compactRange();
              break;
            case "reopen":
              await db.close();
              db = await DB.open(dir, { fs, ...options });
              break;
          }
        }
        if (fs.exists(`${dir}/archive`)) archived += fs.list(`${dir}/archive`).length;
        const target = await DB.open(`/dst${run}`, { fs, mergeOperator: merge });
        const seqs = replay(db, target, 0);
        expect(contents(target)).toEqual(contents(db));
        const last = db.getProperty("shale.latest-sequence");
        if (seqs.length > 0) {
          expect(seqs[0]).toBe(1);
          // From any sequence: the first batch is the one containing it.
          const at = 1 + (pick % Number(last));
          const it = db.getUpdatesSince(at);
          const first = it.read()!;
          expect(first.sequence).toBeLessThanOrEqual(at);
          expect(first.sequence + first.batch.count).toBeGreaterThan(at);
          it.close();
        }
        await target.close();
        await db.close();
      }),
      { numRuns: 40 },
    );
    // The runs did cross archived WALs: 29-47 over 40 random runs, each with its reopen.
    // Reopens need no count: every run has one by construction.
    expect(archived).toBeGreaterThan(10);
  }, 120_000);

  it("returns the batch containing the sequence whole, then every later one", async () => {
    const db = await DB.open("/d", { fs: new MemoryFileSystem() });
    db.put("a", "1"); // 1
    db.write(new WriteBatch().put("b", "2").put("c", "3").delete("a")); // 2..4
    db.put("d", "4"); // 5
    const got = [...db.getUpdatesSince(3)].map(({ sequence, batch }) => ({
      sequence,
      ops: [...batch].map((o) => `${o.type} ${text(o.key)}`),
    }));
    expect(got).toEqual([
      { sequence: 2, ops: ["put b", "put c", "delete a"] },
      { sequence: 5, ops: ["put d"] },
    ]);
    expect(WriteBatch.sequence(db.getUpdatesSince(5).read()!.batch.data())).toBe(5);
    await db.close();
  });

  it("tails the WAL being written, across a flush that archives it", async () => {
    const db = await DB.open("/t", { fs: new MemoryFileSystem(), walTtlSeconds: 60 });
    const it = db.getUpdatesSince(1);
    expect(it.read()).toBeUndefined();
    db.put("a", "1");
    expect(it.read()?.sequence).toBe(1);
    expect(it.read()).toBeUndefined();
    db.put("b", "2");
    await db.flush(); // the WAL holding 1 and 2 goes to archive/
    db.put("c", "3");
    expect([it.read()?.sequence, it.read()?.sequence, it.read()]).toEqual([2, 3, undefined]);
    it.close();
    expect(() => it.read()).toThrow(/closed/);
    await db.close();
  });

  it("reads on in a compressed WAL (walCompression) from where the last read stopped", async () => {
    const db = await DB.open("/z", { fs: new MemoryFileSystem(), walCompression: "zstd" });
    const it = db.getUpdatesSince(0);
    const seen: string[] = [];
    for (let i = 0; i < 20; i++) {
      db.put(`k${i}`, "v".repeat(i * 500));
      for (let u = it.read(); u !== undefined; u = it.read())
        for (const op of u.batch) seen.push(text(op.key)!);
    }
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => `k${i}`));
    it.close();
    await db.close();
  });

  it("is NotFound, naming the oldest sequence available, once the WALs are gone", async () => {
    const db = await DB.open("/g", { fs: new MemoryFileSystem() }); // no archive
    db.put("a", "1");
    db.put("b", "2");
    await db.flush(); // 000004.log deleted
    db.put("c", "3");
    const e = await thrown(() => db.getUpdatesSince(1));
    expect(e.code).toBe("NotFound");
    expect(e.message).toMatch(
      /sequence 1 is no longer in the WALs: the oldest sequence available is 3/,
    );
    expect(db.getUpdatesSince(3).read()?.sequence).toBe(3);
    await db.flush();
    const none = await thrown(() => db.getUpdatesSince(2));
    expect(none.message).toMatch(/oldest sequence available is 4 \(none written since\)/);
    expect(db.getUpdatesSince(4).read()).toBeUndefined();
    const ahead = await thrown(() => db.getUpdatesSince(9));
    expect(ahead.code).toBe("NotFound");
    expect(ahead.message).toMatch(/not written yet/);
    await db.close();
  });

  it("stops with NotFound at a hole (a write with disableWAL), never past it", async () => {
    const db = await DB.open("/h", { fs: new MemoryFileSystem() });
    db.put("a", "1");
    db.put("b", "2", { disableWAL: true });
    db.put("c", "3");
    const it = db.getUpdatesSince(1);
    expect(it.read()?.sequence).toBe(1);
    const e = await thrown(() => it.read());
    expect(e.code).toBe("NotFound");
    expect(e.message).toMatch(/no batch with sequence 2 \(the next one available starts at 3/);
    await db.close();
  });

  it("checks its argument and the database", async () => {
    const db = await DB.open("/x", { fs: new MemoryFileSystem() });
    expect(() => db.getUpdatesSince("1" as unknown as number)).toThrow(TypeError);
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 60])
      expect((await thrown(() => db.getUpdatesSince(bad))).code).toBe("InvalidArgument");
    db.put("a", utf8("1"));
    const it = db.getUpdatesSince(0);
    await db.close();
    expect((await thrown(() => it.read())).code).toBe("Closed");
  });

  it("iterates asynchronously and closes when a loop leaves early", async () => {
    const db = await DB.open("/y", { fs: new MemoryFileSystem() });
    for (let i = 0; i < 5; i++) db.put(`k${i}`, "v");
    const seen: number[] = [];
    const it = db.getUpdatesSince(0);
    for await (const { sequence } of it) {
      seen.push(sequence);
      if (sequence === 3) break;
    }
    expect(seen).toEqual([1, 2, 3]);
    expect(it.closed).toBe(true);
    await db.close();
  });
});
