/**
 * The write-buffer budget (`dbWriteBufferSize`, a shared `WriteBufferManager`): the memtables
 * of every family stay near the budget, the family with the oldest mutable memtable flushes
 * first (flush reason "WriteBufferManager"), nothing acknowledged is lost (reopen, SIGKILL),
 * two databases share one manager, and the accounting matches the live memtables after any
 * sequence of writes, flushes, drops and closes.
 */
import { MemoryFileSystem } from "@shale/base";
import { Random } from "@shale/base/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FlushJobInfo } from "../core/event-listeners.js";
import { WriteBufferManager } from "../core/write-buffer-manager.js";
import { DB } from "../db.js";
import {
  crashRounds,
  crashTestDir,
  fixturePath,
  runAndKill,
} from "../test-support/crash-runner.test-support.js";

const KIB = 1024;
const NAMES = ["default", "cf1", "cf2", "cf3"] as const;
const str = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : new TextDecoder().decode(v);
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** The bytes of memtables (mutable and immutable) of every family of `db`. */
function memtableBytes(db: DB): number {
  let n = 0;
  for (const name of db.listColumnFamilies())
    n += Number(db.columnFamily(name).getProperty("shale.size-all-mem-tables"));
  return n;
}

/** Four families of `writeBufferSize` each under a budget of `budget` bytes. */
function fourFamilies(fs: MemoryFileSystem, budget: number, flushes: FlushJobInfo[] = []) {
  return {
    fs,
    writeBufferSize: budget,
    dbWriteBufferSize: budget,
    createMissingColumnFamilies: true,
    columnFamilies: { cf1: {}, cf2: {}, cf3: {} },
    disableAutoCompactions: true,
    listeners: [{ onFlushCompleted: (info: FlushJobInfo) => flushes.push(info) }],
  };
}

