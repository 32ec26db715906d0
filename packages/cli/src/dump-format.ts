/**
 * The text format of `shale dump` and `shale load`: one entry per line.
 *
 * ```
 * hex  (default)  0x6B6579 ==> 0x76616C     ldb's `dump --hex` form; `ldb load --hex` reads it
 * utf8            key ==> val               text; keys with "\n" or " ==> ", values with "\n" refused
 * json            {"key":"key","value":"val"}   or "keyHex"/"valueHex" (see bytes-format.ts)
 * ```
 * Lines are separated by "\n" ("\r\n" is accepted on load); empty lines are skipped.
 * Long form: docs/formats/dump.md.
 */
import { bytesFromJson, decodeUtf8, jsonBytes, parseBytes, toUpperHex } from "./bytes-format.js";
import { CliError, ExitCode } from "./exit-codes.js";

export type DumpFormat = "hex" | "utf8" | "json";
export const DUMP_FORMATS: readonly DumpFormat[] = ["hex", "utf8", "json"];

const SEPARATOR = " ==> ";

export function formatEntry(key: Uint8Array, value: Uint8Array, format: DumpFormat): string {
  switch (format) {
    case "hex":
      return `${toUpperHex(key)}${SEPARATOR}${toUpperHex(value)}`;
    case "json":
      return JSON.stringify({
        ...jsonBytes("key", key, "utf8"),
        ...jsonBytes("value", value, "utf8"),
      });
    case "utf8": {
      const k = decodeUtf8(key);
      const v = decodeUtf8(value);
      if (
        k === undefined ||
        v === undefined ||
        k.includes("\n") ||
        k.includes(SEPARATOR) ||
        v.includes("\n")
      ) {
        throw new CliError(
          `entry ${toUpperHex(key)} cannot be written as utf8 text (not UTF-8, or holds a newline or " ==> "): use --format hex or json`,
          ExitCode.Usage,
        );
      }
      return `${k}${SEPARATOR}${v}`;
    }
  }
}

/** Parses one non-empty line; `where` ("line 12") names it in errors. */
export function parseEntry(
  line: string,
  format: DumpFormat,
  where: string,
): [Uint8Array, Uint8Array] {
  if (format === "json") {
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      throw new CliError(`${where}: not JSON`, ExitCode.Usage);
    }
    if (typeof record !== "object" || record === null) {
      throw new CliError(`${where}: not a JSON object`, ExitCode.Usage);
    }
    const r = record as Record<string, unknown>;
    return [bytesFromJson(r, "key", where), bytesFromJson(r, "value", where)];
  }
  const at = line.indexOf(SEPARATOR);
  if (at < 0) throw new CliError(`${where}: no " ==> " between key and value`, ExitCode.Usage);
  const key = line.slice(0, at);
  const value = line.slice(at + SEPARATOR.length);
  return [parseBytes(key, format, `${where}: key`), parseBytes(value, format, `${where}: value`)];
}
