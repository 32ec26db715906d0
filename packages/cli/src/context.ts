/**
 * What every command gets: the global options, where to write, and how to open the
 * database. Commands write through `Output` (never `console`) so tests and embedders can
 * capture it.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { type ColumnFamilyHandle, DB, type DbOptions } from "@shale/db";
import type { ByteEncoding } from "./bytes-format.js";
import { CliError, ExitCode } from "./exit-codes.js";

/** The options every command accepts (declared on the program). */
export interface GlobalOptions {
  json?: boolean;
  hex?: boolean;
  keyHex?: boolean;
  valueHex?: boolean;
  mergeOperator?: string;
  columnFamily?: string;
}

export interface Output {
  /** Writes text to standard output (no newline added). */
  write(text: string): void;
  /** Writes text to standard error (no newline added). */
  error(text: string): void;
}

export interface CommandContext {
  readonly out: Output;
  readonly json: boolean;
  readonly keyEncoding: ByteEncoding;
  readonly valueEncoding: ByteEncoding;
  readonly mergeOperator: DbOptions["mergeOperator"];
  /** The column family the data commands read and write (`--column-family`; "default"). */
  readonly columnFamily: string;
  /** Writes one line to standard output. */
  line(text: string): void;
  /** Writes a value as one line of JSON to standard output. */
  jsonLine(value: unknown): void;
}

const MERGE_OPERATORS = ["max", "uint64add", "stringappend"] as const;

export function makeContext(out: Output, options: GlobalOptions): CommandContext {
  const merge = options.mergeOperator;
  if (merge !== undefined && !(MERGE_OPERATORS as readonly string[]).includes(merge)) {
    throw new CliError(
      `--merge-operator must be one of ${MERGE_OPERATORS.join(", ")} (got ${JSON.stringify(merge)})`,
      ExitCode.Usage,
    );
  }
  const columnFamily = options.columnFamily ?? "default";
  if (columnFamily === "")
    throw new CliError("--column-family must name a column family", ExitCode.Usage);
  return {
    out,
    columnFamily,
    json: options.json === true,
    keyEncoding: options.hex === true || options.keyHex === true ? "hex" : "utf8",
    valueEncoding: options.hex === true || options.valueHex === true ? "hex" : "utf8",
    mergeOperator: merge as DbOptions["mergeOperator"],
    line: (text) => out.write(`${text}\n`),
    jsonLine: (value) => out.write(`${JSON.stringify(value)}\n`),
  };
}

/** True if `dir` holds a database (its CURRENT file). */
export function hasDatabase(dir: string): boolean {
  return existsSync(join(dir, "CURRENT"));
}

/**
 * Opens the database in `dir` for a command. Only `put` and `load` create one
 * (`create: true`); the others fail with NotFound (exit 1) on a directory without a database.
 * The commands that only read (get, scan, dump, stats, levels, verify) pass `readOnly: true`:
 * they take no LOCK and write nothing, so they work beside a writer in another process and
 * show the directory as it is (a read-write open would flush the WALs first).
 */
export async function openDatabase(
  ctx: CommandContext,
  dir: string,
  options: { create?: boolean } & DbOptions = {},
): Promise<DB> {
  const { create, ...rest } = options;
  if (create !== true && !hasDatabase(dir)) {
    const what =
      existsSync(dir) && statSync(dir).isDirectory() ? "no database in" : "no such directory:";
    throw new CliError(`${what} ${dir}`, ExitCode.NotFound);
  }
  const dbOptions: DbOptions = { createIfMissing: create === true, ...rest };
  if (ctx.mergeOperator !== undefined) dbOptions.mergeOperator = ctx.mergeOperator;
  return DB.open(dir, dbOptions);
}

/** Runs `body` with the database open, and closes it whatever happens. */
export async function withDatabase<T>(
  ctx: CommandContext,
  dir: string,
  options: { create?: boolean } & DbOptions,
  body: (db: DB) => Promise<T> | T,
): Promise<T> {
  const db = await openDatabase(ctx, dir, options);
  let result: T;
  try {
    result = await body(db);
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
  await db.close();
  return result;
}

/**
 * Runs `body` with the database open and the `--column-family` family's handle (the
 * database's own for "default"); a family the directory lacks is NotFound naming the ones
 * it has. Closes the database whatever happens. The read commands open read-only with every
 * family (no LOCK taken, nothing written), whichever family they read.
 */
export function withFamily<T>(
  ctx: CommandContext,
  dir: string,
  options: { create?: boolean } & DbOptions,
  body: (family: ColumnFamilyHandle, db: DB) => Promise<T> | T,
): Promise<T> {
  return withDatabase(ctx, dir, options, (db) => {
    const families = db.listColumnFamilies();
    if (!families.includes(ctx.columnFamily)) {
      throw new CliError(
        `no column family ${JSON.stringify(ctx.columnFamily)} in ${dir} (it has: ${families.join(", ")}; \`shale cf create\` makes one)`,
        ExitCode.NotFound,
      );
    }
    return body(db.columnFamily(ctx.columnFamily), db);
  });
}

/** Parses a non-negative integer option. */
export function parseCount(text: string, what: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n)) {
    throw new CliError(
      `${what} must be a non-negative integer (got ${JSON.stringify(text)})`,
      ExitCode.Usage,
    );
  }
  return n;
}

/**
 * Wraps a command's body as commander's action: builds the context from the global options,
 * runs the body, maps its result or error to the exit code (program.ts makes it).
 */
export type Act = <O>(
  body: (
    ctx: CommandContext,
    args: string[],
    options: O,
  ) => Promise<number | undefined> | number | undefined,
) => (...args: unknown[]) => Promise<void>;
