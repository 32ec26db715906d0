/**
 * ColumnFamilyHandle: what `db.columnFamily(name)` and `db.createColumnFamily(name)` return —
 * the database's data methods (family-methods.ts) on one column family, and the family's
 * `name` and `id`. Pass it as the last argument of a WriteBatch's `put`/`delete`/`merge`/
 * `deleteRange`/`singleDelete` to write that family in one atomic batch with others.
 *
 * After `db.dropColumnFamily(name)` every method throws InvalidArgument ("column family
 * dropped"); a handle given to another database's `write` is InvalidArgument too.
 */
import type { BatchFamily } from "../write/write-batch.js";
import type { ColumnFamilyData } from "./column-family-data.js";
import { ColumnFamilyMethods, type FamilyMethodsCore } from "./family-methods.js";

export class ColumnFamilyHandle extends ColumnFamilyMethods implements BatchFamily {
  /** @internal */
  constructor(core: FamilyMethodsCore, cf: ColumnFamilyData) {
    super(core, cf);
  }

  /** The family's name. */
  get name(): string {
    return this.cf.name;
  }

  /** RocksDB's column family id (0 = `default`). */
  get id(): number {
    return this.cf.id;
  }

  /** @internal The family's tree, if the handle belongs to the database of `core`. */
  familyFor(core: FamilyMethodsCore): ColumnFamilyData | undefined {
    return this.core === core ? this.cf : undefined;
  }

  protected batchFamily(): BatchFamily {
    return this;
  }
}
