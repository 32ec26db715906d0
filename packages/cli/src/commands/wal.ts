/**
 * `shale wal <file>`: the records of a write-ahead log and the write batch each holds
 * (ldb dump_wal --print_value): `@offset seq S count N bytes B`, then one line per
 * operation (of every column family: an operation of another family than `default` names its
 * id) and two-phase commit marker (BEGIN_PREPARE, END_PREPARE / COMMIT / ROLLBACK and the
 * transaction's name). A torn tail is reported on standard error; damage elsewhere exits 3 with the
 * file and offset, unless `--skip-corrupted` (damaged records are skipped and reported).
 */
import { existsSync } from "node:fs";
import { NodeFileSystem, ValueKind } from "@shale/base";
import { BatchMarker, batchCount, batchSequence, iterateBatch } from "@shale/db/internal";
import { LogReader, WalRecoveryMode } from "@shale/wal";
import type { Command } from "commander";
import { formatBytes, jsonBytes } from "../bytes-format.js";
import type { Act, CommandContext } from "../context.js";
import { CliError, ExitCode } from "../exit-codes.js";

const OP_NAMES: Record<number, string> = {
  [ValueKind.Value]: "PUT",
  [ValueKind.Deletion]: "DELETE",
  [ValueKind.SingleDeletion]: "SINGLE_DELETE",
  [ValueKind.Merge]: "MERGE",
  [ValueKind.RangeDeletion]: "DELETE_RANGE",
};

function opLine(ctx: CommandContext, kind: number, key: Uint8Array, value: Uint8Array): string {
  const k = formatBytes(key, ctx.keyEncoding);
  switch (kind) {
    case ValueKind.Value:
    case ValueKind.Merge:
      return `  ${OP_NAMES[kind]} ${k} => ${formatBytes(value, ctx.valueEncoding)}`;
    case ValueKind.RangeDeletion:
      return `  DELETE_RANGE [${k}, ${formatBytes(value, ctx.keyEncoding)})`;
    default:
      return `  ${OP_NAMES[kind] ?? `KIND(${kind})`} ${k}`;
  }
}

/** Two-phase commit markers, as `ldb dump_wal` names them. */
const MARKER_NAMES: Record<number, string> = {
  [BatchMarker.BeginPrepare]: "BEGIN_PREPARE",
  [BatchMarker.EndPrepare]: "END_PREPARE",
  [BatchMarker.Commit]: "COMMIT",
  [BatchMarker.Rollback]: "ROLLBACK",
};

function opJson(ctx: CommandContext, kind: number, key: Uint8Array, value: Uint8Array) {
  const op: Record<string, unknown> = {
    op: OP_NAMES[kind] ?? `KIND(${kind})`,
    ...jsonBytes("key", key, ctx.keyEncoding),
  };
  if (kind === ValueKind.Value || kind === ValueKind.Merge)
    Object.assign(op, jsonBytes("value", value, ctx.valueEncoding));
  if (kind === ValueKind.RangeDeletion) Object.assign(op, jsonBytes("end", value, ctx.keyEncoding));
  return op;
}

export function registerWal(program: Command, act: Act): void {
  program
    .command("wal")
    .description("dump a write-ahead log's records and batches (ldb dump_wal)")
    .argument("<file>", "a NNNNNN.log file")
    .option("--skip-corrupted", "skip damaged records (reported) instead of stopping with exit 3")
    .option("--no-values", "print keys only")
    .action(
      act<{ skipCorrupted?: boolean; values: boolean }>((ctx, [file], options) => {
        if (!existsSync(file!)) throw new CliError(`no such file: ${file}`, ExitCode.NotFound);
        const dropped: { offset: number; bytes: number; reason: string }[] = [];
        const input = new NodeFileSystem().openSequential(file!);
        const reader = new LogReader(input, {
          fileName: file!,
          mode:
            options.skipCorrupted === true
              ? WalRecoveryMode.SkipAnyCorrupted
              : WalRecoveryMode.TolerateCorruptedTail,
          reporter: (info) =>
            dropped.push({ offset: info.offset, bytes: info.bytes, reason: info.reason }),
        });
        let records = 0;
        let operations = 0;
        try {
          for (
            let record = reader.readRecord();
            record !== undefined;
            record = reader.readRecord()
          ) {
            const offset = reader.lastRecordOffset;
            const seq = batchSequence(record);
            const count = batchCount(record);
            const ops: unknown[] = [];
            if (!ctx.json) ctx.line(`@${offset} seq ${seq} count ${count} bytes ${record.length}`);
            iterateBatch(
              record,
              {
                apply: (kind, key, value, _index, family) => {
                  operations++;
                  const v = options.values ? value : new Uint8Array(0);
                  if (ctx.json) {
                    const op = opJson(ctx, kind, key, v);
                    ops.push(family === 0 ? op : { ...op, columnFamily: family });
                  } else {
                    const line = options.values
                      ? opLine(ctx, kind, key, value)
                      : `  ${OP_NAMES[kind]} ${formatBytes(key, ctx.keyEncoding)}`;
                    ctx.line(family === 0 ? line : `${line} (column family ${family})`);
                  }
                },
                marker: (type, xid) => {
                  const name = MARKER_NAMES[type] ?? `MARKER(${type})`;
                  if (ctx.json)
                    ops.push(
                      xid === undefined
                        ? { op: name }
                        : { op: name, ...jsonBytes("xid", xid, ctx.keyEncoding) },
                    );
                  else
                    ctx.line(
                      xid === undefined
                        ? `  ${name}`
                        : `  ${name} ${formatBytes(xid, ctx.keyEncoding)}`,
                    );
                },
              },
              file,
              offset,
            );
            if (ctx.json) ctx.jsonLine({ offset, seq, count, bytes: record.length, ops });
            records++;
          }
        } finally {
          input.close();
        }
        for (const d of dropped) {
          if (ctx.json) ctx.out.error(`${JSON.stringify({ dropped: d })}\n`);
          else
            ctx.out.error(
              `${file}: dropped ${d.bytes} bytes at offset ${d.offset} (${d.reason})\n`,
            );
        }
        if (!ctx.json) ctx.line(`${records} records, ${operations} operations`);
        return undefined;
      }),
    );
}
