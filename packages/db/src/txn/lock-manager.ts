/**
 * Per-key exclusive locks of pessimistic transactions (RocksDB's PointLockManager), for one
 * event loop: a lock is held by at most one transaction; the others wait in a FIFO queue,
 * each with a promise and a timer, so a wait never blocks the event loop.
 *
 * ```
 *   "k" -> KeyLock { owner: T1, waiters: [T2, T3] }
 *   T1 unlocks "k"  =>  owner T2 (its promise resolves), waiters [T3]
 * ```
 *
 * - Fairness: the lock passes to the first waiter on release, so every waiter gets it after
 *   the waiters before it (unless it times out).
 * - Timeout: a waiter still queued after its timeout leaves the queue and fails with
 *   `TimedOut`. 0 fails at once; -1 waits without a limit.
 * - Deadlock detection (when asked): before T waits for a lock, the waits-for graph is
 *   followed from the lock's owner and the waiters queued before T, through the lock each of
 *   those waits for, up to `DEADLOCK_DEPTH` transactions; if T is reached, the wait would
 *   close a cycle and T's request fails at once with `Busy` (RocksDB's Status::Busy,
 *   SubCode kDeadlock). The transactions already waiting keep waiting.
 *
 * Keys are (family, key) names: write-batch-with-index.ts's `lockKey` (the latin1 string of
 * the key's bytes, after the family id for a family other than default).
 */
import { ShaleError } from "@shale/base";

/** A transaction as the lock manager sees it. */
export interface LockOwner {
  /** @internal The lock it waits for now, if any (stripped from the published declarations, as the transaction's own). */
  waitingFor: KeyLock | undefined;
  /** For messages (0: a plain write of a TransactionDB, transaction-db.ts). */
  readonly id: number;
}

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

class Waiter {
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

export class KeyLock {
  readonly key: string;
  owner: LockOwner | undefined = undefined;
  readonly waiters: Waiter[] = [];

  constructor(key: string) {
    this.key = key;
  }
}

export class LockManager {
  private readonly locks = new Map<string, KeyLock>();

  /** Number of keys locked (or waited for). */
  get size(): number {
    return this.locks.size;
  }

  /** The transaction holding `key`'s lock, if any. */
  holder(key: string): LockOwner | undefined {
    return this.locks.get(key)?.owner;
  }

  /** Calls `fn` for every key locked, with its holder. */
  forEachHeld(fn: (key: string, owner: LockOwner) => void): void {
    for (const lock of this.locks.values()) if (lock.owner !== undefined) fn(lock.key, lock.owner);
  }

  /**
   * Takes `key`'s lock for `owner`: undefined when granted at once (free, or already
   * `owner`'s), else a promise that resolves once granted, or rejects with `TimedOut` after
   * `timeoutMs` or with `Busy` when `detectDeadlock` finds the wait would close a cycle.
   */
  lock(
    owner: LockOwner,
    key: string,
    timeoutMs: number,
    detectDeadlock: boolean,
  ): Promise<void> | undefined {
    let lock = this.locks.get(key);
    if (lock === undefined) {
      lock = new KeyLock(key);
      lock.owner = owner;
      this.locks.set(key, lock);
      return undefined;
    }
    if (lock.owner === owner) return undefined;
    if (lock.owner === undefined) {
      lock.owner = owner;
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
      target.waiters.push(w);
      owner.waitingFor = target;
      if (timeoutMs > 0) {
        w.timer = setTimeout(() => {
          const i = target.waiters.indexOf(w);
          if (i < 0) return;
          target.waiters.splice(i, 1);
          owner.waitingFor = undefined;
          if (target.owner === undefined && target.waiters.length === 0) this.locks.delete(key);
          reject(
            ShaleError.timedOut(
              `${who(owner)}: lock wait timed out after ${timeoutMs} ms (held by ${who(target.owner)})`,
            ),
          );
        }, timeoutMs);
      }
    });
  }

  /** Releases `key`'s lock if `owner` holds it; the first waiter gets it. */
  unlock(owner: LockOwner, key: string): void {
    const lock = this.locks.get(key);
    if (lock === undefined || lock.owner !== owner) return;
    const next = lock.waiters.shift();
    if (next === undefined) {
      this.locks.delete(key);
      return;
    }
    lock.owner = next.owner;
    next.owner.waitingFor = undefined;
    if (next.timer !== undefined) clearTimeout(next.timer);
    next.resolve();
  }

  /** Withdraws `owner`'s pending wait (it fails with `error`); nothing if it is not waiting. */
  cancelWait(owner: LockOwner, error: unknown): void {
    const lock = owner.waitingFor;
    if (lock === undefined) return;
    owner.waitingFor = undefined;
    const i = lock.waiters.findIndex((w) => w.owner === owner);
    if (i < 0) return;
    const [w] = lock.waiters.splice(i, 1);
    if (w!.timer !== undefined) clearTimeout(w!.timer);
    if (lock.owner === undefined && lock.waiters.length === 0) this.locks.delete(lock.key);
    w!.reject(error);
  }

  /** Fails every pending wait with `error` (the database closes); the locks are dropped. */
  rejectAll(error: unknown): void {
    const locks = [...this.locks.values()];
    this.locks.clear();
    for (const lock of locks) {
      for (const w of lock.waiters) {
        if (w.timer !== undefined) clearTimeout(w.timer);
        w.owner.waitingFor = undefined;
        w.reject(error);
      }
      lock.waiters.length = 0;
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
  for (const w of lock.waiters) {
    if (w.owner === waiter) break;
    out.push(w.owner);
  }
}
