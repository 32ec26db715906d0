/**
 * Test helper for the fault tests (fault-sync.test.ts, fault-soak.test.ts): a deterministic
 * workload run against a database on `FaultInjectionFileSystem(MemoryFileSystem)`, a model
 * of what it acknowledged, and the check of a reopened database against that model.
 *
 * The workload (puts, overwrites, deletes, deleteRange, merges with "stringappend", a few
 * batches; every `syncEvery`-th write synced; flushes, compactRange and turns of the event
 * loop so background jobs run) stops at the first write or wait that throws: the database
 * failed. The trial then ends one of two ways:
 *
 * - `close`: `db.close()` (its error is recorded), the fault cleared, reopen. A write that
 *   returned is in the OS, so EVERY acknowledged operation must be present.
 * - `powercut`: the file system turns inactive (nothing more reaches it), the database is
 *   closed (to release the LOCK of the MemoryFileSystem), unsynced data is dropped, the
 *   fault cleared, reopen. Every operation up to the last acknowledged synced write must be
 *   present, and what is there must be a prefix of the acknowledged operations.
 *
 * In both, the operation that threw may or may not be present (its outcome is unknown), and
 * the recovered state must equal the model after some allowed prefix (prefix consistency).
 */
import { FaultInjectionFileSystem, MemoryFileSystem, ShaleError } from "@shale/base";
import { Random } from "@shale/base/testing";
import type { DbOptions } from "../core/options.js";
import { DB } from "../db.js";
import { WriteBatch } from "../write/write-batch.js";

/**
 * An operation; `cf` names its column family (absent: `default`). A batch's operations may
 * name different families (one atomic write across them).
 */
export type Op =
  | { kind: "put"; key: string; value: string; cf?: string }
  | { kind: "delete"; key: string; cf?: string }
  | { kind: "merge"; key: string; value: string; cf?: string }
  | { kind: "deleteRange"; start: string; end: string; cf?: string }
  | { kind: "batch"; ops: Op[] };

export const KEYS = 500;
export const keyOf = (i: number): string => `k${String(i).padStart(4, "0")}`;

/**
 * The column families of a workload over several: `default`, `busy` (most writes: its
 * memtable fills and flushes often) and `idle` (a few writes: its data stays in the WALs
 * across busy's flushes, which must keep them).
 */
export const SOAK_FAMILIES = ["default", "busy", "idle"] as const;

/** The database options of every fault trial (`families`: the workload's families). */
export function faultDbOptions(
  fs: FaultInjectionFileSystem,
  families?: WorkloadFamilies,
): DbOptions {
  const options: DbOptions = {
    fs,
    writeBufferSize: 64 * 1024,
    level0FileNumCompactionTrigger: 2,
    mergeOperator: "stringappend",
  };
  if (families === undefined) return options;
  return {
    ...options,
    createMissingColumnFamilies: true,
    columnFamilies: { busy: {}, idle: {} },
    ...(families.atomicFlush ? { atomicFlush: true } : {}),
  };
}

/** The model's key of `key` in family `cf` (`default`'s keys as they are). */
const modelKey = (cf: string | undefined, key: string): string =>
  cf === undefined || cf === "default" ? key : `${cf}/${key}`;

/** Applies `op` to the model (a key absent from the map is absent from the database). */
export function applyOp(model: Map<string, string>, op: Op, touched?: Set<string>): void {
  switch (op.kind) {
    case "put": {
      const k = modelKey(op.cf, op.key);
      model.set(k, op.value);
      touched?.add(k);
      return;
    }
    case "delete": {
      const k = modelKey(op.cf, op.key);
      model.delete(k);
      touched?.add(k);
      return;
    }
    case "merge": {
      const k = modelKey(op.cf, op.key);
      const old = model.get(k);
      model.set(k, old === undefined ? op.value : `${old},${op.value}`);
      touched?.add(k);
      return;
    }
    case "deleteRange":
      for (let i = 0; i < KEYS; i++) {
        const k = keyOf(i);
        if (k >= op.start && k < op.end) {
          const mk = modelKey(op.cf, k);
          model.delete(mk);
          touched?.add(mk);
        }
      }
      return;
    case "batch":
      for (const o of op.ops) applyOp(model, o, touched);
      return;
  }
}

