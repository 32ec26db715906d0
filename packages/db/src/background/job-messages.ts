/**
 * The messages a worker executor posts for a flush or a compaction, and what it does with
 * the answer, for both transports (worker-executor.ts: Node's worker threads;
 * nested-worker-executor.ts: a browser's nested workers). A job that cannot cross to another
 * thread (a user's comparator or merge operator object, a prefix extractor that does not
 * cross) has no message: the executor runs it inline.
 */
import { prefixExtractorCrossesThreads } from "../compaction/build-table.js";
import { attachCapturedBlocks } from "../read/table-warming.js";
import type {
  CompactCallback,
  CompactRequest,
  FlushRequest,
  InlineExecutor,
  JobCallback,
} from "./executor.js";
import {
  builtinComparator,
  type CompactMessage,
  type FlushMessage,
  mergeOperatorRef,
  type ResultMessage,
} from "./protocol.js";

/** A posted job's ending: its result, its failure, or a run on this thread instead. */
export interface Waiter {
  ok(m: ResultMessage & { ok: true }): void;
  fail(e: Error): void;
  /** Runs the job on this thread instead (its worker never started). */
  inline(): void;
}

/** The message of flush `request` (job `id`), or undefined when it must run inline. */
export function flushMessage(id: number, request: FlushRequest): FlushMessage | undefined {
  if (!prefixExtractorCrossesThreads(request.table)) return undefined;
  return {
    id,
    type: "flush",
    dir: request.dir,
    fileNumber: request.fileNumber,
    comparator: request.comparator.name,
    // Without the hash index: a flush iterates, and an index table posted here would live
    // until the worker's garbage collection too.
    memtable: request.mem.exportShared({ index: false }),
    table: request.table,
    snapshots: request.snapshots,
  };
}

export function flushWaiter(
  request: FlushRequest,
  done: JobCallback,
  inline: InlineExecutor,
): Waiter {
  return {
    ok: (m) => {
      if (m.type !== "flush") {
        done(undefined, undefined);
        return;
      }
      if (m.file !== undefined && m.blocks !== undefined) attachCapturedBlocks(m.file, m.blocks);
      done(undefined, m.file);
    },
    fail: (e) => done(e, undefined),
    inline: () => inline.flush(request, done),
  };
}

/** The message of compaction `request` (job `id`), or undefined when it must run inline. */
export function compactMessage(id: number, request: CompactRequest): CompactMessage | undefined {
  const op = request.mergeOperator;
  const opName = op === undefined ? undefined : mergeOperatorRef(op);
  if (
    builtinComparator(request.comparator.name) !== request.comparator ||
    !prefixExtractorCrossesThreads(request.spec.table) ||
    (op !== undefined && opName === undefined)
  )
    return undefined;
  return {
    ...request.spec,
    id,
    type: "compact",
    comparator: request.comparator.name,
    mergeOperator: opName,
  };
}

export function compactWaiter(
  request: CompactRequest,
  done: CompactCallback,
  inline: InlineExecutor,
): Waiter {
  return {
    ok: (m) => {
      if (m.type === "compact") {
        const files = m.result.files;
        const blocks = m.blocks;
        if (blocks !== undefined) {
          for (let i = 0; i < files.length; i++) {
            const b = blocks[i];
            if (b !== undefined) attachCapturedBlocks(files[i]!, b);
          }
        }
        done(undefined, m.result);
      } else done(new Error("a compaction answered as a flush"), undefined);
    },
    fail: (e) => done(e, undefined),
    inline: () => inline.compact(request, done),
  };
}
