/**
 * Generates a metamorphic test's operation list from a seed (ops.ts lists the operations).
 *
 * Keys come from a pool drawn per seed: two letters of "abcd" (the prefix of prefix seeks)
 * and zero to two digits, so neighbours share prefixes and seeks land between keys. Values
 * are short, or now and then 200 B-2 KiB so memtables fill and switch on their own. About
 * one write in ten is synced. Every operation is one the Tracker allows at its point, so a
 * correct database runs the whole list (single deletes only where RocksDB's contract holds).
 */
import { Random } from "@shale/base/testing/random";
import type { IngestWrite, IterStep, Op, WriteOp } from "./ops.js";
import { Tracker } from "./tracker.js";

export interface GenerateOptions {
  seed: number;
  /** Operations to generate. */
  ops: number;
}

const LETTERS = "abcd";

/** The key pool of a seed: 24-48 distinct keys, each at least PREFIX_LENGTH long. */
function keyPool(rnd: Random): string[] {
  const keys = new Set<string>();
  const n = 24 + rnd.uniform(25);
  while (keys.size < n) {
    let k = LETTERS[rnd.uniform(4)]! + LETTERS[rnd.uniform(4)]!;
    const digits = rnd.uniform(3);
    for (let i = 0; i < digits; i++) k += String(rnd.uniform(10));
    keys.add(k);
  }
  return [...keys].sort();
}

/** Weighted choice: `weights[i]` is the weight of choice i. */
function pick(rnd: Random, weights: readonly number[]): number {
  let total = 0;
  for (const w of weights) total += w;
  let r = rnd.uniform(total);
  for (let i = 0; i < weights.length; i++) {
    r -= weights[i]!;
    if (r < 0) return i;
  }
  return weights.length - 1;
}