/**
 * The next operation of the workload. With `families`, each operation (and each operation of
 * a batch) goes to `busy` 75 %, `default` 20 %, `idle` 5 % of the time; without, to
 * `default` (and no random choice is spent on it: the single-family runs stay as they were).
 */
export function randomOp(rnd: Random, serial: number, families?: WorkloadFamilies): Op {
  const family = (): { cf?: string } => {
    if (families === undefined) return {};
    const r = rnd.uniform(100);
    return { cf: r < 75 ? "busy" : r < 95 ? "default" : "idle" };
  };
  const key = keyOf(rnd.uniform(KEYS));
  const value = `v${serial}-${"x".repeat(40 + rnd.uniform(160))}`;
  const r = rnd.uniform(100);
  if (r < 50) return { kind: "put", key, value, ...family() };
  if (r < 65) return { kind: "delete", key, ...family() };
  if (r < 85) return { kind: "merge", key, value: `m${serial}`, ...family() };
  if (r < 90) {
    const a = rnd.uniform(KEYS);
    return {
      kind: "deleteRange",
      start: keyOf(a),
      end: keyOf(a + 1 + rnd.uniform(12)),
      ...family(),
    };
  }
  const ops: Op[] = [];
  const n = 2 + rnd.uniform(4);
  for (let i = 0; i < n; i++) {
    const k = keyOf(rnd.uniform(KEYS));
    ops.push(
      rnd.oneIn(3)
        ? { kind: "delete", key: k, ...family() }
        : {
            kind: "put",
            key: k,
            value: `b${serial}.${i}-${"y".repeat(rnd.uniform(100))}`,
            ...family(),
          },
    );
  }
  return { kind: "batch", ops };
}

/** The database itself for `default`, else the family's handle. */
function target(db: DB, cf: string | undefined) {
  return cf === undefined || cf === "default" ? db : db.columnFamily(cf);
}

function writeOp(db: DB, op: Op, sync: boolean): void {
  const wo = sync ? { sync: true } : undefined;
  switch (op.kind) {
    case "put":
      target(db, op.cf).put(op.key, op.value, wo);
      return;
    case "delete":
      target(db, op.cf).delete(op.key, wo);
      return;
    case "merge":
      target(db, op.cf).merge(op.key, op.value, wo);
      return;
    case "deleteRange":
      target(db, op.cf).deleteRange(op.start, op.end, wo);
      return;
    case "batch": {
      const b = new WriteBatch();
      for (const o of op.ops) {
        if (o.kind === "batch") continue; // batches hold puts and deletes only
        const h = o.cf === undefined || o.cf === "default" ? undefined : db.columnFamily(o.cf);
        if (o.kind === "put") b.put(o.key, o.value, h);
        else if (o.kind === "delete") b.delete(o.key, h);
      }
      db.write(b, wo);
      return;
    }
  }
}

/** What a run of the workload acknowledged. */
export interface RunLog {
  /** Operations whose call returned, in order. */
  acked: Op[];
  /** How many of `acked` must survive a power cut (those up to the last synced one). */
  syncedPrefix: number;
  /** The operation that threw (its outcome is unknown), if any. */
  inFlight: Op | undefined;
  /** The first error the workload saw (undefined: it completed). */
  error: unknown;
}

/** A workload over several column families (SOAK_FAMILIES). */
export interface WorkloadFamilies {
  /** Open with `atomicFlush` (every flush takes every family with data). Default: false. */
  atomicFlush?: boolean;
}

export interface WorkloadOptions {
  /** Column families besides `default` (SOAK_FAMILIES). Default: `default` only. */
  families?: WorkloadFamilies;
  seed: number;
  ops: number;
  /** Every n-th write is synced. */
  syncEvery: number;
  /** Every n-th op, a turn of the event loop (background jobs run). */
  yieldEvery: number;
  /** Every n-th op, `await db.flush()`. */
  flushEvery: number;
  /** Every n-th op, `await db.compactRange()`. */
  compactEvery: number;
}

const turn = () => new Promise<void>((r) => setImmediate(r));

/**
 * Runs the workload on `db` until it completes or something throws. `before(i)` is called
 * before op i (a trial arms its fault there).
 */
