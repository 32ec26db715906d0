/**
 * The lock manager against a model of per-key FIFO locks with deadlock detection, over lock
 * tables of 1 and 2 stripes (every key shares a stripe with others) and the growing default.
 * Random steps of four owners — lock (waiting, or failing at once with a 0 timeout), unlock,
 * withdraw a wait — and after each step: every key has the model's holder, every owner holds
 * the model's keys in the order granted and waits for the model's key, a waiter gets the lock
 * in queue order, a wait that would close a cycle fails with Busy (and only such a wait).
 * At the end every owner lets go and the table is empty (no lock leaks); every promise
 * settled as the model says.
 */
import { isShaleError } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LockManager, type LockOwner } from "./lock-manager.js";

/** Keys: (family, bytes); [0] of family 0 and of family 1 are different keys. */
const KEYS: readonly [number, Uint8Array][] = [
  [0, new Uint8Array([0])],
  [1, new Uint8Array([0])],
  [0, new Uint8Array([0, 0])],
  [0, new Uint8Array(0)],
];
const OWNERS = 4;

type Step =
  | { op: "lock"; who: number; k: number; timeout0: boolean }
  | { op: "unlock"; who: number; nth: number }
  | { op: "cancel"; who: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant("lock" as const),
      who: fc.nat(OWNERS - 1),
      k: fc.nat(KEYS.length - 1),
      timeout0: fc.nat(5).map((n) => n === 0),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("unlock" as const),
      who: fc.nat(OWNERS - 1),
      nth: fc.nat(4),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant("cancel" as const), who: fc.nat(OWNERS - 1) }),
  },
);

/** What a promise from `lock` must end as. */
type Expected = "granted" | "Busy" | "TimedOut" | "cancelled";

class Model {
  holder: (number | undefined)[] = KEYS.map(() => undefined);
  queue: number[][] = KEYS.map(() => []);
  held: number[][] = Array.from({ length: OWNERS }, () => []);
  waiting: (number | undefined)[] = Array.from({ length: OWNERS }, () => undefined);
  /** Per owner, the expectation of its pending wait's promise. */
  pending: ({ expected: Expected } | undefined)[] = Array.from({ length: OWNERS }, () => undefined);

  grantNext(k: number): void {
    const next = this.queue[k]!.shift();
    this.holder[k] = next;
    if (next !== undefined) {
      this.held[next]!.push(k);
      this.waiting[next] = undefined;
      this.pending[next]!.expected = "granted";
      this.pending[next] = undefined;
    }
  }

  /** True if `who` queueing for `k` closes a cycle of waits. */
  wouldDeadlock(who: number, k: number): boolean {
    const seen = new Set<number>();
    const blockers = (key: number, before: number | undefined): number[] => {
      const out: number[] = [];
      if (this.holder[key] !== undefined) out.push(this.holder[key]!);
      for (const w of this.queue[key]!) {
        if (w === before) break;
        out.push(w);
      }
      return out;
    };
    let frontier = blockers(k, undefined);
    while (frontier.length > 0) {
      const next: number[] = [];
      for (const t of frontier) {
        if (t === who) return true;
        if (seen.has(t)) continue;
        seen.add(t);
        const w = this.waiting[t];
        if (w !== undefined) next.push(...blockers(w, t));
      }
      frontier = next;
    }
    return false;
  }
}

