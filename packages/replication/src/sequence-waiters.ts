/**
 * Promises for "sequence N reached": the publisher's `drain()` (N stored by JetStream) and
 * the follower's `waitFor()` (N applied). Each waiter resolves once `reach` passes its
 * sequence, or rejects with the error of `rejectAll`.
 *
 * Threading: one thread's event loop.
 */
interface Waiter {
  readonly sequence: number;
  resolve(): void;
  reject(e: Error): void;
}

export class SequenceWaiters {
  private waiters: Waiter[] = [];

  /** How many wait. */
  get size(): number {
    return this.waiters.length;
  }

  /** A promise resolved once `reach(s)` is called with s >= `sequence`. */
  wait(sequence: number): Promise<void> {
    return new Promise<void>((resolve, reject) => this.waiters.push({ sequence, resolve, reject }));
  }

  /** Resolves every waiter for a sequence at or below `reached`. */
  reach(reached: number): void {
    if (this.waiters.length === 0) return;
    const left: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.sequence <= reached) w.resolve();
      else left.push(w);
    }
    this.waiters = left;
  }

  /** Rejects every waiter with `error`. */
  rejectAll(error: Error): void {
    for (const w of this.waiters.splice(0)) w.reject(error);
  }
}
