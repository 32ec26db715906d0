/**
 * `shale levels <dir>`: the tables of each level (number, size, key range, sequence
 * numbers), like `ldb manifest_dump`'s version listing; `--svg <file>` also draws them
 * (levels-svg.ts).
 */
import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { formatBytes, jsonBytes } from "../bytes-format.js";
import type { Act } from "../context.js";
import { withFamily } from "../context.js";
import { readLevels } from "../levels-model.js";
import { renderLevelsSvg } from "../levels-svg.js";

export function registerLevels(program: Command, act: Act): void {
  program
    .command("levels")
    .description("list the tables of each level; --svg draws them")
    .argument("<dir>", "database directory")
    .option("--svg <file>", "also write a picture of the levels to this SVG file")
    .action(
      act<{ svg?: string }>(async (ctx, [dir], options) => {
        const levels = await withFamily(ctx, dir!, { readOnly: true }, (cf, db) =>
          readLevels(db, cf),
        );
        if (options.svg !== undefined)
          writeFileSync(options.svg, renderLevelsSvg(levels, `shale levels: ${dir}`));
        if (ctx.json) {
          ctx.jsonLine({
            levels: levels.map((l) => ({
              level: l.level,
              bytes: l.bytes,
              files: l.files.map((f) => ({
                number: f.number,
                size: f.size,
                ...jsonBytes("smallest", f.smallest, ctx.keyEncoding),
                ...jsonBytes("largest", f.largest, ctx.keyEncoding),
                smallestSeq: f.smallestSeq,
                largestSeq: f.largestSeq,
              })),
            })),
            ...(options.svg !== undefined ? { svg: options.svg } : {}),
          });
          return undefined;
        }
        // Levels below the deepest non-empty one are left out (L0 and L1 always shown).
        let deepest = 1;
        for (const l of levels) if (l.files.length > 0) deepest = Math.max(deepest, l.level);
        for (const l of levels.slice(0, deepest + 1)) {
          ctx.line(`--- level ${l.level} --- ${l.files.length} files, ${l.bytes} bytes`);
          for (const f of l.files) {
            ctx.line(
              ` ${f.number}:${f.size}[${f.smallestSeq} .. ${f.largestSeq}]` +
                `['${formatBytes(f.smallest, ctx.keyEncoding)}' .. '${formatBytes(f.largest, ctx.keyEncoding)}']`,
            );
          }
        }
        if (options.svg !== undefined) ctx.line(`wrote ${options.svg}`);
        return undefined;
      }),
    );
}
