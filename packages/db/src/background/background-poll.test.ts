/**
 * Background results taken without the event loop (background/executor.ts `finished`,
 * db.ts `takeFinished`): a synchronous loop of operations — which never lets the event loop
 * turn — still installs finished flushes and compactions and starts the next jobs, and what
 * it installs mid-loop never changes an answer. These run on the node file system (worker
 * threads); nothing here awaits between the operations it checks.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ShaleError } from "@shale/base";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";

const tmp = mkdtempSync(join(tmpdir(), "shale-poll-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let dirs = 0;
const newDir = () => join(tmp, `db${dirs++}`);

const key = (i: number) => `key${String(i).padStart(7, "0")}`;
const value = (i: number, round = 0) => `value-${round}-${i}-${"x".repeat(80)}`;
const str = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

const l0 = (db: DB) => db.debugVersion().numFiles(0);
const imm = (db: DB) => Number(db.getProperty("shale.num-immutable-mem-table"));
/** Busy-waits (synchronously) for `ms`: the event loop does not turn. */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {}
}

describe("background results installed inside a synchronous loop", () => {
  it("a loop of puts filling several memtables, then gets, sees the flushes installed before it ends", async () => {
    const db = await DB.open(newDir(), {
      writeBufferSize: 64 * 1024,
      // Room for every memtable: no write stop, whose synchronous wait would take results anyway.
      maxWriteBufferNumber: 16,
      disableAutoCompactions: true,
    });
    expect(db.debugVersion().numFiles(0)).toBe(0);
    // ~4 memtables' worth; the last put returns with memtables queued for flush.
    const n = 2800;
    for (let i = 0; i < n; i++) db.put(key(i), value(i));
    const queued = imm(db) + l0(db);
    expect(queued).toBeGreaterThanOrEqual(3);
    // Gets until every sealed memtable is on L0 (flushes chain: each install starts the
    // next), with time for the workers; no await anywhere.
    const deadline = performance.now() + 20_000;
    let gets = 0;
    while ((imm(db) > 0 || l0(db) < queued) && performance.now() < deadline) {
      const i = gets++ % n;
      expect(str(db.get(key(i)))).toBe(value(i));
      if (gets % 64 === 0) spin(1);
    }
    expect(l0(db)).toBe(queued);
    expect(imm(db)).toBe(0);
    for (let i = 0; i < n; i += 97) expect(str(db.get(key(i)))).toBe(value(i));
    await db.close();
  });

  it("close with memtables queued behind a running flush installs that flush and starts no other", async () => {
    const dir = newDir();
    const db = await DB.open(dir, {
      writeBufferSize: 64 * 1024,
      maxWriteBufferNumber: 16,
      disableAutoCompactions: true,
    });
    for (let i = 0; i < 2800; i++) db.put(key(i), value(i));
    expect(imm(db)).toBeGreaterThanOrEqual(2);
    // Before: the running flush's install started the next flush on the closed executor,
    // and close() threw Closed.
    await db.close();
    const again = await DB.open(dir);
    for (let i = 0; i < 2800; i += 53) expect(str(again.get(key(i)))).toBe(value(i));
    await again.close();
  });

  it("a worker's failed flush, taken inside a loop of puts, is the background error of the next put", async () => {
    const dir = newDir();
    const db = await DB.open(dir, {
      writeBufferSize: 64 * 1024,
      maxWriteBufferNumber: 16,
      disableAutoCompactions: true,
    });
    // The flush's table cannot be created: every table name it could take is a directory.
    for (let n = 1; n < 40; n++) mkdirSync(join(dir, `${String(n).padStart(6, "0")}.sst`));
    let thrown: unknown;
    let i = 0;
    // ~5 memtables: far from the memtable stop (16), whose synchronous wait takes results.
    for (; i < 3500; i++) {
      try {
        db.put(key(i), value(i));
      } catch (e) {
        thrown = e;
        break;
      }
      if (i % 32 === 0) spin(1);
    }
    // A loaded machine may not have run the worker's job yet: a put every 20 ms (about a
    // memtable in 7 s) until it has, still far from the stop.
    const deadline = performance.now() + 30_000;
    while (thrown === undefined && performance.now() < deadline) {
      spin(20);
      try {
        db.put(key(i), value(i));
        i++;
      } catch (e) {
        thrown = e;
      }
    }
    expect(ShaleError.isInstance(thrown)).toBe(true);
    const error = thrown as ShaleError;
    expect(error.code).toBe("IOError");
    expect(error.message).toMatch(/a background job failed; the database is read-only/);
    // Every refused call reports the same error; reads go on.
    expect(() => db.put("x", "y")).toThrow(error);
    expect(str(db.get(key(0)))).toBe(value(0));
    await expect(db.close()).rejects.toBe(error);
    // Every acknowledged write is recovered.
    for (let n = 1; n < 40; n++)
      rmSync(join(dir, `${String(n).padStart(6, "0")}.sst`), { recursive: true, force: true });
    const again = await DB.open(dir);
    for (let k = 0; k < i; k += 31) expect(str(again.get(key(k)))).toBe(value(k));
    expect(str(again.get(key(i - 1)))).toBe(value(i - 1));
    await again.close();
  });

  it("iterator seeks take finished flushes too", async () => {
    const db = await DB.open(newDir(), {
      writeBufferSize: 64 * 1024,
      maxWriteBufferNumber: 16,
      disableAutoCompactions: true,
    });
    for (let i = 0; i < 1500; i++) db.put(key(i), value(i));
    const queued = imm(db) + l0(db);
    expect(queued).toBeGreaterThanOrEqual(2);
    const it = db.iterator();
    const deadline = performance.now() + 20_000;
    let seeks = 0;
    while (imm(db) > 0 && performance.now() < deadline) {
      const i = (seeks++ * 7919) % 1500;
      it.seek(key(i));
      expect(str(it.key())).toBe(key(i));
      expect(str(it.value())).toBe(value(i));
      if (seeks % 64 === 0) spin(1);
    }
    expect(imm(db)).toBe(0);
    expect(l0(db)).toBe(queued);
    // The iterator still reads what it pinned (the memtables now flushed).
    it.seekToFirst();
    let count = 0;
    for (; it.valid(); it.next()) count++;
    expect(count).toBe(1500);
    it.close();
    await db.close();
  });

  it("L0 stays within the stop trigger through writes and a long read loop, and compactions catch up during the reads", async () => {
    const stop = 8;
    const trigger = 2;
    const db = await DB.open(newDir(), {
      writeBufferSize: 64 * 1024,
      maxWriteBufferNumber: 3,
      level0FileNumCompactionTrigger: trigger,
      level0SlowdownWritesTrigger: 6,
      level0StopWritesTrigger: stop,
      maxBackgroundJobs: 2,
      targetFileSizeBase: 256 * 1024,
      maxBytesForLevelBase: 1024 * 1024,
    });
    let maxL0 = 0;
    const n = 20_000; // ~2.6 MB of memtable: ~40 flushes, compactions from L0 to L1 and L2
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < n; i++) {
        db.put(key((i * 7) % n), value((i * 7) % n, round));
        const files = l0(db);
        if (files > maxL0) maxL0 = files;
      }
    }
    expect(maxL0).toBeLessThanOrEqual(stop);
    // The read loop: gets and seeks until no flush or compaction is due or running.
    const settled = () =>
      imm(db) === 0 &&
      l0(db) < trigger &&
      db.getProperty("shale.compaction-pending") === "0" &&
      db.getProperty("shale.num-running-compactions") === "0" &&
      db.getProperty("shale.num-running-flushes") === "0";
    const it = db.iterator();
    const deadline = performance.now() + 60_000;
    let reads = 0;
    while (!settled() && performance.now() < deadline) {
      const i = (reads++ * 104729) % n;
      expect(str(db.get(key(i)))).toBe(value(i, 1));
      if (reads % 16 === 0) {
        it.seek(key(i));
        expect(str(it.key())).toBe(key(i));
      }
      const files = l0(db);
      if (files > maxL0) maxL0 = files;
      if (reads % 64 === 0) spin(1);
    }
    it.close();
    expect(settled()).toBe(true);
    expect(maxL0).toBeLessThanOrEqual(stop);
    for (let i = 0; i < n; i += 101) expect(str(db.get(key(i)))).toBe(value(i, 1));
    await db.close();
  }, 120_000);

  it("results installed mid-loop do not change answers (model)", async () => {
    type Op =
      | { t: "put"; k: number; v: number }
      | { t: "del"; k: number }
      | { t: "get"; k: number }
      | { t: "seek"; k: number }
      | { t: "iter" }
      | { t: "spin" };
    const op: fc.Arbitrary<Op> = fc.oneof(
      {
        weight: 10,
        arbitrary: fc.record({ t: fc.constant("put" as const), k: fc.nat(599), v: fc.nat() }),
      },
      { weight: 2, arbitrary: fc.record({ t: fc.constant("del" as const), k: fc.nat(599) }) },
      { weight: 5, arbitrary: fc.record({ t: fc.constant("get" as const), k: fc.nat(599) }) },
      { weight: 2, arbitrary: fc.record({ t: fc.constant("seek" as const), k: fc.nat(599) }) },
      { weight: 1, arbitrary: fc.constant({ t: "iter" as const }) },
      { weight: 1, arbitrary: fc.constant({ t: "spin" as const }) },
    );
    let installedMidLoop = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 2000, maxLength: 5000 }), async (ops) => {
        const db = await DB.open(newDir(), {
          writeBufferSize: 64 * 1024,
          maxWriteBufferNumber: 4,
          level0FileNumCompactionTrigger: 2,
          targetFileSizeBase: 64 * 1024,
          maxBytesForLevelBase: 256 * 1024,
        });
        try {
          const model = new Map<string, string>();
          let it = db.iterator();
          let snapModel = new Map(model);
          const version0 = db.debugVersion();
          for (const o of ops) {
            if (o.t === "put") {
              const v = value(o.v);
              db.put(key(o.k), v);
              model.set(key(o.k), v);
            } else if (o.t === "del") {
              db.delete(key(o.k));
              model.delete(key(o.k));
            } else if (o.t === "get") {
              expect(str(db.get(key(o.k)))).toBe(model.get(key(o.k)));
            } else if (o.t === "seek") {
              // A long-lived iterator: it must keep reading its snapshot whatever installs.
              it.seek(key(o.k));
              const want = [...snapModel.keys()].filter((k) => k >= key(o.k)).sort()[0];
              expect(it.valid() ? str(it.key()) : undefined).toBe(want);
              if (want !== undefined) expect(str(it.value())).toBe(snapModel.get(want));
            } else if (o.t === "iter") {
              it.close();
              it = db.iterator();
              snapModel = new Map(model);
            } else {
              spin(2);
            }
          }
          if (db.debugVersion() !== version0) installedMidLoop++;
          it.close();
          // A fresh iterator agrees with the model after everything.
          const all: [string, string][] = [];
          const it2 = db.iterator();
          for (it2.seekToFirst(); it2.valid(); it2.next())
            all.push([str(it2.key())!, str(it2.value())!]);
          it2.close();
          expect(all).toEqual([...model.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
        } finally {
          await db.close();
        }
      }),
      { numRuns: 6, endOnFailure: true },
    );
    // Installs did happen inside the loops (else this test proves nothing).
    expect(installedMidLoop).toBeGreaterThan(0);
  }, 120_000);
});
