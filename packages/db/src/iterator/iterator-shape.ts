/**
 * One DB iterator kept alive for the life of the module, so that the hidden classes (V8's
 * maps) of the DB iterator, its merging iterator, the merging iterator's heap and child
 * wrappers stay alive too.
 *
 * V8's optimized code holds the maps it was specialized on weakly: when no live object has
 * a map, a full collection frees it and throws away every function compiled against it
 * ("weak objects" in `--trace-deopt`). DB iterators are short-lived (a seekrandom makes one
 * per seek; an application may scan once a minute), so after a full collection that found
 * none alive, the next scan ran `findNextUserEntry`, `prevInternal` and the merging
 * iterator's steps in the lower tiers until V8 compiled them again
 * (`db-iterator-shape.test.ts` checks the code survives). The merging iterator's steps call
 * the table iterator's, compiled into them, so that code also holds a table iterator's map:
 * the keeper merges an iterator over a table of its own, empty, written to memory (a few
 * hundred bytes: footer, index, properties), with an empty iterator. It holds no memtable,
 * no table of the database and no user key. It is made by the first `newDBIterator`, and
 * never closed.
 */
import { bytewiseComparator, type InternalIterator, MemoryFileSystem } from "@shale/base";
import { TableBuilder, TableReader } from "@shale/sstable";
import type { DBIterator } from "./db-iterator.js";

/** An iterator over an empty table in a MemoryFileSystem of its own (read as the database's). */
export function emptyTableIterator(): InternalIterator {
  const fs = new MemoryFileSystem();
  const name = "iterator-shape.sst";
  const file = fs.openWritable(name);
  // A fixed creation time: making the keeper reads no clock (a read with statistics off
  // reads none, merge-statistics.test.ts).
  new TableBuilder(file, { comparator: bytewiseComparator, creationTime: 0 }).finish();
  file.close();
  const reader = TableReader.open(fs.openRandomAccess(name), {
    fileName: name,
    fileSize: fs.fileSize(name),
    comparator: bytewiseComparator,
  });
  return reader.newIterator({ reuseScanBuffers: true });
}

let keeper: DBIterator | undefined;
let making = false;

/** True once an iterator keeps the shapes alive, or while it is being made. */
export function iteratorShapeKept(): boolean {
  return keeper !== undefined || making;
}

/** Makes the keeper with `make` (called once; a `newDBIterator` inside it does not recurse). */
export function keepIteratorShape(make: () => DBIterator): void {
  making = true;
  try {
    const it = make();
    // Both heaps: a reverse move builds the merging iterator's max-heap.
    it.seekToFirst();
    it.seekToLast();
    keeper = it;
  } finally {
    making = false;
  }
}
