/**
 * The messages between `openInWorker` (the page) and the database worker
 * (`opfs-db-worker.ts`). Every request carries an `id`; the worker answers each with
 * `{ id, value }` or `{ id, error: { code, message } }`, in order. Keys and values travel as
 * `Uint8Array`s. Internal to the package: both ends ship together.
 */

/** One write of a batch: a put, or a delete (`type: "del"`). */
export type BatchOperation =
  | { type: "put"; key: string | Uint8Array; value: string | Uint8Array }
  | { type: "del"; key: string | Uint8Array };

export type DbRequest =
  | { id: number; op: "open"; name: string; path: string; fs: object; db: object }
  | { id: number; op: "get"; key: Uint8Array }
  | { id: number; op: "getMany"; keys: Uint8Array[] }
  | { id: number; op: "put"; key: Uint8Array; value: Uint8Array; sync: boolean }
  | { id: number; op: "del"; key: Uint8Array; sync: boolean }
  | {
      id: number;
      op: "batch";
      ops: { type: "put" | "del"; key: Uint8Array; value?: Uint8Array }[];
      sync: boolean;
    }
  | { id: number; op: "clear"; options: WireRange; sync: boolean }
  | { id: number; op: "iterator"; options: WireRange }
  | { id: number; op: "next"; iterator: number; count: number }
  | { id: number; op: "seek"; iterator: number; target: Uint8Array }
  | { id: number; op: "endIterator"; iterator: number }
  | { id: number; op: "flush" }
  | { id: number; op: "compact" }
  | { id: number; op: "property"; name: string }
  | { id: number; op: "export" }
  | { id: number; op: "close" };

/** An iterator's range, as `db.iterator` takes it. */
export interface WireRange {
  gt?: Uint8Array;
  gte?: Uint8Array;
  lt?: Uint8Array;
  lte?: Uint8Array;
  reverse?: boolean;
  limit?: number;
}

export interface DbReply {
  id: number;
  value?: unknown;
  error?: { code: string; message: string };
}
