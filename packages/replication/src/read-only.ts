/**
 * A follower's database as its application sees it: a read-only view. Only the follower
 * writes to it (each batch of the feed, at the feed's own sequence numbers), so a write of
 * the application would take a sequence number the feed's next batch needs and would never
 * reach the other replicas. The view is a Proxy of the `DB`: the write methods listed in
 * WRITE_METHODS throw NotSupported, a column family handle is wrapped the same way, and
 * everything else (get, iterators, snapshots, properties, checkpoints, the change feed)
 * goes to the database. `close` belongs to the follower (`f.close()`).
 */
import { ShaleError } from "@shale/base";
import type { DB } from "@shale/db";

/** The methods the view refuses. */
export const WRITE_METHODS: ReadonlySet<string> = new Set([
  "put",
  "delete",
  "singleDelete",
  "merge",
  "deleteRange",
  "write",
  "clear",
  "createColumnFamily",
  "dropColumnFamily",
  "beginTransaction",
  "transaction",
  "deleteFilesInRange",
  "ingestExternalFile",
  "close",
]);

function refuse(name: string): never {
  throw ShaleError.notSupported(
    name === "close"
      ? "a follower's database is closed by the follower (f.close())"
      : `${name}: a follower's database is read-only (it takes its writes from the change feed; promote the follower to write)`,
  );
}

function view<T extends object>(target: T): T {
  return new Proxy(target, {
    get(t, prop) {
      if (typeof prop === "string" && WRITE_METHODS.has(prop)) return () => refuse(prop);
      if (prop === "columnFamily")
        return (name: string) => view((t as unknown as DB).columnFamily(name));
      const value = Reflect.get(t, prop, t);
      return typeof value === "function" ? value.bind(t) : value;
    },
    set() {
      throw ShaleError.notSupported("a follower's database is read-only");
    },
  });
}

/** The read-only view of `db` (see the file comment). */
export function readOnlyView(db: DB): DB {
  return view(db);
}