export async function runWorkload(
  db: DB,
  w: WorkloadOptions,
  log: RunLog,
  before?: (i: number) => void,
): Promise<void> {
  const rnd = new Random(w.seed);
  for (let i = 0; i < w.ops; i++) {
    before?.(i);
    const op = randomOp(rnd, i, w.families);
    const sync = (i + 1) % w.syncEvery === 0;
    try {
      writeOp(db, op, sync);
    } catch (e) {
      log.inFlight = op;
      log.error = e;
      return;
    }
    log.acked.push(op);
    if (sync) log.syncedPrefix = log.acked.length;
    try {
      if ((i + 1) % w.yieldEvery === 0) await turn();
      if ((i + 1) % w.flushEvery === 0) {
        await db.flush();
        // With families: busy's own flush too (the others' data stays in the WALs).
        if (w.families !== undefined) await db.columnFamily("busy").flush();
      }
      if ((i + 1) % w.compactEvery === 0) await db.compactRange();
    } catch (e) {
      log.error = e;
      return;
    }
  }
}

export type Outcome =
  /** The fault never fired: the workload completed. */
  | "no-fault"
  /** The fault fired; the reopened database holds an allowed state. */
  | "recovered"
  /** The reopened database misses or invents writes. */
  | "lost"
  /** The reopen failed. */
  | "open-failed"
  /** A read of the reopened database failed (e.g. a table it needs is gone). */
  | "read-failed";

export interface CheckResult {
  outcome: "recovered" | "lost" | "open-failed" | "read-failed";
  /** Keys that differ from the nearest allowed state (0 unless "lost"). */
  lostKeys: number;
  detail: string;
}

/**
 * Reopens the database and checks it against the model: it must equal the model after
 * `k` acknowledged ops for some k in [required, acked.length] (or after all of them plus
 * the in-flight op).
 */
export async function reopenAndCheck(
  fs: FaultInjectionFileSystem,
  log: RunLog,
  required: number,
  families?: WorkloadFamilies,
): Promise<CheckResult> {
  let db: DB;
  try {
    db = await DB.open("/db", faultDbOptions(fs, families));
  } catch (e) {
    return { outcome: "open-failed", lostKeys: 0, detail: String(e) };
  }
  const got = new Map<string, string>();
  const names = families === undefined ? ["default"] : SOAK_FAMILIES;
  const keys: string[] = [];
  for (const cf of names) for (let i = 0; i < KEYS; i++) keys.push(modelKey(cf, keyOf(i)));
  try {
    const dec = new TextDecoder();
    for (const cf of names) {
      const source = target(db, cf);
      let inFamily = 0;
      for (let i = 0; i < KEYS; i++) {
        const v = source.get(keyOf(i));
        if (v !== undefined) {
          got.set(modelKey(cf, keyOf(i)), dec.decode(v));
          inFamily++;
        }
      }
      let n = 0;
      for (const [k, v] of source.iterator()) {
        const key = modelKey(cf, dec.decode(k));
        if (got.get(key) !== dec.decode(v)) {
          return { outcome: "read-failed", lostKeys: 0, detail: `iterator disagrees at ${key}` };
        }
        n++;
      }
      if (n !== inFamily) {
        return {
          outcome: "read-failed",
          lostKeys: 0,
          detail: `iterator of ${cf} saw ${n}/${inFamily}`,
        };
      }
    }
  } catch (e) {
    return { outcome: "read-failed", lostKeys: 0, detail: String(e) };
  } finally {
    await db.close();
  }
  const model = new Map<string, string>();
  for (let i = 0; i < required; i++) applyOp(model, log.acked[i]!);
  const differs = new Set<string>();
  for (const k of keys) if (model.get(k) !== got.get(k)) differs.add(k);
  let best = differs.size;
  let bestAt = required;
  const step = (op: Op, at: number): boolean => {
    const touched = new Set<string>();
    applyOp(model, op, touched);
    for (const k of touched) {
      if (model.get(k) !== got.get(k)) differs.add(k);
      else differs.delete(k);
    }
    if (differs.size < best) {
      best = differs.size;
      bestAt = at;
    }
    return differs.size === 0;
  };
  if (differs.size === 0) return { outcome: "recovered", lostKeys: 0, detail: "" };
  for (let i = required; i < log.acked.length; i++) {
    if (step(log.acked[i]!, i + 1)) return { outcome: "recovered", lostKeys: 0, detail: "" };
  }
  if (log.inFlight !== undefined && step(log.inFlight, log.acked.length + 1)) {
    return { outcome: "recovered", lostKeys: 0, detail: "" };
  }
  // Describe the nearest allowed state's differences.
  const near = new Map<string, string>();
  for (let i = 0; i < Math.min(bestAt, log.acked.length); i++) applyOp(near, log.acked[i]!);
  const examples: string[] = [];
  for (const k of keys) {
    if (examples.length >= 3) break;
    if (near.get(k) !== got.get(k)) {
      examples.push(`${k}: want ${near.get(k)?.slice(0, 12)} got ${got.get(k)?.slice(0, 12)}`);
    }
  }
  return {
    outcome: "lost",
    lostKeys: best,
    detail: `${best} keys differ (nearest prefix ${bestAt}/${log.acked.length}, required ${required}); ${examples.join("; ")}`,
  };
}

