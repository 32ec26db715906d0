/**
 * `shale cf list|create|drop <dir> [name]`: the database's column families (RocksDB's `ldb
 * list_column_families`, `create_column_family`, `drop_column_family`). `list` reads the
 * MANIFEST without opening the database (so it works beside a writer); `create` and `drop`
 * open it read-write. The data commands pick a family with `--column-family <name>`.
 */
import { DB } from "@shale/db";
import type { Command } from "commander";
import type { Act } from "../context.js";
import { hasDatabase, withDatabase } from "../context.js";
import { CliError, ExitCode } from "../exit-codes.js";

export function registerColumnFamilies(program: Command, act: Act): void {
  const cf = program
    .command("cf")
    .description("list, create or drop column families (list | create | drop)");
  cf.command("list")
    .description("list the column families, in id order (default first)")
    .argument("<dir>", "database directory")
    .action(
      act(async (ctx, [dir]) => {
        if (!hasDatabase(dir!)) throw new CliError(`no database in ${dir}`, ExitCode.NotFound);
        const families = DB.listColumnFamilies(dir!);
        if (ctx.json) ctx.jsonLine({ columnFamilies: families });
        else for (const name of families) ctx.line(name);
        return undefined;
      }),
    );
  cf.command("create")
    .description("create a column family (with the database's options)")
    .argument("<dir>", "database directory")
    .argument("<name>", "the new family's name")
    .action(
      act(async (ctx, [dir, name]) => {
        const id = await withDatabase(ctx, dir!, {}, async (db) => {
          const handle = await db.createColumnFamily(name!);
          return handle.id;
        });
        if (ctx.json) ctx.jsonLine({ ok: true, op: "create", name, id });
        else ctx.line(`created column family ${name} (id ${id})`);
        return undefined;
      }),
    );
  cf.command("drop")
    .description("drop a column family and its data (not default)")
    .argument("<dir>", "database directory")
    .argument("<name>", "the family to drop")
    .action(
      act(async (ctx, [dir, name]) => {
        await withDatabase(ctx, dir!, {}, (db) => db.dropColumnFamily(name!));
        if (ctx.json) ctx.jsonLine({ ok: true, op: "drop", name });
        else ctx.line(`dropped column family ${name}`);
        return undefined;
      }),
    );
}