describe("dbWriteBufferSize", () => {
  it("keeps four families' memtables near one family's write buffer; the oldest flushes first; all keys read back", async () => {
    const fs = new MemoryFileSystem();
    const budget = 256 * KIB;
    const flushes: FlushJobInfo[] = [];
    const db = await DB.open("/db", fourFamilies(fs, budget, flushes));
    const handles = NAMES.map((n) => db.columnFamily(n));
    const value = "v".repeat(KIB);
    const n = 4000;
    let peak = 0;
    let peakMutable = 0;
    let growth = 0;
    for (let i = 0; i < n; i++) {
      const before = Number(db.getProperty("shale.db-write-buffer-usage"));
      handles[i % 4]!.put(`k${String(i).padStart(6, "0")}`, `${value}${i}`);
      const usage = Number(db.getProperty("shale.db-write-buffer-usage"));
      growth = Math.max(growth, usage - before);
      peak = Math.max(peak, usage);
      peakMutable = Math.max(
        peakMutable,
        Number(db.getProperty("shale.db-write-buffer-mutable-usage")),
      );
      // The accounting is the memtables' own figure.
      expect(usage).toBe(memtableBytes(db));
      if (i % 16 === 15) await tick(); // flushes install
    }
    await tick();
    // Never above the budget by more than one memtable's growth in one write.
    expect(peak).toBeGreaterThan(budget / 2);
    expect(peak).toBeLessThanOrEqual(budget + growth);
    expect(peakMutable).toBeLessThanOrEqual(Math.floor((budget * 7) / 8) + growth);
    // Every flush was the budget's (no memtable reached its own writeBufferSize), and the
    // memtables were made in turn, so the oldest is always the next in turn: default, cf1,
    // cf2, cf3, default, ...
    const budgetFlushes = flushes.filter((f) => f.flushReason === "WriteBufferManager");
    expect(budgetFlushes.length).toBe(flushes.length);
    expect(budgetFlushes.length).toBeGreaterThan(8);
    expect(Number(db.getProperty("shale.db-write-buffer-flushes"))).toBe(budgetFlushes.length);
    const order = budgetFlushes.map((f) => f.cfName);
    expect(order).toEqual(order.map((_, i) => NAMES[i % 4]));
    await db.close();

    const reopened = await DB.open("/db", { ...fourFamilies(fs, budget), listeners: [] });
    for (let i = 0; i < n; i++)
      expect(str(reopened.columnFamily(NAMES[i % 4]!).get(`k${String(i).padStart(6, "0")}`))).toBe(
        `${value}${i}`,
      );
    // The replayed memtables are charged too.
    expect(Number(reopened.getProperty("shale.db-write-buffer-usage"))).toBe(
      memtableBytes(reopened),
    );
    await reopened.close();
  });

  it("picks the family whose mutable memtable is the oldest, skipping one with a flush under way", async () => {
    const fs = new MemoryFileSystem();
    const budget = 256 * KIB;
    const flushes: FlushJobInfo[] = [];
    const db = await DB.open("/db", fourFamilies(fs, budget, flushes));
    const value = "v".repeat(KIB);
    // cf2's memtable is made first (the others are flushed by hand after a write each), so
    // it is the oldest, though it holds the least.
    db.columnFamily("cf2").put("a", "x");
    for (const name of ["default", "cf1", "cf3"]) {
      db.columnFamily(name).put("a", "x");
      await db.columnFamily(name).flush();
    }
    let i = 0;
    while (!flushes.some((f) => f.flushReason === "WriteBufferManager")) {
      db.columnFamily(["default", "cf1", "cf3"][i % 3]!).put(`k${i}`, value);
      i++;
      if (i % 16 === 0) await tick();
    }
    const first = flushes.find((f) => f.flushReason === "WriteBufferManager")!;
    expect(first.cfName).toBe("cf2");
    await db.close();
  });

  it("with atomicFlush flushes every family together", async () => {
    const fs = new MemoryFileSystem();
    const budget = 128 * KIB;
    const flushes: FlushJobInfo[] = [];
    const db = await DB.open("/db", { ...fourFamilies(fs, budget, flushes), atomicFlush: true });
    const value = "v".repeat(KIB);
    for (let i = 0; i < 400; i++) {
      db.columnFamily(NAMES[i % 4]!).put(`k${i}`, value);
      if (i % 16 === 15) await tick();
    }
    await db.flush();
    const byBudget = flushes.filter((f) => f.flushReason === "WriteBufferManager");
    expect(byBudget.length).toBeGreaterThan(0);
    expect(byBudget.length % 4).toBe(0);
    expect(new Set(byBudget.map((f) => f.cfName))).toEqual(new Set(NAMES));
    await db.close();
  });

  it("is recorded in the OPTIONS file as db_write_buffer_size and taken from it when not given", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, dbWriteBufferSize: 123 * KIB });
    await db.close();
    const optionsFile = () => {
      const names = fs.list("/db").filter((n) => n.startsWith("OPTIONS-"));
      names.sort();
      return new TextDecoder().decode(fs.readFile(`/db/${names[names.length - 1]}`));
    };
    const text = optionsFile();
    const dbSection = text.slice(text.indexOf("[DBOptions]"), text.indexOf("[CFOptions"));
    expect(dbSection).toMatch(/^\s*db_write_buffer_size=125952$/m);
    const again = await DB.open("/db", { fs });
    expect(again.getProperty("shale.db-write-buffer-size")).toBe(String(123 * KIB));
    // A family created rewrites the OPTIONS file: the budget taken from it stays.
    await again.createColumnFamily("later");
    expect(optionsFile()).toMatch(/^\s*db_write_buffer_size=125952$/m);
    await again.close();
    const off = await DB.open("/db", { fs, dbWriteBufferSize: 0 });
    expect(off.getProperty("shale.db-write-buffer-size")).toBeUndefined();
    await off.close();
    expect(optionsFile()).toMatch(/^\s*db_write_buffer_size=0$/m);
  });

  it("without a budget: no properties, and nothing flushes for it", async () => {
    const db = await DB.open("/db", { fs: new MemoryFileSystem() });
    for (const p of ["size", "usage", "mutable-usage", "flushes", "stall-micros"])
      expect(db.getProperty(`shale.db-write-buffer-${p}`)).toBeUndefined();
    await db.close();
  });

  it(
    `loses nothing acknowledged when killed mid-fill (SIGKILL, ${crashRounds(4, 60)} rounds)`,
    async () => {
      const dir = crashTestDir("shale-crash-budget-");
      const rnd = new Random(20261207);
      const rounds = crashRounds(4, 60);
      const acked: number[] = [];
      let budgetFlushes = 0;
      for (let r = 0; r < rounds; r++) {
        // The first run lives until the budget flushed something, however slow the machine.
        const last = await runAndKill(
          fixturePath("crash-budget-writer.mjs"),
          [dir, String(r)],
          200 + rnd.uniform(600),
          (line) => {
            if (line.startsWith("flush ")) budgetFlushes++;
          },
          undefined,
          0,
          r === 0 ? "flush " : undefined,
        );
        acked.push(last);
        const db = await DB.open(dir, { createMissingColumnFamilies: true });
        try {
          for (let rr = 0; rr <= r; rr++)
            for (let i = 0; i <= acked[rr]!; i++)
              expect(
                db.columnFamily(NAMES[i % 4]!).get(`r${rr}-${i}`),
                `run ${rr} put ${i} was acknowledged`,
              ).toBeDefined();
        } finally {
          await db.close();
        }
      }
      expect(budgetFlushes).toBeGreaterThan(0);
    },
    30_000 + crashRounds(4, 60) * 4_000,
  );
});