export function generateOps(options: GenerateOptions): Op[] {
  const rnd = new Random(options.seed);
  const pool = keyPool(rnd);
  const tracker = new Tracker();
  const ops: Op[] = [];
  let serial = 0;
  let familyNames = 0;

  const key = () => pool[rnd.uniform(pool.length)]!;
  /** A bound: a pool key, or a prefix of one (between keys). */
  const bound = () => {
    const k = key();
    return rnd.oneIn(3) ? k.slice(0, 1 + rnd.uniform(k.length)) : k;
  };
  const family = () => tracker.families[rnd.uniform(tracker.families.length)]!;
  const value = () => {
    serial++;
    if (rnd.oneIn(12)) return `v${serial}-${"x".repeat(200 + rnd.uniform(1800))}`;
    return `v${serial}`;
  };
  const range = (): [string, string] => {
    let a = bound();
    let b = bound();
    if (a === b) b = `${b}~`;
    if (a > b) [a, b] = [b, a];
    return [a, b];
  };
  /** A write that keeps the contract at this point (`t` tracks the batch's own writes). */
  const write = (t: Tracker, kinds: "any" | "txn"): WriteOp => {
    const cf = kinds === "txn" ? "default" : t.families[rnd.uniform(t.families.length)]!;
    const choice = pick(rnd, kinds === "txn" ? [6, 2, 3, 0, 0] : [10, 3, 3, 5, 1]);
    if (choice === 3) {
      const eligible = t.singleDeletableKeys(cf);
      if (eligible.length > 0) return { t: "sdel", cf, k: eligible[rnd.uniform(eligible.length)]! };
    }
    if (choice === 1) return { t: "del", cf, k: key() };
    if (choice === 2) {
      serial++;
      return { t: "merge", cf, k: key(), v: `m${serial}` };
    }
    if (choice === 4) {
      const [s, e] = range();
      return { t: "drange", cf, s, e };
    }
    return { t: "put", cf, k: key(), v: value() };
  };
  const sync = () => (rnd.oneIn(10) ? { sync: true } : {});
  const snapshot = (): { snap?: number } => {
    if (tracker.snapshots.size === 0 || rnd.oneIn(2)) return {};
    const live = [...tracker.snapshots];
    return { snap: live[rnd.uniform(live.length)]! };
  };
  const steps = (): IterStep[] => {
    const out: IterStep[] = [];
    const n = 1 + rnd.uniform(8);
    for (let i = 0; i < n; i++) {
      const r = i === 0 ? rnd.uniform(4) : rnd.uniform(10);
      if (r === 0) out.push("first");
      else if (r === 1) out.push("last");
      else if (r === 2) out.push({ seek: bound() });
      else if (r === 3) out.push({ seekForPrev: bound() });
      else if (r < 7) out.push("next");
      else out.push("prev");
    }
    return out;
  };

  //          put del sdel merge drange batch txn get iter prefix snap release flush compact
  //          checkpoint reopen createCf dropCf ingest
  const WEIGHTS = [20, 5, 4, 8, 2, 5, 2, 15, 8, 3, 2, 1, 3, 2, 0.3, 1, 0.7, 0.4, 1].map((w) =>
    Math.round(w * 10),
  );
  while (ops.length < options.ops) {
    const choice = pick(rnd, WEIGHTS);
    let op: Op | undefined;
    switch (choice) {
      case 0:
        op = { t: "put", cf: family(), k: key(), v: value(), ...sync() };
        break;
      case 1:
        op = { t: "del", cf: family(), k: key(), ...sync() };
        break;
      case 2: {
        const cf = family();
        const eligible = tracker.singleDeletableKeys(cf);
        if (eligible.length > 0) op = { t: "sdel", cf, k: eligible[rnd.uniform(eligible.length)]! };
        break;
      }
      case 3:
        serial++;
        op = { t: "merge", cf: family(), k: key(), v: `m${serial}`, ...sync() };
        break;
      case 4: {
        const [s, e] = range();
        op = { t: "drange", cf: family(), s, e, ...sync() };
        break;
      }
      case 5: {
        // Written into a scratch tracker in order, so a batch may put and single-delete.
        const scratch = tracker.copy();
        const n = 1 + rnd.uniform(6);
        const writes: WriteOp[] = [];
        for (let i = 0; i < n; i++) {
          const w = write(scratch, "any");
          scratch.applyWrite(w);
          writes.push(w);
        }
        op = { t: "batch", ops: writes, ...sync() };
        break;
      }
      case 6: {
        const scratch = new Tracker();
        const writes: WriteOp[] = [];
        const n = 1 + rnd.uniform(4);
        for (let i = 0; i < n; i++) writes.push(write(scratch, "txn"));
        const reads = Array.from({ length: 1 + rnd.uniform(3) }, () => ({
          cf: "default",
          k: rnd.oneIn(2) ? (writes[rnd.uniform(writes.length)] as { k: string }).k : key(),
        }));
        const target = writes[rnd.uniform(writes.length)] as { k: string };
        serial++;
        op = {
          t: "txn",
          ops: writes,
          reads,
          ...(rnd.oneIn(3) ? { conflict: { cf: "default", k: target.k, v: `c${serial}` } } : {}),
        };
        break;
      }
      case 7:
        op = { t: "get", cf: family(), k: rnd.oneIn(8) ? bound() : key(), ...snapshot() };
        break;
      case 8: {
        const lo = rnd.oneIn(3) ? bound() : undefined;
        let hi = rnd.oneIn(3) ? bound() : undefined;
        if (lo !== undefined && hi !== undefined && hi <= lo) hi = `${lo}~`;
        op = {
          t: "iter",
          cf: family(),
          ...(lo !== undefined ? { lo } : {}),
          ...(hi !== undefined ? { hi } : {}),
          ...snapshot(),
          steps: steps(),
        };
        break;
      }
      case 9:
        op = { t: "prefix", cf: family(), k: key(), n: 1 + rnd.uniform(6) };
        break;
      case 10:
        op = { t: "snap", id: tracker.nextSnapshot };
        break;
      case 11: {
        const live = [...tracker.snapshots];
        if (live.length > 0) op = { t: "release", id: live[rnd.uniform(live.length)]! };
        break;
      }
      case 12:
        op = { t: "flush", cf: family() };
        break;
      case 13: {
        if (rnd.oneIn(3)) op = { t: "compact", cf: family() };
        else {
          const [s, e] = range();
          op = { t: "compact", cf: family(), s, e };
        }
        break;
      }
      case 14:
        op = { t: "checkpoint" };
        break;
      case 15:
        op = { t: "reopen", ...(rnd.oneIn(2) ? { crash: true } : {}) };
        break;
      case 16:
        if (tracker.families.length < 5) op = { t: "createCf", cf: `cf${++familyNames}` };
        break;
      case 17:
        if (tracker.families.length > 1)
          op = { t: "dropCf", cf: tracker.families[1 + rnd.uniform(tracker.families.length - 1)]! };
        break;
      case 18: {
        // Distinct keys in ascending order, now and then a range deletion among them.
        const cf = family();
        const keys = [...new Set(Array.from({ length: 1 + rnd.uniform(8) }, key))].sort();
        const writes: IngestWrite[] = keys.map((k): IngestWrite => {
          const r = rnd.uniform(10);
          if (r < 7) return { t: "put", cf, k, v: value() };
          if (r < 8) return { t: "del", cf, k };
          serial++;
          return { t: "merge", cf, k, v: `m${serial}` };
        });
        if (rnd.oneIn(5)) {
          const [s, e] = range();
          writes.push({ t: "drange", cf, s, e });
        }
        op = { t: "ingest", cf, ops: writes };
        break;
      }
    }
    if (op === undefined) continue;
    const why = tracker.step(op);
    if (why !== undefined) throw new Error(`generator made an invalid operation: ${why}`);
    ops.push(op);
  }
  return ops;
}
