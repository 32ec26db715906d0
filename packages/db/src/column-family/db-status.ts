/**
 * The database-wide state every part of the write path checks: closed, the background error
 * that made the database read-only, the refusal of writes (families left alone), and the
 * WAL's latched write error. One object shared by the DB, its column families and the write
 * loop, so each checks the same state without calling back into db.ts.
 *
 * Threading: the database's thread.
 */
import { ShaleError } from "@shale/base";
import { backgroundError } from "../background/background-error.js";
import type { BackgroundErrorReason } from "../core/event-listeners.js";

export class DbStatus {
  closed = false;
  /**
   * Set when a background job failed: writes stop (reads go on) until reopen; every refused
   * call reports this one error (see background/background-error.ts).
   */
  backgroundError: ShaleError | undefined;
  /** Set while the directory holds column families shale leaves alone: writes are refused. */
  writeRefusal: ShaleError | undefined;
  /** Told once when a background job first fails (flush waiters are rejected). */
  onFailure: ((failure: ShaleError) => void) | undefined;
  /** Told once too, with what failed (event listeners' OnBackgroundError). */
  onBackgroundError: ((reason: BackgroundErrorReason, failure: ShaleError) => void) | undefined;

  constructor(private readonly wal: { readonly error: ShaleError | undefined }) {}

  /** Throws Closed once the database is closed. */
  checkOpen(): void {
    if (this.closed) throw ShaleError.closed("the database is closed");
  }

  /** Throws what a write would throw (closed, refused, WAL failed, background failed). */
  checkWritable(): void {
    if (this.closed) throw ShaleError.closed("the database is closed");
    if (this.writeRefusal !== undefined) throw this.writeRefusal;
    const walError = this.wal.error;
    if (walError !== undefined) throw walError;
    if (this.backgroundError !== undefined) throw this.backgroundError;
  }

  /**
   * A background job failed: writes stop (reads go on) until reopen. `reason`: what failed
   * (a flush, unless the caller says otherwise).
   */
  failBackground(error: Error, reason: BackgroundErrorReason = "Flush"): void {
    if (this.backgroundError !== undefined) return;
    const failure = backgroundError(error);
    this.backgroundError = failure;
    this.onFailure?.(failure);
    this.onBackgroundError?.(reason, failure);
  }

  /** True once a background job failed. */
  get failed(): boolean {
    return this.backgroundError !== undefined;
  }
}
