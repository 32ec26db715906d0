/**
 * Per-key exclusive locks of pessimistic transactions (RocksDB's PointLockManager), for one
 * event loop: a lock is held by at most one transaction; the others wait in a FIFO queue,
 * each with a promise and a timer, so a wait never blocks the event loop.
 *
 * ```
 *   (0, "k") -> KeyLock { owner: T1, waiters: [T2, T3] }
 *   T1 unlocks "k"  =>  owner T2 (its promise resolves, "k" joins T2.held), waiters [T3]
 * ```
 *
 * - Keys: a (column family id, key bytes) pair, found in a table striped by hash
 *   (lock-table.ts); no string is made per key, and an uncontended lock reuses a released
 *   one.
 * - Held locks: each grant — at once, or later to a waiter — is appended to the owner's
 *   `held` list; the owner releases by `unlock(owner, lock)` and drops the lock from `held`
 *   (a released lock is reused for other keys).
 * - Fairness: the lock passes to the first waiter on release, so every waiter gets it after
 *   the waiters before it (unless it times out).
 * - Timeout: a waiter still queued after its timeout leaves the queue and fails with
 *   `TimedOut`. 0 fails at once; -1 waits without a limit.
 * - Deadlock detection (when asked): before T waits for a lock, the waits-for graph is
 *   followed from the lock's owner and the waiters queued before T, through the lock each of
 *   those waits for, up to `DEADLOCK_DEPTH` transactions; if T is reached, the wait would
 *   close a cycle and T's request fails at once with `Busy` (RocksDB's Status::Busy,
 *   SubCode kDeadlock). The transactions already waiting keep waiting.
 */
import { ShaleError } from "@shale/base";
import { type KeyLock, keyHash, type LockOwner, LockTable, type LockWaiter } from "./lock-table.js";

export type { KeyLock, LockOwner } from "./lock-table.js";

/** `owner` in messages. */
function who(owner: LockOwner | undefined): string {
  return owner === undefined
    ? "nobody"
    : owner.id === 0
      ? "a plain write"
      : `transaction ${owner.id}`;
}

/** How far deadlock detection follows the waits-for graph (RocksDB's deadlock_detect_depth). */
export const DEADLOCK_DEPTH = 50;

class Waiter implements LockWaiter {
  readonly owner: LockOwner;
  resolve: () => void;
  reject: (e: unknown) => void;
  timer: ReturnType<typeof setTimeout> | undefined = undefined;

  constructor(owner: LockOwner, resolve: () => void, reject: (e: unknown) => void) {
    this.owner = owner;
    this.resolve = resolve;
    this.reject = reject;
  }
}

export class LockManager {
  private readonly table: LockTable;

  /** `stripes`: a fixed stripe count for the lock table (tests); default: it grows. */
  constructor(stripes?: number) {
    this.table = new LockTable(stripes);
  }

  /** Number of keys locked (or waited for). */
  get size(): number {
    return this.table.size;
  }

  /** The transaction holding the lock of `key` of family `familyId`, if any. */
  holder(familyId: number, key: Uint8Array): LockOwner | undefined {
    return this.table.find(familyId, key, keyHash(familyId, key))?.owner;
  }

  /** True if `owner` holds the lock of `key` of family `familyId`. */
  holds(owner: LockOwner, familyId: number, key: Uint8Array): boolean {
    return this.holder(familyId, key) === owner;
  }

  /**
   * Calls `fn` for every key locked, with its family, a copy of its bytes and its holder.
   */
  forEachHeld(fn: (familyId: number, key: Uint8Array, owner: LockOwner) => void): void {
    const held: KeyLock[] = [];
    this.table.forEach((lock) => {
      if (lock.owner !== undefined) held.push(lock);
    });
    for (const lock of held) fn(lock.familyId, lock.keyBytes(), lock.owner!);
  }

