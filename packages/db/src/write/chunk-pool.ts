/**
 * The database's memtable chunk pool (@shale/memtable ChunkPool): the arena chunks of
 * flushed memtables are reused by the next memtables instead of waiting for both the main
 * thread's and the flush worker's garbage collections (446 MB of them were alive at the end
 * of a 1M-key db-bench run).
 *
 * Who holds a memtable (MemTable references): the database, from creation until the flush
 * that wrote it is installed (background/flush-scheduler.ts drops it there: the worker has
 * replied, and reads no longer see the memtable); every open iterator over it. A released
 * memtable's chunks wait in the pool until the end of the database's next write
 * (`promote` in db.ts's finishWrite), so no `db.getView()` view still valid — nor one passed
 * to that write — can see them change (see chunk-pool.ts).
 */

import type { MemTable } from "@shale/memtable";
import { ChunkPool } from "@shale/memtable";
import type { ImmutableMemTable } from "./immutable-memtable.js";

/** Chunks a memtable has beyond its write buffer (the current entry and node chunks), rounded up. */
const SLACK_CHUNKS = 4;
/** Bytes of the larger (node) chunk of the memtables' default arena chunk size. */
const CHUNK_BYTES = new ChunkPool().nodeChunkSize;

/**
 * A pool for a database of `writeBufferSize` memtables, holding up to one memtable's chunks,
 * and taken on by the memtables recovery made (`mem`, `imm`).
 */
export function memtableChunkPool(
  writeBufferSize: number,
  mem: MemTable,
  imm: readonly ImmutableMemTable[],
): ChunkPool {
  const pool = new ChunkPool({ maxBytes: writeBufferSize + SLACK_CHUNKS * CHUNK_BYTES });
  mem.useChunkPool(pool);
  for (const m of imm) m.mem.useChunkPool(pool);
  return pool;
}

/**
 * The database closed (its flushes finished): drops its references to the memtables, and the
 * pool's chunks become spare for any database opened next (chunk-pool.ts). A memtable an
 * open iterator still reads keeps its chunks until that iterator closes.
 */
export function retireMemtables(
  pool: ChunkPool,
  mem: MemTable,
  imm: readonly ImmutableMemTable[],
  history: ImmutableMemTable[] = [],
): void {
  mem.unref();
  for (const m of imm) m.mem.unref();
  // Flushed memtables kept for conflict checks (background/flush-scheduler.ts).
  for (const m of history.splice(0)) m.mem.unref();
  pool.retire();
}
