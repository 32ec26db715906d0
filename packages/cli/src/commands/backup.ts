/**
 * `shale backup <create|list|verify|purge|delete>`: RocksDB's BackupEngine over a backup
 * directory (incremental: tables stored once, every file checksummed; see BackupEngine).
 * `shale restore` puts a backup back. A backup that fails `verify` exits 3, naming the file.
 */
import { BackupEngine, type BackupInfo } from "@shale/db";
import type { Command } from "commander";
import type { Act } from "../context.js";
import { parseCount, withDatabase } from "../context.js";
import { CliError, ExitCode } from "../exit-codes.js";

function describe(b: BackupInfo): string {
  const when = new Date(b.timestamp).toISOString();
  const meta = b.metadata === undefined ? "" : `  ${JSON.stringify(b.metadata)}`;
  return `#${b.id}  ${when}  sequence ${b.sequence}  ${b.numFiles} files  ${b.size} bytes${meta}`;
}

/** The id argument, or the newest backup's when it is missing. */
export function backupId(engine: BackupEngine, text: string | undefined): number {
  if (text !== undefined) {
    const id = parseCount(text, "backup id");
    if (id === 0) throw new CliError("backup ids start at 1", ExitCode.Usage);
    if (
      !engine.listBackups().some((b) => b.id === id) &&
      !engine.getCorruptedBackups().some((b) => b.id === id)
    ) {
      throw new CliError(`no backup #${id} in ${engine.dir}`, ExitCode.NotFound);
    }
    return id;
  }
  const all = engine.listBackups();
  if (all.length === 0) throw new CliError(`no backups in ${engine.dir}`, ExitCode.NotFound);
  return all[all.length - 1]!.id;
}

export function registerBackup(program: Command, act: Act): void {
  const backup = program
    .command("backup")
    .description("incremental, checksummed backups: create, list, verify, purge, delete");

  backup
    .command("create")
    .description("back up a database (it may be in use by this command only)")
    .argument("<dir>", "database directory")
    .argument("<backup-dir>", "backup directory (created if missing)")
    .option("--flush", "flush the memtable first")
    .option("--metadata <text>", "a note kept with the backup")
    .action(
      act<{ flush?: boolean; metadata?: string }>(async (ctx, [dir, backupDir], options) => {
        const engine = BackupEngine.open(backupDir!);
        const info = await withDatabase(ctx, dir!, {}, (db) =>
          engine.createBackup(db, {
            ...(options.flush === true ? { flush: true } : {}),
            ...(options.metadata !== undefined ? { metadata: options.metadata } : {}),
          }),
        );
        if (ctx.json) ctx.jsonLine({ ok: true, backup: info });
        else ctx.line(`created backup ${describe(info)}`);
        return undefined;
      }),
    );

  backup
    .command("list")
    .description("list the backups (and the ones that cannot be read)")
    .argument("<backup-dir>", "backup directory")
    .action(
      act((ctx, [backupDir]) => {
        const engine = BackupEngine.open(backupDir!);
        const backups = engine.listBackups();
        const corrupted = engine.getCorruptedBackups();
        if (ctx.json) {
          ctx.jsonLine({
            backups,
            corrupted: corrupted.map((c) => ({ id: c.id, message: c.error.message })),
          });
        } else {
          if (backups.length === 0) ctx.line(`no backups in ${backupDir}`);
          for (const b of backups) ctx.line(describe(b));
          for (const c of corrupted) ctx.line(`#${c.id}  CORRUPTED: ${c.error.message}`);
        }
        return undefined;
      }),
    );

  backup
    .command("verify")
    .description("re-read every file of a backup (default: all) against its size and checksum")
    .argument("<backup-dir>", "backup directory")
    .argument("[id]", "the backup to verify (default: every backup)")
    .action(
      act(async (ctx, [backupDir, idText]) => {
        const engine = BackupEngine.open(backupDir!);
        const ids =
          idText === undefined ? engine.listBackups().map((b) => b.id) : [backupId(engine, idText)];
        const corrupted = idText === undefined ? engine.getCorruptedBackups() : [];
        if (corrupted.length > 0) throw corrupted[0]!.error;
        if (ids.length === 0) throw new CliError(`no backups in ${backupDir}`, ExitCode.NotFound);
        for (const id of ids) {
          await engine.verifyBackup(id);
          if (!ctx.json) ctx.line(`OK backup #${id}`);
        }
        if (ctx.json) ctx.jsonLine({ ok: true, verified: ids });
        return undefined;
      }),
    );

  backup
    .command("purge")
    .description("delete all but the newest --keep backups (and the files only they used)")
    .argument("<backup-dir>", "backup directory")
    .requiredOption("--keep <n>", "how many of the newest backups to keep")
    .action(
      act<{ keep: string }>(async (ctx, [backupDir], options) => {
        const keep = parseCount(options.keep, "--keep");
        const deleted = await BackupEngine.open(backupDir!).purgeOldBackups(keep);
        if (ctx.json) ctx.jsonLine({ ok: true, deleted });
        else
          ctx.line(
            deleted.length === 0
              ? "nothing to purge"
              : `deleted backups ${deleted.map((id) => `#${id}`).join(" ")}`,
          );
        return undefined;
      }),
    );

  backup
    .command("delete")
    .description("delete one backup (and the files only it used)")
    .argument("<backup-dir>", "backup directory")
    .argument("<id>", "the backup to delete")
    .action(
      act(async (ctx, [backupDir, idText]) => {
        const engine = BackupEngine.open(backupDir!);
        const id = backupId(engine, idText);
        await engine.deleteBackup(id);
        if (ctx.json) ctx.jsonLine({ ok: true, deleted: [id] });
        else ctx.line(`deleted backup #${id}`);
        return undefined;
      }),
    );
}
