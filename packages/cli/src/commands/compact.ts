/**
 * `shale compact <dir> [--from k] [--to k]`: a manual compaction (RocksDB's CompactRange)
 * of the keys [from, to] (both inclusive; open when missing), then the files per level
 * before and after.
 */
import type { Command } from "commander";
import { parseBytes } from "../bytes-format.js";
import type { Act } from "../context.js";
import { withFamily } from "../context.js";
import { readLevels } from "../levels-model.js";

export function registerCompact(program: Command, act: Act): void {
  program
    .command("compact")
    .description("compact a key range (default: everything) down the levels")
    .argument("<dir>", "database directory")
    .option("--from <key>", "first key (inclusive)")
    .option("--to <key>", "last key (inclusive)")
    .action(
      act<{ from?: string; to?: string }>(async (ctx, [dir], options) => {
        const from =
          options.from === undefined
            ? undefined
            : parseBytes(options.from, ctx.keyEncoding, "--from");
        const to =
          options.to === undefined ? undefined : parseBytes(options.to, ctx.keyEncoding, "--to");
        const started = performance.now();
        const [before, after] = await withFamily(ctx, dir!, {}, async (cf, db) => {
          const before = readLevels(db, cf);
          await cf.compactRange(from, to);
          return [before, readLevels(db, cf)] as const;
        });
        const counts = (levels: typeof before) => levels.map((l) => l.files.length);
        const seconds = (performance.now() - started) / 1000;
        if (ctx.json) {
          ctx.jsonLine({
            ok: true,
            filesBefore: counts(before),
            filesAfter: counts(after),
            seconds,
          });
        } else {
          ctx.line(`files per level before: ${counts(before).join(" ")}`);
          ctx.line(`files per level after:  ${counts(after).join(" ")}`);
          ctx.line(`compacted in ${seconds.toFixed(2)} s`);
        }
        return undefined;
      }),
    );
}
