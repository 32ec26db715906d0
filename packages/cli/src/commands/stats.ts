/**
 * `shale stats <dir>`: what the database says about itself (RocksDB's `ldb get_property`
 * and the `shale.stats` dump). Text: `shale.stats`; --json: every numeric property by name;
 * `--property <name>` prints one property (exit 1 for an unknown name).
 */
import type { Command } from "commander";
import type { Act } from "../context.js";
import { withFamily } from "../context.js";
import { CliError, ExitCode } from "../exit-codes.js";

/** The properties --json reports (numbers), in the order db.getProperty documents them. */
export const NUMERIC_PROPERTIES: readonly string[] = [
  "shale.latest-sequence",
  "shale.total-sst-files-size",
  "shale.num-immutable-mem-table",
  "shale.cur-size-active-mem-table",
  "shale.size-all-mem-tables",
  "shale.num-entries-active-mem-table",
  "shale.num-snapshots",
  "shale.compaction-pending",
  "shale.num-running-compactions",
  "shale.num-running-flushes",
  "shale.estimate-pending-compaction-bytes",
  "shale.num-compactions",
  "shale.num-trivial-moves",
  "shale.compact-read-bytes",
  "shale.compact-write-bytes",
  "shale.flush-write-bytes",
  "shale.write-amplification",
  "shale.stall-micros",
  "shale.l0-slowdown-micros",
  "shale.l0-stop-micros",
  "shale.memtable-stop-micros",
  "shale.is-write-stopped",
  "shale.block-cache-capacity",
  "shale.block-cache-usage",
  "shale.background-errors",
];

export function registerStats(program: Command, act: Act): void {
  program
    .command("stats")
    .description("print the database's statistics and properties")
    .argument("<dir>", "database directory")
    .option("-p, --property <name>", "print this one property (e.g. shale.levelstats)")
    .action(
      act<{ property?: string }>(async (ctx, [dir], options) => {
        await withFamily(ctx, dir!, { readOnly: true }, (db) => {
          if (options.property !== undefined) {
            const value = db.getProperty(options.property);
            if (value === undefined) {
              throw new CliError(
                `unknown property ${JSON.stringify(options.property)}`,
                ExitCode.NotFound,
              );
            }
            if (ctx.json) ctx.jsonLine({ [options.property]: value });
            else ctx.line(value);
            return;
          }
          if (!ctx.json) {
            ctx.line(db.getProperty("shale.stats") ?? "");
            return;
          }
          const properties: Record<string, number> = {};
          for (const name of NUMERIC_PROPERTIES) {
            const value = db.getProperty(name);
            if (value !== undefined) properties[name] = Number(value);
          }
          const levels = [];
          for (let level = 0; ; level++) {
            const files = db.getProperty(`shale.num-files-at-level${level}`);
            if (files === undefined) break;
            levels.push({
              level,
              files: Number(files),
              bytes: Number(db.getProperty(`shale.bytes-at-level${level}`)),
            });
          }
          ctx.jsonLine({ properties, levels });
        });
        return undefined;
      }),
    );
}