describe("WriteBufferManager shared by two databases", () => {
  it("counts both; the busy one flushes its own oldest family; close releases its charge", async () => {
    const budget = 256 * KIB;
    const manager = new WriteBufferManager(budget);
    expect(manager.enabled()).toBe(true);
    expect(manager.bufferSize).toBe(budget);
    const flushesA: FlushJobInfo[] = [];
    const flushesB: FlushJobInfo[] = [];
    const open = (flushes: FlushJobInfo[]) =>
      DB.open("/db", {
        fs: new MemoryFileSystem(),
        writeBufferManager: manager,
        writeBufferSize: budget,
        disableAutoCompactions: true,
        listeners: [{ onFlushCompleted: (info: FlushJobInfo) => flushes.push(info) }],
      });
    const a = await open(flushesA);
    const b = await open(flushesB);
    const value = "v".repeat(KIB);
    // b holds a third of the budget, idle from now on.
    for (let i = 0; i < 80; i++) b.put(`b${i}`, value);
    const bBytes = memtableBytes(b);
    expect(manager.memoryUsage()).toBe(bBytes + memtableBytes(a));
    for (let i = 0; i < 2000; i++) {
      a.put(`a${i}`, value);
      expect(manager.memoryUsage()).toBe(memtableBytes(a) + memtableBytes(b));
      if (i % 16 === 15) await tick();
    }
    // RocksDB's rule: a database flushes only its own families, so b's memtable stays (b's
    // own next write would flush it, as it is the oldest it has) and a flushes sooner.
    expect(flushesA.filter((f) => f.flushReason === "WriteBufferManager").length).toBeGreaterThan(
      3,
    );
    expect(flushesB).toEqual([]);
    expect(memtableBytes(b)).toBe(bBytes);
    expect(a.getProperty("shale.db-write-buffer-usage")).toBe(String(manager.memoryUsage()));
    await a.close();
    expect(manager.memoryUsage()).toBe(bBytes);
    expect(manager.mutableMemtableMemoryUsage()).toBe(bBytes);
    // b is over half the budget now that the manager holds only b: its next write flushes it.
    b.put("b-last", "x");
    await b.flush();
    await b.close();
    expect(manager.memoryUsage()).toBe(0);
    expect(manager.mutableMemtableMemoryUsage()).toBe(0);
  });

  it("allowStall: a write waits for this database's flushes while the budget is taken", async () => {
    const budget = 128 * KIB;
    const manager = new WriteBufferManager(budget, { allowStall: true });
    const db = await DB.open("/db", {
      fs: new MemoryFileSystem(),
      writeBufferManager: manager,
      writeBufferSize: budget,
      maxWriteBufferNumber: 8,
      disableAutoCompactions: true,
      createMissingColumnFamilies: true,
      columnFamilies: { cf1: {}, cf2: {}, cf3: {} },
    });
    const value = "v".repeat(KIB);
    let peak = 0;
    let growth = 0;
    // No yields: flushes install only in the stalls' waits.
    for (let i = 0; i < 2000; i++) {
      const before = manager.memoryUsage();
      db.columnFamily(NAMES[i % 4]!).put(`k${i}`, value);
      growth = Math.max(growth, manager.memoryUsage() - before);
      peak = Math.max(peak, manager.memoryUsage());
    }
    expect(peak).toBeLessThanOrEqual(budget + growth);
    expect(Number(db.getProperty("shale.db-write-buffer-stall-micros"))).toBeGreaterThan(0);
    await db.close();
    expect(manager.memoryUsage()).toBe(0);
  });
});

