/**
 * Data-driven test files, in Pebble's `datadriven` format — the parser, the runner and the
 * rewriter. No vitest here (the vitest binding is `dataDrivenTest` in `./datadriven-vitest.ts`).
 *
 * A file is a list of cases separated by blank lines; `#` lines between cases are comments:
 *
 * ```
 * # a comment
 * command arg1 key=value key=(v1, v2)
 * input line 1
 * input line 2
 * ----
 * expected output line 1
 * expected output line 2
 *
 * next-command
 * ----
 * ```
 *
 * The command line is a word and its arguments: `name` or `name=value` or `name=(a, b, c)`.
 * Input runs to the `----` line; the expected output runs to the next blank line. Output that
 * contains blank lines is written between a doubled separator, and ends with one:
 *
 * ```
 * command
 * ----
 * ----
 * line 1
 *
 * line 3
 * ----
 * ----
 * ```
 *
 * The handler returns the output of each case as a string (a trailing newline is added if
 * missing; an empty output is allowed). With `SHALE_REWRITE=1` in the environment the runner
 * writes every actual output back into the file, keeping comments, commands and inputs as they
 * were — so regenerating an unchanged suite leaves the tree unchanged.
 */
import { readFileSync, writeFileSync } from "node:fs";

/** One `key=value` (or bare `key`) on a command line. */
export interface CommandArg {
  key: string;
  /** `[]` for a bare key, one entry for `key=v`, several for `key=(a, b)`. */
  values: string[];
}

/** One case of a data-driven file. */
export interface DataDrivenCase {
  /** `file:line` of the command line, for messages. */
  pos: string;
  /** The command word. */
  cmd: string;
  args: CommandArg[];
  /** The input lines, joined with "\n" (no trailing newline); "" when there are none. */
  input: string;
  /** The expected output as written (ends with "\n" unless empty). */
  expected: string;
  /** Line indexes (0-based) in the file of the expected section, [start, end). */
  readonly expectedLines: { start: number; end: number; doubled: boolean };
  /** True if the command line has the bare argument or `key=...`. */
  hasArg(key: string): boolean;
  /** The single value of `key=value` (or `fallback` when absent); throws when `key` has several. */
  arg(key: string, fallback?: string): string;
  /** `arg(key)` as a number (TypeError when not one). */
  numArg(key: string, fallback?: number): number;
  /** Every value of `key=(a, b, ...)`; `[]` when absent. */
  argValues(key: string): string[];
  /** Throws an Error naming this case's position. */
  fail(message: string): never;
}

const SEPARATOR = "----";

function parseArgs(rest: string, pos: string): CommandArg[] {
  const out: CommandArg[] = [];
  let i = 0;
  while (i < rest.length) {
    while (i < rest.length && rest[i] === " ") i++;
    if (i >= rest.length) break;
    let j = i;
    while (j < rest.length && rest[j] !== " " && rest[j] !== "=") j++;
    const key = rest.slice(i, j);
    if (rest[j] !== "=") {
      out.push({ key, values: [] });
      i = j;
      continue;
    }
    j++;
    if (rest[j] === "(") {
      const close = rest.indexOf(")", j);
      if (close < 0) throw new Error(`${pos}: unterminated "(" in argument ${key}`);
      const inner = rest.slice(j + 1, close).trim();
      out.push({ key, values: inner === "" ? [] : inner.split(",").map((s) => s.trim()) });
      i = close + 1;
    } else {
      let k = j;
      while (k < rest.length && rest[k] !== " ") k++;
      out.push({ key, values: [rest.slice(j, k)] });
      i = k;
    }
  }
  return out;
}

function makeCase(
  pos: string,
  line: string,
  input: string[],
  expected: string[],
  expectedLines: { start: number; end: number; doubled: boolean },
): DataDrivenCase {
  const space = line.indexOf(" ");
  const cmd = space < 0 ? line : line.slice(0, space);
  const args = space < 0 ? [] : parseArgs(line.slice(space + 1), pos);
  const find = (key: string) => args.find((a) => a.key === key);
  const c: DataDrivenCase = {
    pos,
    cmd,
    args,
    input: input.join("\n"),
    expected: expected.length === 0 ? "" : `${expected.join("\n")}\n`,
    expectedLines,
    hasArg: (key) => find(key) !== undefined,
    arg(key, fallback) {
      const a = find(key);
      if (a === undefined) {
        if (fallback !== undefined) return fallback;
        c.fail(`missing argument ${key}=`);
      }
      if (a.values.length !== 1) c.fail(`argument ${key} wants one value, has ${a.values.length}`);
      return a.values[0]!;
    },
    numArg(key, fallback) {
      const raw = c.arg(key, fallback === undefined ? undefined : String(fallback));
      const n = Number(raw);
      if (!Number.isFinite(n))
        throw new TypeError(`${pos}: argument ${key}=${raw} is not a number`);
      return n;
    },
    argValues: (key) => find(key)?.values ?? [],
    fail(message): never {
      throw new Error(`${pos}: ${cmd}: ${message}`);
    },
  };
  return c;
}

