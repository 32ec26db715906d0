/**
 * The table of key locks of a TransactionDB (lock-manager.ts keeps the waiting rules): a
 * hash table from (column family id, key bytes) to a `KeyLock`, striped by a 32-bit hash of
 * those bytes as RocksDB's PointLockManager stripes its lock maps by key hash. Each stripe
 * is a short chain of locks; a lookup compares the hash, the family and then the bytes, so
 * two keys that hash alike share a stripe, never a lock.
 *
 * ```
 *   hash(0, "apple") & mask = 2     stripes: [0] -> -
 *   hash(0, "kiwi")  & mask = 2              [1] -> KeyLock(1, "fig")
 *   hash(1, "fig")   & mask = 1              [2] -> KeyLock(0, "kiwi") -> KeyLock(0, "apple")
 *                                            [3] -> -
 * ```
 *
 * - No string per key: the key is hashed and compared as bytes (a lock keeps its own copy).
 * - No allocation for an uncontended lock once warm: a released lock goes to a free list
 *   (up to `POOL_SIZE`, keys up to `POOL_KEY_BYTES`) with its key buffer and its (empty)
 *   waiter array, and the next insert takes it from there. The waiter array is made on a
 *   lock's first wait.
 * - Growth: the stripe count doubles when the table holds twice as many locks as stripes,
 *   and drops back to the initial count once the table is empty again; a table made with a
 *   fixed stripe count (tests: 1 or 2 stripes make every key collide) never resizes.
 *
 * A released lock is reused for another key: whoever keeps a `KeyLock` (a transaction's held
 * list, a waiter's timer) must drop it when the lock is released, as lock-manager.ts does.
 *
 * Threading: one event loop (nothing in shale is shared across threads here).
 */

/** A transaction (or a plain write of a TransactionDB) as the lock table sees it. */
export interface LockOwner {
  /** @internal The lock it waits for now, if any (stripped from the published declarations, as the transaction's own). */
  waitingFor: KeyLock | undefined;
  /** @internal The locks it holds, in the order granted: the lock manager appends each grant. */
  readonly held: KeyLock[];
  /** For messages (0: a plain write of a TransactionDB, transaction-db.ts). */
  readonly id: number;
}

/** A queued request for a lock (lock-manager.ts's Waiter). */
export interface LockWaiter {
  readonly owner: LockOwner;
}

/** Stripes of a table made without a fixed count, at first and again once empty. */
const INITIAL_STRIPES = 64;
/** How many released locks are kept for reuse. */
const POOL_SIZE = 256;
/** A released lock with a longer key buffer is not kept (the pool stays small). */
const POOL_KEY_BYTES = 256;
/** The smallest key buffer a lock gets (so most reuses fit). */
const MIN_KEY_BYTES = 32;

export class KeyLock {
  familyId = 0;
  hash = 0;
  /** The key is `key[0, length)`: the buffer outlives the key when the lock is reused. */
  key: Uint8Array;
  length = 0;
  owner: LockOwner | undefined = undefined;
  /** The requests queued for the lock, first first; undefined until the first wait. */
  waiters: LockWaiter[] | undefined = undefined;
  /** The next lock of the stripe, or of the free list. */
  next: KeyLock | undefined = undefined;

  constructor(capacity: number) {
    this.key = new Uint8Array(capacity);
  }

  /** True if the lock is free: no holder and nobody queued. */
  get idle(): boolean {
    return this.owner === undefined && (this.waiters === undefined || this.waiters.length === 0);
  }

  /** A copy of the key. */
  keyBytes(): Uint8Array {
    return this.key.slice(0, this.length);
  }
}

/**
 * The 32-bit hash of key `key` of family `familyId` (FNV-1a over the family id and the
 * bytes, then a final mix so the low bits, which pick the stripe, depend on every byte).
 */
export function keyHash(familyId: number, key: Uint8Array): number {
  let h = Math.imul(0x811c9dc5 ^ familyId, 0x01000193);
  const n = key.length;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ key[i]!, 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h | 0;
}

function sameKey(lock: KeyLock, familyId: number, key: Uint8Array): boolean {
  const n = key.length;
  if (lock.length !== n || lock.familyId !== familyId) return false;
  const a = lock.key;
  for (let i = 0; i < n; i++) if (a[i] !== key[i]) return false;
  return true;
}

