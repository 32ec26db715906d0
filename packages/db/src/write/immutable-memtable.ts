/**
 * A memtable that no longer takes writes: the write path switches it out, reads still see it
 * until its flush installs (read/read-path.ts), and background/flush-scheduler.ts flushes it.
 * Here, below both, so that read/ does not import background/.
 */

import type { MemTable } from "@shale/memtable";
import type { FlushReason } from "../core/event-listeners.js";

/** A memtable that no longer takes writes, with the WAL that holds its data. */
export interface ImmutableMemTable {
  readonly mem: MemTable;
  readonly logNumber: number;
  /** Why it was switched out (event listeners' FlushJobInfo). Default: "Others". */
  readonly flushReason?: FlushReason;
}
