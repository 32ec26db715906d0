/**
 * `shale delete <dir> <key>`: deletes one key; with `--to <end>`, every key in
 * [key, end) (a range deletion).
 */
import type { Command } from "commander";
import { formatBytes, jsonBytes, parseBytes } from "../bytes-format.js";
import type { Act } from "../context.js";
import { withFamily } from "../context.js";

export function registerDelete(program: Command, act: Act): void {
  program
    .command("delete")
    .alias("del")
    .description("delete a key, or with --to every key in [key, end)")
    .argument("<dir>", "database directory")
    .argument("<key>", "the key, or the range's first key (hex with --hex/--key-hex)")
    .option("--to <end>", "delete the range [key, end) instead of one key (end excluded)")
    .action(
      act<{ to?: string }>(async (ctx, [dir, keyText], options) => {
        const key = parseBytes(keyText!, ctx.keyEncoding, "key");
        const end =
          options.to === undefined ? undefined : parseBytes(options.to, ctx.keyEncoding, "--to");
        await withFamily(ctx, dir!, {}, (cf) => {
          if (end === undefined) cf.delete(key, { sync: true });
          else cf.deleteRange(key, end, { sync: true });
        });
        if (ctx.json) {
          ctx.jsonLine({
            ok: true,
            op: end === undefined ? "delete" : "deleteRange",
            ...jsonBytes("key", key, ctx.keyEncoding),
            ...(end !== undefined ? jsonBytes("end", end, ctx.keyEncoding) : {}),
          });
        } else if (end === undefined) {
          ctx.line(`OK deleted ${formatBytes(key, ctx.keyEncoding)}`);
        } else {
          ctx.line(
            `OK deleted [${formatBytes(key, ctx.keyEncoding)}, ${formatBytes(end, ctx.keyEncoding)})`,
          );
        }
        return undefined;
      }),
    );
}
