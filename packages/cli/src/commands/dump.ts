/**
 * `shale dump <dir>`: writes every entry of a key range in `load`'s format (dump-format.ts)
 * to standard output or `--output <file>`; the count goes to standard error.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import type { Command } from "commander";
import type { Act } from "../context.js";
import { withFamily } from "../context.js";
import { DUMP_FORMATS, type DumpFormat, formatEntry } from "../dump-format.js";
import { CliError, ExitCode } from "../exit-codes.js";
import { addRangeOptions, checkRange, type RangeOptions, walkRange } from "../key-range.js";

const FLUSH_AT = 1 << 16;

export function registerDump(program: Command, act: Act): void {
  addRangeOptions(
    program
      .command("dump")
      .description("write the database's entries in load's format (hex lines by default)")
      .argument("<dir>", "database directory"),
  )
    .option("-f, --format <format>", "hex, utf8 or json (default: hex; json with --json)")
    .option("-o, --output <file>", "write to this file instead of standard output")
    .action(
      act<RangeOptions & { format?: string; output?: string }>(async (ctx, [dir], options) => {
        checkRange(options);
        const format = (options.format ?? (ctx.json ? "json" : "hex")) as DumpFormat;
        if (!DUMP_FORMATS.includes(format)) {
          throw new CliError(
            `--format must be hex, utf8 or json (got ${JSON.stringify(format)})`,
            ExitCode.Usage,
          );
        }
        const fd = options.output === undefined ? undefined : openSync(options.output, "w");
        let chunk = "";
        const flush = () => {
          if (chunk.length === 0) return;
          if (fd === undefined) ctx.out.write(chunk);
          else writeSync(fd, chunk);
          chunk = "";
        };
        let count: number;
        try {
          count = await withFamily(ctx, dir!, { readOnly: true }, (db) =>
            walkRange(ctx, db, options, (key, value) => {
              chunk += `${formatEntry(key, value, format)}\n`;
              if (chunk.length >= FLUSH_AT) flush();
            }),
          );
          flush();
        } finally {
          if (fd !== undefined) closeSync(fd);
        }
        ctx.out.error(`dumped ${count} entries\n`);
        return undefined;
      }),
    );
}