describe("accounting (property)", () => {
  type Op =
    | { kind: "put"; db: number; family: number; bytes: number }
    | { kind: "flush"; db: number; family: number }
    | { kind: "drop"; db: number; family: number }
    | { kind: "reopen"; db: number }
    | { kind: "tick" };
  const op: fc.Arbitrary<Op> = fc.oneof(
    {
      weight: 12,
      arbitrary: fc.record({
        kind: fc.constant("put" as const),
        db: fc.integer({ min: 0, max: 1 }),
        family: fc.integer({ min: 0, max: 2 }),
        bytes: fc.integer({ min: 1, max: 6000 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("flush" as const),
        db: fc.integer({ min: 0, max: 1 }),
        family: fc.integer({ min: 0, max: 2 }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("drop" as const),
        db: fc.integer({ min: 0, max: 1 }),
        family: fc.integer({ min: 1, max: 2 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("reopen" as const), db: fc.nat(1) }) },
    { weight: 3, arbitrary: fc.constant({ kind: "tick" as const }) },
  );

  it("any writes, flushes, drops and closes leave memoryUsage() = the live memtables' bytes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        const manager = new WriteBufferManager(64 * KIB);
        const fss = [new MemoryFileSystem(), new MemoryFileSystem()];
        const open = (i: number) =>
          DB.open("/db", {
            fs: fss[i]!,
            writeBufferManager: manager,
            writeBufferSize: 64 * KIB,
            createMissingColumnFamilies: true,
            columnFamilies: { f1: {}, f2: {} },
          });
        const dbs = [await open(0), await open(1)];
        const live = () => dbs.reduce((n, db) => n + memtableBytes(db), 0);
        try {
          for (const o of ops) {
            if (o.kind === "tick") await tick();
            else if (o.kind === "reopen") {
              await dbs[o.db]!.close();
              expect(manager.memoryUsage()).toBe(memtableBytes(dbs[1 - o.db]!));
              dbs[o.db] = await open(o.db);
            } else {
              const db = dbs[o.db]!;
              const names = db.listColumnFamilies();
              const name = names[o.family % names.length]!;
              const cf = db.columnFamily(name);
              if (o.kind === "put") cf.put(`k${o.bytes}`, "x".repeat(o.bytes));
              else if (o.kind === "flush") await cf.flush({ wait: o.db === 0 });
              else if (name !== "default") await db.dropColumnFamily(name);
            }
            expect(manager.memoryUsage()).toBe(live());
          }
        } finally {
          for (const db of dbs) await db.close();
        }
        expect(manager.memoryUsage()).toBe(0);
        expect(manager.mutableMemtableMemoryUsage()).toBe(0);
      }),
      { numRuns: 40 },
    );
  });
});

describe("bad input", () => {
  it("both options together are InvalidArgument", async () => {
    await expect(
      DB.open("/db", {
        fs: new MemoryFileSystem(),
        dbWriteBufferSize: 1 << 20,
        writeBufferManager: new WriteBufferManager(1 << 20),
      }),
    ).rejects.toMatchObject({ code: "InvalidArgument" });
  });

  it.each([
    ["a string", "1", TypeError],
    ["null", null, TypeError],
    ["negative", -1, "InvalidArgument"],
    ["not an integer", 1.5, "InvalidArgument"],
    ["NaN", Number.NaN, "InvalidArgument"],
    ["Infinity", Number.POSITIVE_INFINITY, "InvalidArgument"],
  ])("new WriteBufferManager(%s)", (_what, size, expected) => {
    const make = () => new WriteBufferManager(size as number);
    if (expected === TypeError) expect(make).toThrow(TypeError);
    else expect(make).toThrow(expect.objectContaining({ code: expected }));
  });

  it("bad WriteBufferManager options", () => {
    expect(() => new WriteBufferManager(1, { allowStall: "yes" as never })).toThrow(TypeError);
    expect(() => new WriteBufferManager(1, 5 as never)).toThrow(TypeError);
    expect(() => new WriteBufferManager(1, { stall: true } as never)).toThrow(
      expect.objectContaining({ code: "InvalidArgument" }),
    );
  });

  it("a manager of 0 counts and flushes nothing for the budget", async () => {
    const manager = new WriteBufferManager(0);
    expect(manager.enabled()).toBe(false);
    const db = await DB.open("/db", { fs: new MemoryFileSystem(), writeBufferManager: manager });
    db.put("a", "b");
    expect(manager.memoryUsage()).toBe(memtableBytes(db));
    expect(db.getProperty("shale.db-write-buffer-flushes")).toBe("0");
    await db.close();
    expect(manager.memoryUsage()).toBe(0);
  });
});
