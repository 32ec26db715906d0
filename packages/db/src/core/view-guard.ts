/**
 * The invariants mode's watch over zero-copy views (`SHALE_INVARIANTS=1`, on in tests).
 *
 * `db.getView()` and a DB iterator's `key()`/`value()` hand out views of memory the engine
 * keeps using — the memtable arena (which the next flush writes to disk), a cached block, the
 * iterator's own key buffer. Writing into one rewrites the store or the iteration. A view is
 * valid for a documented lifetime (getView: until the next call into the database or one of
 * its iterators; key()/value(): until the iterator next moves or closes). In the invariants mode each view
 * handed out is recorded with its xxh32, and at the end of its lifetime — the next call, the
 * next move — the checksums are verified and the records dropped: a write into a view during
 * its lifetime fails that next call with an invariant error naming the view, before the
 * damage is flushed, compacted or read back. (Checking later would be wrong: once a view's
 * lifetime is over, the engine may reuse or mangle that memory, e.g. a released block.)
 *
 * Off (production): `record` and `verify` are never called — each call site tests the
 * `invariants` constant first, one predictable branch.
 */
import { assertInvariant, xxh32 } from "@shale/base";

/**
 * One guard per thread, shared by every database and iterator: a view recorded by one is
 * verified (and forgotten) at the next call into any of them. Forgetting a view before its
 * lifetime ends only narrows detection; a view is only ever checked while it is valid, so
 * there are no false alarms.
 */
export class ViewGuard {
  private readonly views: Uint8Array[] = [];
  private readonly sums: number[] = [];
  /** What hands the views out, for the message ("db.getView()", "iterator.value()"). */
  private readonly names: string[] = [];

  /** True if some view waits for its check. */
  get pending(): boolean {
    return this.views.length > 0;
  }

  /** Records `view` (handed out by `what`); returns it. */
  record<T extends Uint8Array | undefined>(view: T, what: string): T {
    if (view !== undefined) {
      this.views.push(view);
      this.sums.push(xxh32(view));
      this.names.push(what);
    }
    return view;
  }

  /**
   * The lifetime of every recorded view ended: throws an invariant error if one was written
   * into, and forgets them all (also when throwing, so one bad write is reported once).
   */
  verify(): void {
    const { views, sums, names } = this;
    let bad = -1;
    for (let i = 0; i < views.length && bad < 0; i++) {
      if (xxh32(views[i]!) !== sums[i]) bad = i;
    }
    const what = bad >= 0 ? `${names[bad]} (${views[bad]!.length} bytes)` : "";
    views.length = 0;
    sums.length = 0;
    names.length = 0;
    assertInvariant(
      bad < 0,
      `a view returned by ${what} was written into: zero-copy views are read-only (they are the store's own memory); copy it (slice()) to modify it, or use get()`,
    );
  }
}

/** The thread's guard (see ViewGuard). */
export const viewGuard = new ViewGuard();