/** Parses a data-driven file's text. `name` is used in positions (`name:line`). */
export function parseDataDriven(text: string, name: string): DataDrivenCase[] {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const cases: DataDrivenCase[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === "" || line.startsWith("#")) {
      i++;
      continue;
    }
    const pos = `${name}:${i + 1}`;
    const command = line.trim();
    i++;
    const input: string[] = [];
    while (i < lines.length && lines[i] !== SEPARATOR) input.push(lines[i++]!);
    if (i >= lines.length) throw new Error(`${pos}: ${command}: no "${SEPARATOR}" line`);
    i++;
    const expected: string[] = [];
    const start = i;
    let doubled = false;
    if (lines[i] === SEPARATOR) {
      doubled = true;
      i++;
      while (i < lines.length && !(lines[i] === SEPARATOR && lines[i + 1] === SEPARATOR)) {
        expected.push(lines[i++]!);
      }
      if (i >= lines.length) throw new Error(`${pos}: ${command}: no closing "----\\n----"`);
      i += 2;
    } else {
      while (i < lines.length && lines[i]!.trim() !== "") expected.push(lines[i++]!);
    }
    cases.push(makeCase(pos, command, input, expected, { start, end: i, doubled }));
  }
  return cases;
}

function formatExpected(output: string): string[] {
  if (output === "") return [];
  const body = output.endsWith("\n") ? output.slice(0, -1) : output;
  const lines = body.split("\n");
  if (lines.some((l) => l.trim() === "")) return [SEPARATOR, ...lines, SEPARATOR, SEPARATOR];
  return lines;
}

/** The file's text with each case's expected section replaced by `outputs[i]`. */
export function rewriteDataDriven(
  text: string,
  cases: DataDrivenCase[],
  outputs: string[],
): string {
  const lines = text.split("\n");
  const trailingNewline = lines[lines.length - 1] === "";
  if (trailingNewline) lines.pop();
  const out: string[] = [];
  let at = 0;
  cases.forEach((c, k) => {
    const { start, end } = c.expectedLines;
    out.push(...lines.slice(at, start), ...formatExpected(outputs[k]!));
    at = end;
  });
  out.push(...lines.slice(at));
  return `${out.join("\n")}${trailingNewline ? "\n" : ""}`;
}

/** Output normalised as the file stores it (trailing newline, "" for empty). */
export function normalizeOutput(output: string): string {
  if (output === "") return "";
  return output.endsWith("\n") ? output : `${output}\n`;
}

/** One case whose output differs from the file. */
export interface DataDrivenMismatch {
  pos: string;
  cmd: string;
  expected: string;
  actual: string;
}

/** True when the environment asks data-driven files to be regenerated (`SHALE_REWRITE=1`). */
export function rewriteRequested(): boolean {
  return typeof process !== "undefined" && process.env?.["SHALE_REWRITE"] === "1";
}

/**
 * Runs every case of `path` through `handler` (in file order: cases may build on the state
 * of earlier ones). A handler that throws fails the run with the case's position — errors the
 * case expects must be caught by the handler and printed. Returns the mismatches; with
 * `rewrite` (default: `SHALE_REWRITE=1`) writes the actual outputs into the file instead and
 * returns none.
 */
export function runDataDrivenFile(
  path: string,
  handler: (c: DataDrivenCase) => string,
  options: { rewrite?: boolean; name?: string } = {},
): DataDrivenMismatch[] {
  const text = readFileSync(path, "utf8");
  const cases = parseDataDriven(text, options.name ?? path);
  const outputs: string[] = [];
  const mismatches: DataDrivenMismatch[] = [];
  for (const c of cases) {
    let actual: string;
    try {
      actual = normalizeOutput(handler(c));
    } catch (e) {
      const err = new Error(`${c.pos}: ${c.cmd}: ${e instanceof Error ? e.message : String(e)}`);
      (err as Error & { cause?: unknown }).cause = e;
      throw err;
    }
    outputs.push(actual);
    if (actual !== c.expected) {
      mismatches.push({ pos: c.pos, cmd: c.cmd, expected: c.expected, actual });
    }
  }
  if (options.rewrite ?? rewriteRequested()) {
    const next = rewriteDataDriven(text, cases, outputs);
    if (next !== text) writeFileSync(path, next);
    return [];
  }
  return mismatches;
}

/** A readable report of mismatches (expected and actual of each). */
export function formatMismatches(mismatches: DataDrivenMismatch[]): string {
  return mismatches
    .map(
      (m) =>
        `${m.pos}: ${m.cmd}: output differs (SHALE_REWRITE=1 regenerates)\n` +
        `--- expected\n${m.expected}--- actual\n${m.actual}`,
    )
    .join("\n");
}
