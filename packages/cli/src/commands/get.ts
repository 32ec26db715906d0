/**
 * `shale get <dir> <key>`: prints the value of one key. A missing key exits 1 (NotFound)
 * with nothing on standard output (with --json: `{"found":false,...}`). Opens the database
 * read-only (context.ts), so it works beside a writer in another process.
 */
import type { Command } from "commander";
import { formatBytes, jsonBytes, parseBytes } from "../bytes-format.js";
import type { Act } from "../context.js";
import { withFamily } from "../context.js";
import { CliError, ExitCode } from "../exit-codes.js";

export function registerGet(program: Command, act: Act): void {
  program
    .command("get")
    .description("print the value of a key (exit 1 if it is missing)")
    .argument("<dir>", "database directory")
    .argument("<key>", "the key (hex with --hex/--key-hex)")
    .action(
      act(async (ctx, [dir, keyText]) => {
        const key = parseBytes(keyText!, ctx.keyEncoding, "key");
        const value = await withFamily(ctx, dir!, { readOnly: true }, (cf) => cf.get(key));
        if (ctx.json) {
          ctx.jsonLine({
            ...jsonBytes("key", key, ctx.keyEncoding),
            found: value !== undefined,
            ...(value !== undefined ? jsonBytes("value", value, ctx.valueEncoding) : {}),
          });
          return value === undefined ? ExitCode.NotFound : ExitCode.Ok;
        }
        if (value === undefined) {
          throw new CliError(
            `key not found: ${formatBytes(key, ctx.keyEncoding)}`,
            ExitCode.NotFound,
          );
        }
        ctx.line(formatBytes(value, ctx.valueEncoding));
        return ExitCode.Ok;
      }),
    );
}
