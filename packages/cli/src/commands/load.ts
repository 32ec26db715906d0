/**
 * `shale load <dir> [file]`: reads entries in dump's format (dump-format.ts) from `file` or
 * standard input and puts them, in write batches of `--batch-size` (creates the database if
 * missing). A bad line stops the load with exit 2, naming the line; the batches before it
 * are written.
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { WriteBatch } from "@shale/db";
import type { Command } from "commander";
import type { Act } from "../context.js";
import { parseCount, withFamily } from "../context.js";
import { DUMP_FORMATS, type DumpFormat, parseEntry } from "../dump-format.js";
import { CliError, ExitCode } from "../exit-codes.js";

export function registerLoad(program: Command, act: Act): void {
  program
    .command("load")
    .description("put entries in dump's format, from a file or standard input")
    .argument("<dir>", "database directory (created if missing)")
    .argument("[file]", "input file; - or none for standard input")
    .option("-f, --format <format>", "hex, utf8 or json (default: hex; json with --json)")
    .option("--batch-size <n>", "entries per write batch", "1000")
    .option("--compact", "compact the whole database after loading")
    .action(
      act<{ format?: string; batchSize: string; compact?: boolean }>(
        async (ctx, [dir, file], options) => {
          const format = (options.format ?? (ctx.json ? "json" : "hex")) as DumpFormat;
          if (!DUMP_FORMATS.includes(format)) {
            throw new CliError(
              `--format must be hex, utf8 or json (got ${JSON.stringify(format)})`,
              ExitCode.Usage,
            );
          }
          const batchSize = parseCount(options.batchSize, "--batch-size");
          if (batchSize === 0)
            throw new CliError("--batch-size must be at least 1", ExitCode.Usage);
          const input = file === undefined || file === "-" ? process.stdin : createReadStream(file);
          const count = await withFamily(ctx, dir!, { create: true }, async (cf, db) => {
            let batch = new WriteBatch();
            let n = 0;
            let lineNumber = 0;
            for await (const raw of createInterface({
              input,
              crlfDelay: Number.POSITIVE_INFINITY,
            })) {
              lineNumber++;
              const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
              if (line.length === 0) continue;
              const [key, value] = parseEntry(line, format, `line ${lineNumber}`);
              batch.put(key, value, cf);
              n++;
              if (batch.count >= batchSize) {
                db.write(batch);
                batch = new WriteBatch();
              }
            }
            if (batch.count > 0) db.write(batch);
            await cf.flush();
            if (options.compact === true) await cf.compactRange();
            return n;
          });
          if (ctx.json) ctx.jsonLine({ ok: true, loaded: count });
          else ctx.line(`loaded ${count} entries`);
          return undefined;
        },
      ),
    );
}
