/**
 * `shale verify <dir>`: re-reads every block of every live table, every record of the live
 * WALs and of the MANIFEST, and checks their checksums (`db.verifyChecksums`). Exit 0 when
 * everything is sound; exit 3 listing every damaged file (and offset) otherwise. Opens the
 * database read-only, so it runs beside a writer.
 */
import type { Command } from "commander";
import type { Act } from "../context.js";
import { withDatabase } from "../context.js";
import { ExitCode } from "../exit-codes.js";

export function registerVerify(program: Command, act: Act): void {
  program
    .command("verify")
    .description(
      "verify the checksums of every live table, WAL and the MANIFEST (exit 3 on damage)",
    )
    .argument("<dir>", "database directory")
    .action(
      act(async (ctx, [dir]) => {
        const report = await withDatabase(ctx, dir!, { readOnly: true }, (db) =>
          db.verifyChecksums({ collect: true }),
        );
        if (ctx.json) {
          ctx.jsonLine({
            ok: report.ok,
            tables: report.tables,
            blocks: report.blocks,
            logs: report.logs,
            records: report.records,
            bytes: report.bytes,
            problems: report.problems.map((p) => ({
              file: p.file,
              offset: p.offset,
              message: p.message,
            })),
          });
        } else {
          for (const p of report.problems) {
            ctx.out.error(
              `Corruption: ${p.file}${p.offset !== undefined ? ` at offset ${p.offset}` : ""}: ${p.message}\n`,
            );
          }
          const summary = `${report.tables} tables (${report.blocks} blocks), ${report.logs} logs (${report.records} records), ${report.bytes} bytes`;
          ctx.line(
            report.ok
              ? `OK ${summary}`
              : `FAILED: ${report.problems.length} damaged; read ${summary}`,
          );
        }
        return report.ok ? ExitCode.Ok : ExitCode.Corruption;
      }),
    );
}
