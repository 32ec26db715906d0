/**
 * One memtable iterator kept alive for the life of the module, so that the hidden class
 * (V8's map) of every iterator stays alive too.
 *
 * V8's optimized code holds the maps it was specialized on weakly: when no live object has
 * a map, a full collection frees it and throws away every function compiled against it
 * ("weak objects" in `--trace-deopt`). Memtable iterators are short-lived, so after a full
 * collection that found none alive, the next scan ran its steps, `key()` and `value()` in
 * the interpreter and baseline tiers until V8 compiled them again: in the component bench,
 * where every round starts with a collection, the first scan of a fresh table took 4-8x its
 * later ones (`memtable-iterator-shape.test.ts` checks the code survives). The keeper is an
 * iterator over an empty memtable of its own that is never released (a few hundred bytes
 * and a 4 KiB first chunk), made by the first `newIterator()`.
 */
import type { MemTableIterator } from "./memtable-iterator.js";

let keeper: MemTableIterator | undefined;

/** True once an iterator keeps the shape alive. */
export function iteratorShapeKept(): boolean {
  return keeper !== undefined;
}

/** Keeps `iterator` (over a memtable that is never released) alive from now on. */
export function keepIteratorShape(iterator: MemTableIterator): void {
  keeper = iterator;
}