  /**
   * Takes the lock of `key` of family `familyId` for `owner`: undefined when granted at
   * once (free: appended to `owner.held`; or already `owner`'s: nothing changes), else a
   * promise that resolves once granted (appended to `owner.held` then), or rejects with
   * `TimedOut` after `timeoutMs` or with `Busy` when `detectDeadlock` finds the wait would
   * close a cycle. The key is copied.
   */
  lock(
    owner: LockOwner,
    familyId: number,
    key: Uint8Array,
    timeoutMs: number,
    detectDeadlock: boolean,
  ): Promise<void> | undefined {
    const table = this.table;
    const hash = keyHash(familyId, key);
    let lock = table.find(familyId, key, hash);
    if (lock === undefined) {
      lock = table.insert(familyId, key, hash);
      lock.owner = owner;
      owner.held.push(lock);
      return undefined;
    }
    if (lock.owner === owner) return undefined;
    if (lock.owner === undefined) {
      lock.owner = owner;
      owner.held.push(lock);
      return undefined;
    }
    if (timeoutMs === 0)
      return Promise.reject(
        ShaleError.timedOut(`${who(owner)}: key is locked by ${who(lock.owner)}`),
      );
    if (detectDeadlock && this.wouldDeadlock(owner, lock))
      return Promise.reject(
        ShaleError.busy(
          `deadlock: ${who(owner)} waiting for a key locked by ${who(lock.owner)} closes a cycle of waiters`,
        ),
      );
    const target = lock;
    return new Promise<void>((resolve, reject) => {
      const w = new Waiter(owner, resolve, reject);
      (target.waiters ??= []).push(w);
      owner.waitingFor = target;
      if (timeoutMs > 0) {
        w.timer = setTimeout(() => {
          const waiters = target.waiters!;
          const i = waiters.indexOf(w);
          if (i < 0) return;
          waiters.splice(i, 1);
          owner.waitingFor = undefined;
          const holder = target.owner;
          if (target.idle) table.remove(target);
          reject(
            ShaleError.timedOut(
              `${who(owner)}: lock wait timed out after ${timeoutMs} ms (held by ${who(holder)})`,
            ),
          );
        }, timeoutMs);
      }
    });
  }

  /**
   * Releases `lock` if `owner` holds it; the first waiter gets it (appended to its `held`).
   * The caller drops `lock` from `owner.held`.
   */
  unlock(owner: LockOwner, lock: KeyLock): void {
    if (lock.owner !== owner) return;
    const next = lock.waiters?.shift() as Waiter | undefined;
    if (next === undefined) {
      this.table.remove(lock);
      return;
    }
    lock.owner = next.owner;
    next.owner.waitingFor = undefined;
    next.owner.held.push(lock);
    if (next.timer !== undefined) clearTimeout(next.timer);
    next.resolve();
  }

  /** Withdraws `owner`'s pending wait (it fails with `error`); nothing if it is not waiting. */
  cancelWait(owner: LockOwner, error: unknown): void {
    const lock = owner.waitingFor;
    if (lock === undefined) return;
    owner.waitingFor = undefined;
    const waiters = lock.waiters as Waiter[] | undefined;
    const i = waiters === undefined ? -1 : waiters.findIndex((w) => w.owner === owner);
    if (i < 0) return;
    const [w] = waiters!.splice(i, 1);
    if (w!.timer !== undefined) clearTimeout(w!.timer);
    if (lock.idle) this.table.remove(lock);
    w!.reject(error);
  }

  /** Fails every pending wait with `error` (the database closes); the locks are dropped. */
  rejectAll(error: unknown): void {
    for (const lock of this.table.clear()) {
      const waiters = lock.waiters as Waiter[] | undefined;
      if (waiters !== undefined) {
        for (const w of waiters) {
          if (w.timer !== undefined) clearTimeout(w.timer);
          w.owner.waitingFor = undefined;
          w.reject(error);
        }
        waiters.length = 0;
      }
      lock.owner = undefined;
    }
  }

  /**
   * True if `owner` waiting for `lock` would close a cycle: `owner` is reachable from the
   * lock's holder or the waiters queued before it, through the locks they wait for.
   */
  private wouldDeadlock(owner: LockOwner, lock: KeyLock): boolean {
    const seen = new Set<LockOwner>();
    let frontier: LockOwner[] = [];
    pushBlockers(lock, undefined, frontier);
    for (let depth = 0; depth < DEADLOCK_DEPTH && frontier.length > 0; depth++) {
      const next: LockOwner[] = [];
      for (const t of frontier) {
        if (t === owner) return true;
        if (seen.has(t)) continue;
        seen.add(t);
        const waiting = t.waitingFor;
        if (waiting !== undefined) pushBlockers(waiting, t, next);
      }
      frontier = next;
    }
    return false;
  }
}

/** The holder of `lock` and the waiters queued before `waiter` (all of them without one). */
function pushBlockers(lock: KeyLock, waiter: LockOwner | undefined, out: LockOwner[]): void {
  if (lock.owner !== undefined) out.push(lock.owner);
  const waiters = lock.waiters;
  if (waiters === undefined) return;
  for (const w of waiters) {
    if (w.owner === waiter) break;
    out.push(w.owner);
  }
}
