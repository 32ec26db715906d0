/**
 * `db.batch()` with no arguments: operations go straight into one engine WriteBatch (no
 * intermediate array), written atomically (one WAL record) by `write()`.
 */
import { type ColumnFamilyHandle, WriteBatch } from "@shale/db";
import { AbstractChainedBatch } from "abstract-level";
import { levelError } from "./errors.js";

type Key = Uint8Array | string;

/** What the chained batch needs from its database. */
export interface BatchTarget {
  /** The column family the operations go into (undefined: default). */
  readonly family: ColumnFamilyHandle | undefined;
  writeBatch(batch: WriteBatch, options: { sync?: unknown }): void;
}

export class ShaleChainedBatch extends AbstractChainedBatch<unknown, Key, Key> {
  private readonly batch = new WriteBatch();
  private readonly target: BatchTarget;

  constructor(db: ConstructorParameters<typeof AbstractChainedBatch>[0], target: BatchTarget) {
    super(db);
    this.target = target;
  }

  _put(key: Key, value: Key): void {
    this.batch.put(key, value, this.target.family);
  }

  _del(key: Key): void {
    this.batch.delete(key, this.target.family);
  }

  _clear(): void {
    this.batch.clear();
  }

  async _write(options: { sync?: unknown }): Promise<void> {
    try {
      this.target.writeBatch(this.batch, options);
    } catch (e) {
      throw levelError(e);
    }
  }

  async _close(): Promise<void> {
    this.batch.clear();
  }
}
