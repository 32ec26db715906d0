/**
 * `db.readerHandle()`: what a worker thread needs to open a reader of this database
 * (`openReader`, reader/open-reader.ts): the directory, the control block the database
 * publishes its changes and its close through (core/reader-control.ts), and the names of
 * the comparator and merge operator the reader must read with.
 *
 * The handle is plain data (strings and SharedArrayBuffers): `postMessage` it to a
 * worker of this process. With the database's `sharedBlockCache` it carries that cache's
 * buffers, and every reader opened from it reads and fills the same cache. All handles of one database share one control block, made by
 * the first call; from then on every write and every installed MANIFEST edit bumps it
 * (one `Atomics.add`).
 *
 * Threading: the database's thread.
 */
import { NodeFileSystem, ShaleError } from "@shale/base";
import type { SharedBlockCache, SharedBlockCacheBuffers } from "@shale/block-cache";
import { newReaderControl } from "../core/reader-control.js";
import type { ColumnFamilyData } from "./column-family-data.js";
import type { FamilyMethodsCore } from "./family-methods.js";

/** Marks a ReaderHandle; part of the handle's shape. */
export const READER_HANDLE_KIND = "shale-reader-handle";

/** What `db.readerHandle()` returns: structured-cloneable, for `openReader` in a worker. */
export interface ReaderHandle {
  readonly kind: typeof READER_HANDLE_KIND;
  /** The database's directory, as it was opened (a worker shares the process's cwd). */
  readonly dir: string;
  /** The control block (core/reader-control.ts). */
  readonly control: SharedArrayBuffer;
  /** The `name` of the database's comparator. */
  readonly comparatorName: string;
  /** The `name` of the database's merge operator, or null without one. */
  readonly mergeOperatorName: string | null;
  /** The buffers of the database's `sharedBlockCache`, or null without one. */
  readonly sharedBlockCache: SharedBlockCacheBuffers | null;
}

/**
 * A handle for the database of `db` (its `default` family `cf`; role: `db.role`). Closed when it is closed; NotSupported for a read-only
 * or secondary instance, or a file system other than Node's (a worker opens the files by
 * path).
 */
export function readerHandleOf(
  role: string,
  db: FamilyMethodsCore,
  cf: ColumnFamilyData,
  sharedBlockCache: SharedBlockCache | undefined,
): ReaderHandle {
  db.status.checkOpen();
  if (role !== "primary")
    throw ShaleError.notSupported(`readerHandle needs the writing instance, not a ${role} one`);
  if (!(db.fs instanceof NodeFileSystem))
    throw ShaleError.notSupported(
      "readerHandle needs a database on Node's file system (workers open its files by path)",
    );
  db.versions.readerControl ??= newReaderControl();
  return {
    kind: READER_HANDLE_KIND,
    dir: db.dir,
    control: db.versions.readerControl.buffer as SharedArrayBuffer,
    comparatorName: cf.icmp.user.name,
    mergeOperatorName: cf.mergeOperator?.name ?? null,
    sharedBlockCache: sharedBlockCache?.buffers() ?? null,
  };
}
