/**
 * The key-range options `scan` and `dump` share: `--from` (inclusive), `--to` (exclusive),
 * `--prefix`, `--reverse`, `--limit`, and the walk over the database they describe.
 */
import type { ColumnFamilyHandle } from "@shale/db";
import type { Command } from "commander";
import { parseBytes } from "./bytes-format.js";
import { type CommandContext, parseCount } from "./context.js";
import { CliError, ExitCode } from "./exit-codes.js";

export interface RangeOptions {
  from?: string;
  to?: string;
  prefix?: string;
  reverse?: boolean;
  limit?: string;
}

export function addRangeOptions(command: Command): Command {
  return command
    .option("--from <key>", "first key (inclusive)")
    .option("--to <key>", "end key (exclusive)")
    .option("--prefix <bytes>", "only keys that start with these bytes")
    .option("--reverse", "from the last key down")
    .option("--limit <n>", "at most n entries");
}

/** The smallest key greater than every key with `prefix`, or undefined (all 0xff). */
function prefixEnd(prefix: Uint8Array): Uint8Array | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i]! !== 0xff) {
      const end = prefix.slice(0, i + 1);
      end[i]! += 1;
      return end;
    }
  }
  return undefined;
}

function later(
  a: Uint8Array | undefined,
  b: Uint8Array | undefined,
  max: boolean,
): Uint8Array | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const c = Buffer.compare(a, b);
  return (max ? c >= 0 : c <= 0) ? a : b;
}

/**
 * Calls `visit(key, value)` for each entry of the range in order (views valid during the
 * call); returns how many it visited.
 */
export function walkRange(
  ctx: CommandContext,
  db: ColumnFamilyHandle,
  options: RangeOptions,
  visit: (key: Uint8Array, value: Uint8Array) => void,
): number {
  let lower =
    options.from === undefined ? undefined : parseBytes(options.from, ctx.keyEncoding, "--from");
  let upper =
    options.to === undefined ? undefined : parseBytes(options.to, ctx.keyEncoding, "--to");
  if (options.prefix !== undefined) {
    const prefix = parseBytes(options.prefix, ctx.keyEncoding, "--prefix");
    lower = later(lower, prefix, true);
    upper = later(upper, prefixEnd(prefix), false);
  }
  const limit =
    options.limit === undefined ? Number.POSITIVE_INFINITY : parseCount(options.limit, "--limit");
  if (lower !== undefined && upper !== undefined && Buffer.compare(lower, upper) >= 0) return 0;
  if (limit === 0) return 0;
  const it = db.iterator({
    ...(lower !== undefined ? { lowerBound: lower } : {}),
    ...(upper !== undefined ? { upperBound: upper } : {}),
  });
  let n = 0;
  try {
    if (options.reverse === true) it.seekToLast();
    else it.seekToFirst();
    while (it.valid() && n < limit) {
      visit(it.key(), it.value());
      n++;
      if (options.reverse === true) it.prev();
      else it.next();
    }
  } finally {
    it.close();
  }
  return n;
}

/** Rejects options that make no sense together. */
export function checkRange(options: RangeOptions): void {
  if (options.limit !== undefined) parseCount(options.limit, "--limit");
  if (options.prefix !== undefined && options.prefix.length === 0) {
    throw new CliError("--prefix must not be empty", ExitCode.Usage);
  }
}
