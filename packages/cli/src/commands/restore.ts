/**
 * `shale restore <backup-dir> <target> [--id n]`: writes a backup (default: the newest) into
 * `target` as an openable database. An interrupted restore leaves `RESTORE-IN-PROGRESS` in
 * `target`, which every open refuses; running the restore again finishes it.
 */
import { BackupEngine } from "@shale/db";
import type { Command } from "commander";
import type { Act } from "../context.js";
import { backupId } from "./backup.js";

export function registerRestore(program: Command, act: Act): void {
  program
    .command("restore")
    .description("restore a backup (default: the newest) into a new database directory")
    .argument("<backup-dir>", "backup directory")
    .argument("<target>", "where the database goes (must not exist, or be empty)")
    .option("--id <n>", "the backup to restore (default: the newest)")
    .action(
      act<{ id?: string }>(async (ctx, [backupDir, target], options) => {
        const engine = BackupEngine.open(backupDir!);
        const id = backupId(engine, options.id);
        await engine.restoreBackup(id, target!);
        if (ctx.json) ctx.jsonLine({ ok: true, restored: id, dir: target });
        else ctx.line(`restored backup #${id} to ${target}`);
        return undefined;
      }),
    );
}
