/**
 * Collects the byte ranges a LogReader drops and hands them to the user's reporter, merging
 * a range with the next when they touch (or are separated only by a block trailer), so one
 * run of damage is one report.
 */

import { BLOCK_SIZE, HEADER_SIZE } from "./format.js";
import type { LogCorruptionInfo } from "./recovery-mode.js";

export class DropReports {
  /** Start of the pending range, or -1 when none is pending. */
  private start = -1;
  private end = 0;
  private reason = "";

  constructor(private readonly reporter: ((info: LogCorruptionInfo) => void) | undefined) {}

  /** True if a range waits to be reported. */
  get pending(): boolean {
    return this.start >= 0;
  }

  /** Records that the file bytes `[from, to)` were dropped, because of `reason`. */
  add(from: number, to: number, reason: string): void {
    if (to <= from) return;
    if (this.start >= 0) {
      const gap = from - this.end;
      if (gap === 0 || (gap > 0 && gap < HEADER_SIZE && from % BLOCK_SIZE === 0)) {
        this.end = to;
        return;
      }
      this.flush();
    }
    this.start = from;
    this.end = to;
    this.reason = reason;
  }

  /** Reports the pending range, if any. */
  flush(): void {
    if (this.start < 0) return;
    const offset = this.start;
    this.start = -1;
    this.reporter?.({ offset, bytes: this.end - offset, reason: this.reason });
  }
}
