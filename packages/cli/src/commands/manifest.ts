/**
 * `shale manifest <file|dir>`: the VersionEdits of a MANIFEST, one block per record, then
 * the version they add up to (ldb manifest_dump). Given a database directory it reads the
 * MANIFEST that CURRENT names. The log is read strictly except for a torn tail, which is
 * reported; damage elsewhere exits 3 naming the file and offset.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { NodeFileSystem } from "@shale/base";
import { type FileMetaData, VersionEdit } from "@shale/db/internal";
import { LogReader, WalRecoveryMode } from "@shale/wal";
import type { Command } from "commander";
import type { Act, CommandContext } from "../context.js";
import { CliError, ExitCode } from "../exit-codes.js";
import { internalKeyFields, internalKeyString } from "../internal-key-format.js";

function manifestPath(path: string): string {
  if (!existsSync(path)) throw new CliError(`no such file: ${path}`, ExitCode.NotFound);
  if (!statSync(path).isDirectory()) return path;
  const current = join(path, "CURRENT");
  if (!existsSync(current))
    throw new CliError(`no database in ${path} (no CURRENT)`, ExitCode.NotFound);
  const name = readFileSync(current, "utf8").trim();
  return join(path, name);
}

function fileText(ctx: CommandContext, f: FileMetaData): string {
  return `${f.number}:${f.size}[${f.smallestSeq} .. ${f.largestSeq}]['${internalKeyString(ctx, f.smallest)}' .. '${internalKeyString(ctx, f.largest)}']`;
}

function fileJson(ctx: CommandContext, f: FileMetaData) {
  return {
    number: f.number,
    size: f.size,
    smallest: internalKeyFields(ctx, f.smallest),
    largest: internalKeyFields(ctx, f.largest),
    smallestSeq: f.smallestSeq,
    largestSeq: f.largestSeq,
    ...(f.fileCreationTime !== undefined ? { fileCreationTime: f.fileCreationTime } : {}),
    ...(f.fileChecksumFuncName !== undefined
      ? { fileChecksumFuncName: f.fileChecksumFuncName }
      : {}),
  };
}

function editJson(ctx: CommandContext, e: VersionEdit, offset: number) {
  const out: Record<string, unknown> = { offset };
  if (e.dbId !== undefined) out.dbId = e.dbId;
  if (e.comparator !== undefined) out.comparator = e.comparator;
  if (e.logNumber !== undefined) out.logNumber = e.logNumber;
  if (e.prevLogNumber !== undefined) out.prevLogNumber = e.prevLogNumber;
  if (e.nextFileNumber !== undefined) out.nextFileNumber = e.nextFileNumber;
  if (e.maxColumnFamily !== undefined) out.maxColumnFamily = e.maxColumnFamily;
  if (e.minLogNumberToKeep !== undefined) out.minLogNumberToKeep = e.minLogNumberToKeep;
  if (e.lastSequence !== undefined) out.lastSequence = e.lastSequence;
  if (e.columnFamily !== 0) out.columnFamily = e.columnFamily;
  if (e.columnFamilyAdd !== undefined) out.columnFamilyAdd = e.columnFamilyAdd;
  if (e.columnFamilyDrop) out.columnFamilyDrop = true;
  if (e.atomicGroupRemaining !== undefined) out.atomicGroupRemaining = e.atomicGroupRemaining;
  if (e.compactCursors.length > 0) {
    out.compactCursors = e.compactCursors.map((c) => ({
      level: c.level,
      key: internalKeyFields(ctx, c.key),
    }));
  }
  if (e.deletedFiles.length > 0) out.deletedFiles = e.deletedFiles;
  if (e.newFiles.length > 0)
    out.newFiles = e.newFiles.map((n) => ({ level: n.level, ...fileJson(ctx, n.file) }));
  return out;
}

function editLines(ctx: CommandContext, e: VersionEdit, index: number, offset: number): string[] {
  const lines = [`VersionEdit #${index} @ ${offset} {`];
  const field = (name: string, value: unknown) => {
    if (value !== undefined) lines.push(`  ${name}: ${String(value)}`);
  };
  field("DbId", e.dbId);
  field("Comparator", e.comparator);
  field("LogNumber", e.logNumber);
  field("PrevLogNumber", e.prevLogNumber);
  field("NextFileNumber", e.nextFileNumber);
  field("MaxColumnFamily", e.maxColumnFamily);
  field("MinLogNumberToKeep", e.minLogNumberToKeep);
  field("LastSeq", e.lastSequence);
  if (e.columnFamily !== 0) field("ColumnFamily", e.columnFamily);
  field("ColumnFamilyAdd", e.columnFamilyAdd);
  if (e.columnFamilyDrop) field("ColumnFamilyDrop", "true");
  field(
    "AtomicGroup",
    e.atomicGroupRemaining === undefined ? undefined : `${e.atomicGroupRemaining} remaining`,
  );
  for (const c of e.compactCursors)
    field("CompactCursor", `${c.level} '${internalKeyString(ctx, c.key)}'`);
  for (const d of e.deletedFiles) field("DeleteFile", `${d.level} ${d.number}`);
  for (const n of e.newFiles) field("AddFile", `${n.level} ${fileText(ctx, n.file)}`);
  lines.push("}");
  return lines;
}

export function registerManifest(program: Command, act: Act): void {
  program
    .command("manifest")
    .description("dump a MANIFEST's version edits and the version they make (ldb manifest_dump)")
    .argument("<path>", "a MANIFEST-NNNNNN file, or a database directory (its current MANIFEST)")
    .option("--edits-only", "print the edits, not the resulting version")
    .action(
      act<{ editsOnly?: boolean }>((ctx, [path], options) => {
        const file = manifestPath(path!);
        const torn: string[] = [];
        const input = new NodeFileSystem().openSequential(file);
        const reader = new LogReader(input, {
          fileName: file,
          mode: WalRecoveryMode.TolerateCorruptedTail,
          reporter: (info) =>
            torn.push(
              `torn tail: ${info.bytes} bytes at offset ${info.offset} dropped (${info.reason})`,
            ),
        });
        // The default column family's files by level (others are counted, not shown).
        const levels = new Map<number, Map<number, FileMetaData>>();
        const summary = {
          logNumber: 0,
          nextFileNumber: 0,
          lastSequence: 0,
          comparator: "",
          editCount: 0,
        };
        const edits: unknown[] = [];
        try {
          for (
            let record = reader.readRecord();
            record !== undefined;
            record = reader.readRecord()
          ) {
            const offset = reader.lastRecordOffset;
            const edit = VersionEdit.decode(record, file, offset);
            if (ctx.json) edits.push(editJson(ctx, edit, offset));
            else for (const l of editLines(ctx, edit, summary.editCount, offset)) ctx.line(l);
            summary.editCount++;
            if (edit.comparator !== undefined) summary.comparator = edit.comparator;
            if (edit.nextFileNumber !== undefined) summary.nextFileNumber = edit.nextFileNumber;
            if (edit.lastSequence !== undefined) summary.lastSequence = edit.lastSequence;
            if (edit.columnFamily !== 0) continue;
            if (edit.logNumber !== undefined) summary.logNumber = edit.logNumber;
            for (const d of edit.deletedFiles) levels.get(d.level)?.delete(d.number);
            for (const n of edit.newFiles) {
              let level = levels.get(n.level);
              if (level === undefined) levels.set(n.level, (level = new Map()));
              level.set(n.file.number, n.file);
            }
          }
        } finally {
          input.close();
        }
        const sorted = [...levels.entries()].sort((a, b) => a[0] - b[0]);
        if (ctx.json) {
          ctx.jsonLine({
            file,
            edits,
            ...summary,
            torn,
            ...(options.editsOnly === true
              ? {}
              : {
                  levels: sorted.map(([level, files]) => ({
                    level,
                    files: [...files.values()].map((f) => fileJson(ctx, f)),
                  })),
                }),
          });
          return undefined;
        }
        for (const t of torn) ctx.out.error(`${file}: ${t}\n`);
        if (options.editsOnly === true) return undefined;
        ctx.line(`--------------- ${file}: ${summary.editCount} edits ---------------`);
        ctx.line(
          `comparator: ${summary.comparator}  log number: ${summary.logNumber}  next file number: ${summary.nextFileNumber}  last sequence: ${summary.lastSequence}`,
        );
        for (const [level, files] of sorted) {
          ctx.line(`--- level ${level} --- ${files.size} files`);
          for (const f of files.values()) ctx.line(` ${fileText(ctx, f)}`);
        }
        return undefined;
      }),
    );
}
