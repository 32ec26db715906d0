/**
 * `shale scan <dir>`: prints the entries of a key range, one per line: `key : value` for
 * people (ldb's form), one JSON object per line with --json (`{"key":...,"value":...}`,
 * see bytes-format.ts), keys and values as text or, with --hex, hex. Read-only open.
 */
import type { Command } from "commander";
import { formatBytes, jsonBytes } from "../bytes-format.js";
import type { Act } from "../context.js";
import { withFamily } from "../context.js";
import { addRangeOptions, checkRange, type RangeOptions, walkRange } from "../key-range.js";

export function registerScan(program: Command, act: Act): void {
  addRangeOptions(
    program
      .command("scan")
      .description("print the entries of a key range in order")
      .argument("<dir>", "database directory"),
  )
    .option("--keys-only", "print keys only")
    .action(
      act<RangeOptions & { keysOnly?: boolean }>(async (ctx, [dir], options) => {
        checkRange(options);
        const keysOnly = options.keysOnly === true;
        await withFamily(ctx, dir!, { readOnly: true }, (db) =>
          walkRange(ctx, db, options, (key, value) => {
            if (ctx.json) {
              ctx.jsonLine({
                ...jsonBytes("key", key, ctx.keyEncoding),
                ...(keysOnly ? {} : jsonBytes("value", value, ctx.valueEncoding)),
              });
            } else if (keysOnly) {
              ctx.line(formatBytes(key, ctx.keyEncoding));
            } else {
              ctx.line(
                `${formatBytes(key, ctx.keyEncoding)} : ${formatBytes(value, ctx.valueEncoding)}`,
              );
            }
          }),
        );
        return undefined;
      }),
    );
}
