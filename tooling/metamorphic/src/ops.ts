/**
 * The operations of a metamorphic test and their text form.
 *
 * A test is a list of operations over named column families (`default` and families the
 * list creates). Each operation is one line of JSON in a testdata file (`op {...}`), so a
 * minimised reproduction reads as the sequence of calls it makes:
 *
 * ```text
 * op {"t":"put","cf":"default","k":"ab1","v":"v7"}
 * op {"t":"snap","id":0}
 * op {"t":"flush","cf":"default"}
 * op {"t":"get","cf":"default","k":"ab1","snap":0}
 * ```
 *
 * Writes: `put`, `del`, `sdel` (a single delete, through a WriteBatch: only of a key put
 * once since its last single delete and never mixed with other deletes or merges, RocksDB's
 * contract), `merge` (the "stringappend" operator),
 * `drange` (delete [s, e)), `batch` (one atomic write of several, across families), `txn`
 * (an optimistic transaction: its writes, reads of its own view, and, with `conflict`, a
 * write by someone else to one of its keys before the commit, which must then fail).
 * Reads: `get`, `iter` (bounds, a snapshot, and steps), `prefix` (a prefix seek: the keys
 * from `k` on that share its first `PREFIX_LENGTH` bytes, at most `n`).
 * Other: `snap`/`release` (snapshots by id), `flush`, `compact`, `checkpoint` (an openable
 * copy, read whole and compared), `reopen` (`crash`: on the fault-injecting file system a
 * power cut, on the others a plain reopen), `createCf`, `dropCf`, `ingest` (an external
 * table written with SstFileWriter and ingested into one family: its point writes in
 * ascending key order, each key once, and range deletions, which cover the data before
 * the file but not the file's own keys, since all of its entries share one sequence number).
 */

/** Length of the prefixes of prefix seeks; every key is at least this long. */
export const PREFIX_LENGTH = 2;

export type WriteOp =
  | { t: "put"; cf: string; k: string; v: string }
  | { t: "del"; cf: string; k: string }
  | { t: "sdel"; cf: string; k: string }
  | { t: "merge"; cf: string; k: string; v: string }
  | { t: "drange"; cf: string; s: string; e: string };

/** One step of an iterator; next/prev on an invalid iterator do nothing. */
export type IterStep =
  | "first"
  | "last"
  | "next"
  | "prev"
  | { seek: string }
  | { seekForPrev: string };

export type Op =
  | (WriteOp & { sync?: boolean })
  | { t: "batch"; ops: WriteOp[]; sync?: boolean }
  | {
      t: "txn";
      ops: WriteOp[];
      /** Keys (of `ops`' families) read through the transaction after its writes. */
      reads: { cf: string; k: string }[];
      /** A plain write to this key of the transaction before its commit: a conflict. */
      conflict?: { cf: string; k: string; v: string };
    }
  | { t: "get"; cf: string; k: string; snap?: number }
  | {
      t: "iter";
      cf: string;
      lo?: string;
      hi?: string;
      snap?: number;
      steps: IterStep[];
    }
  | { t: "prefix"; cf: string; k: string; n: number }
  | { t: "snap"; id: number }
  | { t: "release"; id: number }
  | { t: "flush"; cf: string }
  | { t: "compact"; cf: string; s?: string; e?: string }
  | { t: "checkpoint" }
  | { t: "reopen"; crash?: boolean }
  | { t: "createCf"; cf: string }
  | { t: "dropCf"; cf: string }
  | { t: "ingest"; cf: string; ops: IngestWrite[] };

/** An entry of an ingested file (`ingest`). */
export type IngestWrite = WriteOp & { t: "put" | "del" | "merge" | "drange" };

/** True for the operations that change data (the ones a power cut may lose). */
export function isWrite(
  op: Op,
): op is (WriteOp & { sync?: boolean }) | (Op & { t: "batch" | "ingest" }) {
  return (
    op.t === "put" ||
    op.t === "del" ||
    op.t === "sdel" ||
    op.t === "merge" ||
    op.t === "drange" ||
    op.t === "batch" ||
    op.t === "ingest"
  );
}

/**
 * The writes of an ingested file in the order that gives their effect: its range deletions
 * first (they cover only what was there before the file), then its point entries.
 */
export function ingestOrder(ops: readonly IngestWrite[]): IngestWrite[] {
  return [...ops.filter((w) => w.t === "drange"), ...ops.filter((w) => w.t !== "drange")];
}

/** The one-line text of an operation (JSON; `parseOp` reads it back). */
export function formatOp(op: Op): string {
  return JSON.stringify(op);
}

const OP_KINDS = new Set([
  "put",
  "del",
  "sdel",
  "merge",
  "drange",
  "batch",
  "txn",
  "get",
  "iter",
  "prefix",
  "snap",
  "release",
  "flush",
  "compact",
  "checkpoint",
  "reopen",
  "createCf",
  "dropCf",
  "ingest",
]);

/** Reads `formatOp`'s text; a malformed line is a TypeError naming it. */
export function parseOp(line: string): Op {
  let op: unknown;
  try {
    op = JSON.parse(line);
  } catch {
    throw new TypeError(`not an operation (bad JSON): ${line}`);
  }
  if (typeof op !== "object" || op === null || !OP_KINDS.has((op as { t?: unknown }).t as string)) {
    throw new TypeError(`not an operation: ${line}`);
  }
  return op as Op;
}
