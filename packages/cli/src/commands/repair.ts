/**
 * `shale repair <dir>`: rebuilds the MANIFEST from the tables and WALs present (RocksDB's
 * RepairDB, `repair()`), then prints what it kept, salvaged and dropped — the lines it also
 * appends to the database's LOG. Nothing is deleted: what it sets aside goes to `lost/`.
 * The database must not be open (exit 4 otherwise).
 */
import { existsSync } from "node:fs";
import { repair } from "@shale/db";
import type { Command } from "commander";
import type { Act } from "../context.js";
import { CliError, ExitCode } from "../exit-codes.js";

export function registerRepair(program: Command, act: Act): void {
  program
    .command("repair")
    .description("rebuild a lost or damaged MANIFEST from the tables and WALs present")
    .argument("<dir>", "database directory")
    .action(
      act(async (ctx, [dir]) => {
        if (!existsSync(dir!)) throw new CliError(`no such directory: ${dir}`, ExitCode.NotFound);
        const report = await repair(
          dir!,
          ctx.mergeOperator !== undefined ? { mergeOperator: ctx.mergeOperator } : {},
        );
        if (ctx.json) {
          ctx.jsonLine({
            ok: true,
            manifest: report.manifest,
            lastSequence: report.lastSequence,
            tables: report.tables,
            logs: report.logs,
            dropped: report.dropped,
            moved: report.moved,
            compacted: report.compacted,
          });
        } else {
          for (const line of report.lines) ctx.line(line);
        }
        return undefined;
      }),
    );
}
