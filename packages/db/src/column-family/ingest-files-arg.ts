/**
 * The argument of `db.ingestExternalFiles` (RocksDB's IngestExternalFileArg: a family, its
 * files and their options), checked and turned into the requests of
 * ops/ingest/ingest-external-file.ts.
 */
import { ShaleError } from "@shale/base";
import type { IngestRequest } from "../ops/ingest/ingest-external-file.js";
import type { IngestExternalFileOptions } from "../ops/ingest/ingest-options.js";
import type { IngestTarget } from "../ops/ingest/ingest-target.js";
import { ColumnFamilyHandle } from "./handle.js";

export interface IngestExternalFileArg {
  /** The family the files go into: a handle from `db.columnFamily()`. Default: `default`. */
  columnFamily?: ColumnFamilyHandle;
  /** One path or several. */
  paths: string | readonly string[];
  /** As `ingestExternalFile`'s. Default: RocksDB's defaults. */
  options?: IngestExternalFileOptions;
}

/**
 * The requests of `args`, each family's target from `targetOf` (its handle, or undefined
 * for `default`). TypeError for an argument of the wrong shape or a family that is not a
 * handle; InvalidArgument for an empty list or an unknown field.
 */
export function ingestRequests(
  args: unknown,
  targetOf: (handle: ColumnFamilyHandle | undefined) => IngestTarget,
): IngestRequest[] {
  if (!Array.isArray(args))
    throw new TypeError("ingestExternalFiles takes an array of { columnFamily?, paths, options? }");
  if (args.length === 0) throw ShaleError.invalidArgument("ingestExternalFiles: nothing to ingest");
  return args.map((arg: unknown, i) => {
    if (typeof arg !== "object" || arg === null)
      throw new TypeError(`ingestExternalFiles: entry ${i} must be an object`);
    for (const name of Object.keys(arg)) {
      if (name !== "columnFamily" && name !== "paths" && name !== "options")
        throw ShaleError.invalidArgument(
          `ingestExternalFiles: unknown field "${name}" in entry ${i} (known: columnFamily, paths, options)`,
        );
    }
    const { columnFamily, paths, options } = arg as IngestExternalFileArg;
    if (columnFamily !== undefined && !(columnFamily instanceof ColumnFamilyHandle))
      throw new TypeError("the column family must be a handle from db.columnFamily()");
    return { target: targetOf(columnFamily), paths, options };
  });
}