export class LockTable {
  private stripes: (KeyLock | undefined)[];
  private mask: number;
  /** A fixed stripe count: never resized. */
  private readonly fixed: boolean;
  private count = 0;
  private free: KeyLock | undefined = undefined;
  private freeCount = 0;

  /**
   * `stripes`: a fixed stripe count (a power of two; tests use 1 or 2 to make keys
   * collide). Default: `INITIAL_STRIPES`, growing with the table.
   */
  constructor(stripes?: number) {
    if (
      stripes !== undefined &&
      (!Number.isInteger(stripes) || stripes < 1 || (stripes & (stripes - 1)) !== 0)
    )
      throw new RangeError(`stripes must be a power of two, not ${stripes}`);
    this.fixed = stripes !== undefined;
    const n = stripes ?? INITIAL_STRIPES;
    this.stripes = new Array<KeyLock | undefined>(n).fill(undefined);
    this.mask = n - 1;
  }

  /** Number of locks in the table (held or waited for). */
  get size(): number {
    return this.count;
  }

  /** Number of stripes now. */
  get stripeCount(): number {
    return this.stripes.length;
  }

  /** The lock of (`familyId`, `key`) whose hash is `hash`, if in the table. */
  find(familyId: number, key: Uint8Array, hash: number): KeyLock | undefined {
    let lock = this.stripes[hash & this.mask];
    while (lock !== undefined) {
      if (lock.hash === hash && sameKey(lock, familyId, key)) return lock;
      lock = lock.next;
    }
    return undefined;
  }

  /**
   * REQUIRES: `find` found no lock for the key. Adds a lock for it (no owner, no waiters),
   * with a copy of `key`.
   */
  insert(familyId: number, key: Uint8Array, hash: number): KeyLock {
    const n = key.length;
    let lock = this.free;
    if (lock !== undefined) {
      this.free = lock.next;
      this.freeCount--;
      if (lock.key.length < n) lock.key = new Uint8Array(n);
    } else {
      lock = new KeyLock(n > MIN_KEY_BYTES ? n : MIN_KEY_BYTES);
    }
    lock.key.set(key);
    lock.length = n;
    lock.familyId = familyId;
    lock.hash = hash;
    if (!this.fixed && this.count >= this.stripes.length << 1)
      this.resize(this.stripes.length << 1);
    const i = hash & this.mask;
    lock.next = this.stripes[i];
    this.stripes[i] = lock;
    this.count++;
    return lock;
  }

  /** REQUIRES: `lock` is in the table and idle. Takes it out; it may be reused at once. */
  remove(lock: KeyLock): void {
    const i = lock.hash & this.mask;
    let prev: KeyLock | undefined;
    let at = this.stripes[i];
    while (at !== undefined && at !== lock) {
      prev = at;
      at = at.next;
    }
    if (at === undefined) return;
    if (prev === undefined) this.stripes[i] = lock.next;
    else prev.next = lock.next;
    this.count--;
    lock.owner = undefined;
    if (this.freeCount < POOL_SIZE && lock.key.length <= POOL_KEY_BYTES) {
      lock.next = this.free;
      this.free = lock;
      this.freeCount++;
    } else {
      lock.next = undefined;
    }
    if (this.count === 0 && !this.fixed && this.stripes.length > INITIAL_STRIPES)
      this.resize(INITIAL_STRIPES);
  }

  /** Calls `fn` for every lock in the table. `fn` must not change the table. */
  forEach(fn: (lock: KeyLock) => void): void {
    const stripes = this.stripes;
    for (let i = 0; i < stripes.length; i++) {
      for (let lock = stripes[i]; lock !== undefined; lock = lock.next) fn(lock);
    }
  }

  /** Empties the table; returns the locks it held (not reused: their holders may keep them). */
  clear(): KeyLock[] {
    const out: KeyLock[] = [];
    this.forEach((lock) => {
      out.push(lock);
    });
    this.stripes.fill(undefined);
    this.count = 0;
    for (const lock of out) lock.next = undefined;
    return out;
  }

  private resize(n: number): void {
    const old = this.stripes;
    const stripes = new Array<KeyLock | undefined>(n).fill(undefined);
    const mask = n - 1;
    for (let i = 0; i < old.length; i++) {
      let lock = old[i];
      while (lock !== undefined) {
        const next = lock.next;
        const j = lock.hash & mask;
        lock.next = stripes[j];
        stripes[j] = lock;
        lock = next;
      }
    }
    this.stripes = stripes;
    this.mask = mask;
  }
}
