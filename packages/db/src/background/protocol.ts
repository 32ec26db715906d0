/**
 * Messages between the database (main thread) and its background workers. Everything is
 * structured-clone friendly: memtables travel as SharedArrayBuffers (no copy), comparators
 * by name (only the built-in ones can cross threads; others run inline).
 */
import {
  bytewiseComparator,
  type Comparator,
  type ErrorCode,
  reverseBytewiseComparator,
  ShaleError,
} from "@shale/base";
import type { SharedMemTableData } from "@shale/memtable";
import { type CapturedDataBlocks, capturedTransferList } from "@shale/sstable";
import type { TableWriteOptions } from "../compaction/build-table.js";
import type { CompactionJobResult, CompactionJobSpec } from "../compaction/compaction-job.js";
import {
  DEFAULT_STRING_APPEND,
  type MergeOperator,
  maxOperator,
  uint64AddOperator,
} from "../core/merge-operator.js";
import { mergeOperatorModule } from "../core/module-options.js";
import { ttlInnerOperator } from "../core/ttl.js";
import type { ModuleExportRef } from "../core/user-module.js";
import type { FileMetaData } from "../version/version-edit.js";

export interface FlushMessage {
  id: number;
  type: "flush";
  dir: string;
  fileNumber: number;
  comparator: string;
  memtable: SharedMemTableData;
  table: TableWriteOptions;
  snapshots: number[];
}

/**
 * How a merge operator crosses to a worker: a built-in by name, or the module export it was
 * loaded from (core/user-module.ts). A TTL family's operator crosses as its inner operator;
 * the worker wraps it again (the job's `filter.ttl` says so).
 */
export type MergeOperatorRef = string | ModuleExportRef;

/**
 * A compaction: the job spec (with its compaction filter's module in `filter`) plus the
 * comparator by name and the merge operator by reference.
 */
export interface CompactMessage extends CompactionJobSpec {
  id: number;
  type: "compact";
  comparator: string;
  mergeOperator: MergeOperatorRef | undefined;
}

/** Deletes obsolete files off the main thread (unlinking a big file can take milliseconds). */
export interface RemoveMessage {
  id: number;
  type: "remove";
  paths: string[];
}

export type JobMessage = FlushMessage | CompactMessage | RemoveMessage;

export interface SerializedError {
  code: ErrorCode | undefined;
  message: string;
  file: string | undefined;
  offset: number | undefined;
}

/**
 * A job's answer. `blocks`: the data blocks its tables captured for warming the block cache
 * (`TableWriteOptions.captureBlocks`), their buffers transferred, not copied; a compaction's
 * are in its files' order (undefined for a file without). Only Node's worker threads send
 * them (`transferListOf`); a browser's nested worker answers as JSON and captures nothing.
 */
export type ResultMessage =
  | {
      id: number;
      ok: true;
      type: "flush";
      file: FileMetaData | undefined;
      blocks?: CapturedDataBlocks | undefined;
    }
  | {
      id: number;
      ok: true;
      type: "compact";
      result: CompactionJobResult;
      blocks?: (CapturedDataBlocks | undefined)[];
    }
  | { id: number; ok: true; type: "remove" }
  | { id: number; ok: false; error: SerializedError };

/** Sent instead of results when the worker body failed to load. */
export interface FatalMessage {
  id: -1;
  fatal: true;
  message: string;
}

export type WorkerMessage = ResultMessage | FatalMessage;

const BUILTIN: Record<string, Comparator> = {
  [bytewiseComparator.name]: bytewiseComparator,
  [reverseBytewiseComparator.name]: reverseBytewiseComparator,
};

/** The built-in comparator of that name, if any (only those can run in a worker). */
export function builtinComparator(name: string): Comparator | undefined {
  return BUILTIN[name];
}

const BUILTIN_MERGE = new Map<string, MergeOperator>([
  ["max", maxOperator],
  ["uint64add", uint64AddOperator],
  ["stringappend", DEFAULT_STRING_APPEND],
]);

/**
 * The name under which `op` crosses to a worker, or undefined when it cannot (a user's
 * object — even one named like a built-in — runs on the main thread).
 */
export function builtinMergeOperatorName(op: MergeOperator): string | undefined {
  return BUILTIN_MERGE.get(op.name) === op ? op.name : undefined;
}

/**
 * How `op` crosses to a worker (see MergeOperatorRef), or undefined when it cannot (a user's
 * object given as such runs on the main thread).
 */
export function mergeOperatorRef(op: MergeOperator): MergeOperatorRef | undefined {
  const inner = ttlInnerOperator(op) ?? op;
  return builtinMergeOperatorName(inner) ?? mergeOperatorModule(inner);
}

/** The built-in merge operator of that name (in a worker). */
export function builtinMergeOperator(name: string): MergeOperator | undefined {
  return BUILTIN_MERGE.get(name);
}

export function serializeError(e: unknown): SerializedError {
  if (ShaleError.isInstance(e)) {
    return { code: e.code, message: e.message, file: e.file, offset: e.offset };
  }
  return {
    code: undefined,
    message: e instanceof Error ? (e.stack ?? e.message) : String(e),
    file: undefined,
    offset: undefined,
  };
}

export function deserializeError(s: SerializedError): Error {
  if (s.code === undefined) return new Error(`background job failed: ${s.message}`);
  const options: { file?: string; offset?: number } = {};
  if (s.file !== undefined) options.file = s.file;
  if (s.offset !== undefined) options.offset = s.offset;
  // The message already carries "Code: ..." and the location; strip the prefix.
  const message = s.message.replace(/^\w+: /, "").replace(/ \([^)]*\)$/, "");
  return new ShaleError(s.code, message, options);
}

/** The buffers to transfer (not copy) when posting `reply`: its captured blocks'. */
export function transferListOf(reply: ResultMessage): ArrayBuffer[] {
  if (!reply.ok) return [];
  if (reply.type === "flush")
    return reply.blocks === undefined ? [] : capturedTransferList(reply.blocks);
  if (reply.type !== "compact" || reply.blocks === undefined) return [];
  const list: ArrayBuffer[] = [];
  for (const b of reply.blocks) if (b !== undefined) list.push(...capturedTransferList(b));
  return list;
}