/**
 * A fault of a trial: the n-th write, sync or either ("any") fails, then the trial ends with
 * a close or a power cut (a failure of "any" followed by a power cut is a power cut at that
 * instant, possibly inside a flush or compaction); or a power cut before op n.
 */
export type FaultClass =
  | { op: "write" | "sync" | "any"; errno: "EIO" | "ENOSPC"; end: "close" | "powercut" }
  | { op: "powercut" };

export interface TrialResult {
  outcome: Outcome;
  lostKeys: number;
  detail: string;
  /** `close()` rejected (after the fault). */
  closeRejected: boolean;
  error: unknown;
  acked: number;
  /** With `recoveryCut`: the interrupted reopen's error (undefined: it completed). */
  recoveryError: unknown;
}

/**
 * One trial: fresh file system, open, run the workload with the fault armed before op
 * `armAt` (`failAfter(op, n)`; or, for "powercut", a power cut before op `armAt`), then end
 * the trial as the fault class says and check the reopened database. `recoveryCut`: the
 * first reopen is cut by a power cut at its `recoveryCut`-th write or sync, and the check
 * is of the reopen after that.
 */
export async function runTrial(
  w: WorkloadOptions,
  fault: FaultClass,
  armAt: number,
  n: number,
  recoveryCut?: number,
): Promise<TrialResult> {
  const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
  const db = await DB.open("/db", faultDbOptions(fs, w.families));
  const log: RunLog = { acked: [], syncedPrefix: 0, inFlight: undefined, error: undefined };
  let cut = false;
  await runWorkload(db, w, log, (i) => {
    if (i !== armAt) return;
    if (fault.op === "powercut") {
      cut = true;
      fs.setFilesystemActive(false);
    } else fs.failAfter(fault.op, n, fault.errno);
  });
  if (cut && log.error === undefined) log.error = new Error("power cut");
  const fired = log.error !== undefined;
  const powercut = fault.op === "powercut" || fault.end === "powercut";
  let closeRejected = false;
  if (powercut) fs.setFilesystemActive(false);
  try {
    await db.close();
  } catch {
    closeRejected = true;
  }
  if (powercut) fs.dropUnsyncedData();
  fs.clearFaults();
  let required = powercut ? log.syncedPrefix : log.acked.length;
  let recoveryError: unknown;
  if (recoveryCut !== undefined) {
    // Everything acknowledged is on disk now (a clean close synced the WAL) or was cut
    // already; a power cut during the reopen must not lose any of it.
    fs.failAfter("any", recoveryCut, "EIO");
    try {
      const interrupted = await DB.open("/db", faultDbOptions(fs, w.families));
      await interrupted.close().catch(() => undefined);
    } catch (e) {
      recoveryError = e;
    }
    fs.setFilesystemActive(false);
    fs.dropUnsyncedData();
    fs.clearFaults();
    if (!powercut && closeRejected) required = log.syncedPrefix;
  }
  const check = await reopenAndCheck(fs, log, required, w.families);
  const outcome: Outcome = !fired && check.outcome === "recovered" ? "no-fault" : check.outcome;
  return {
    outcome,
    lostKeys: check.lostKeys,
    detail: check.detail,
    closeRejected,
    error: log.error,
    acked: log.acked.length,
    recoveryError,
  };
}

/** A short description of an error for reports: its code and the first line. */
export function describeError(e: unknown): string {
  if (e === undefined) return "-";
  if (ShaleError.isInstance(e)) return `${e.code}: ${e.message.split("\n")[0]!.slice(0, 100)}`;
  return String(e).slice(0, 100);
}
