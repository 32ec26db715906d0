/** `shale put <dir> <key> <value>`: stores one key (creates the database if missing). */
import type { Command } from "commander";
import { formatBytes, jsonBytes, parseBytes } from "../bytes-format.js";
import type { Act } from "../context.js";
import { withFamily } from "../context.js";

export function registerPut(program: Command, act: Act): void {
  program
    .command("put")
    .description("store a key and its value (creates the database if missing)")
    .argument("<dir>", "database directory")
    .argument("<key>", "the key (hex with --hex/--key-hex)")
    .argument("<value>", "the value (hex with --hex/--value-hex)")
    .option("--merge", "add the value as a merge operand instead (needs --merge-operator)")
    .action(
      act<{ merge?: boolean }>(async (ctx, [dir, keyText, valueText], options) => {
        const key = parseBytes(keyText!, ctx.keyEncoding, "key");
        const value = parseBytes(valueText!, ctx.valueEncoding, "value");
        await withFamily(ctx, dir!, { create: true }, (cf) => {
          if (options.merge === true) cf.merge(key, value, { sync: true });
          else cf.put(key, value, { sync: true });
        });
        if (ctx.json) {
          ctx.jsonLine({
            ok: true,
            op: options.merge === true ? "merge" : "put",
            ...jsonBytes("key", key, ctx.keyEncoding),
          });
        } else {
          ctx.line(`OK ${formatBytes(key, ctx.keyEncoding)}`);
        }
        return undefined;
      }),
    );
}
