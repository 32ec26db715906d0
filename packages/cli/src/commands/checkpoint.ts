/**
 * `shale checkpoint <dir> <target>`: an openable copy of the database as of now in `target`
 * (RocksDB's Checkpoint: tables hard-linked where the file system allows, else copied; see
 * `db.checkpoint`). `target` must not exist or be empty.
 */
import type { Command } from "commander";
import type { Act } from "../context.js";
import { withDatabase } from "../context.js";

export function registerCheckpoint(program: Command, act: Act): void {
  program
    .command("checkpoint")
    .description("write an openable copy of the database as of now (tables hard-linked)")
    .argument("<dir>", "database directory")
    .argument("<target>", "where the copy goes (must not exist, or be empty)")
    .option("--flush", "flush the memtable first (needed for writes made without the WAL)")
    .action(
      act<{ flush?: boolean }>(async (ctx, [dir, target], options) => {
        const info = await withDatabase(ctx, dir!, {}, (db) =>
          db.checkpoint(target!, options.flush === true ? { flush: true } : {}),
        );
        if (ctx.json) ctx.jsonLine({ ok: true, ...info });
        else {
          ctx.line(
            `checkpoint ${info.dir}: sequence ${info.sequence}, ${info.files.length} files ` +
              `(${info.linked} linked, ${info.copied} copied), ${info.bytes} bytes`,
          );
        }
        return undefined;
      }),
    );
}