async function run(stripes: number | undefined, steps: readonly Step[]): Promise<void> {
  const locks = new LockManager(stripes);
  const owners: LockOwner[] = Array.from({ length: OWNERS }, (_, i) => ({
    id: i + 1,
    held: [],
    waitingFor: undefined,
  }));
  const model = new Model();
  const outcomes: { expected: { expected: Expected }; actual: Promise<string> }[] = [];
  const settle = (p: Promise<void>) =>
    p.then(
      () => "granted",
      (e: unknown) => (isShaleError(e) ? e.code : String(e)),
    );

  const check = () => {
    KEYS.forEach(([familyId, key], k) => {
      const h = locks.holder(familyId, key);
      expect(h === undefined ? undefined : h.id - 1).toBe(model.holder[k]);
    });
    owners.forEach((o, i) => {
      expect(
        o.held.map((l) =>
          KEYS.findIndex(([f, b]) => f === l.familyId && Buffer.from(b).equals(l.keyBytes())),
        ),
      ).toEqual(model.held[i]);
      const w = o.waitingFor;
      const wk =
        w === undefined
          ? undefined
          : KEYS.findIndex(([f, b]) => f === w.familyId && Buffer.from(b).equals(w.keyBytes()));
      expect(wk).toBe(model.waiting[i]);
    });
    const inUse = KEYS.filter(
      (_, k) => model.holder[k] !== undefined || model.queue[k]!.length > 0,
    );
    expect(locks.size).toBe(inUse.length);
  };

  for (const step of steps) {
    const o = owners[step.who]!;
    if (step.op === "lock") {
      if (model.waiting[step.who] !== undefined) continue; // one wait at a time, as a transaction
      const [familyId, key] = KEYS[step.k]!;
      const holder = model.holder[step.k];
      const p = locks.lock(o, familyId, key.slice(), step.timeout0 ? 0 : -1, true);
      if (holder === undefined || holder === step.who) {
        expect(p).toBeUndefined();
        if (holder === undefined) {
          model.holder[step.k] = step.who;
          model.held[step.who]!.push(step.k);
        }
      } else {
        expect(p).toBeInstanceOf(Promise);
        const expected: { expected: Expected } = { expected: "cancelled" };
        if (step.timeout0) expected.expected = "TimedOut";
        else if (model.wouldDeadlock(step.who, step.k)) expected.expected = "Busy";
        else {
          model.queue[step.k]!.push(step.who);
          model.waiting[step.who] = step.k;
          model.pending[step.who] = expected;
        }
        outcomes.push({ expected, actual: settle(p!) });
      }
    } else if (step.op === "unlock") {
      const mine = model.held[step.who]!;
      if (mine.length === 0) continue;
      const i = step.nth % mine.length;
      const k = mine[i]!;
      const lock = o.held[i]!;
      o.held.splice(i, 1);
      mine.splice(i, 1);
      locks.unlock(o, lock);
      model.grantNext(k);
    } else {
      locks.cancelWait(o, new Error("cancelled"));
      const k = model.waiting[step.who];
      if (k !== undefined) {
        const q = model.queue[k]!;
        q.splice(q.indexOf(step.who), 1);
        model.waiting[step.who] = undefined;
        model.pending[step.who] = undefined;
      }
    }
    check();
  }

  // Everyone lets go: waits withdrawn, then every held lock released (grants included).
  for (let i = 0; i < OWNERS; i++) locks.cancelWait(owners[i]!, new Error("cancelled"));
  for (let i = 0; i < OWNERS; i++) {
    model.waiting[i] = undefined;
    model.pending[i] = undefined;
  }
  model.queue = KEYS.map(() => []);
  for (const o of owners) {
    for (const lock of o.held) locks.unlock(o, lock);
    o.held.length = 0;
  }
  expect(locks.size).toBe(0);
  for (const [familyId, key] of KEYS) expect(locks.holder(familyId, key)).toBeUndefined();
  for (const { expected, actual } of outcomes) {
    const got = await actual;
    expect(got === "Error: cancelled" ? "cancelled" : got).toBe(expected.expected);
  }
}

describe("LockManager (property)", () => {
  for (const stripes of [1, 2, undefined]) {
    it(`matches FIFO locks with deadlock detection, ${stripes ?? "growing"} stripes`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { maxLength: 80 }), (steps) => run(stripes, steps)),
        { numRuns: 400 },
      );
    });
  }
});
