/**
 * How the `shale` command reads keys and values from its arguments and prints them.
 *
 * - Arguments are UTF-8 text, or hex with `--hex` / `--key-hex` / `--value-hex` (an optional
 *   `0x` prefix, upper or lower case digits).
 * - Human output prints UTF-8 text as is when it is valid and printable, and otherwise
 *   escapes every byte outside printable ASCII as `\xNN` (and `\` as `\x5c`); with the hex
 *   flags it prints `0x`-prefixed upper-case hex (ldb's `--hex` form).
 * - JSON output holds each key/value as a string: UTF-8 text under the `key` / `value`
 *   field, or, with the hex flags or for bytes that are not valid UTF-8, lower-case hex
 *   under `keyHex` / `valueHex` — lossless either way.
 */
import { formatKey } from "@shale/base";
import { CliError, ExitCode } from "./exit-codes.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

export type ByteEncoding = "utf8" | "hex";

/** Parses an argument in `encoding`; `what` names it in the usage error. */
export function parseBytes(text: string, encoding: ByteEncoding, what: string): Uint8Array {
  if (encoding === "utf8") return encoder.encode(text);
  const digits = text.startsWith("0x") || text.startsWith("0X") ? text.slice(2) : text;
  if (digits.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(digits)) {
    throw new CliError(`${what} is not hex: ${JSON.stringify(text)}`, ExitCode.Usage);
  }
  return Uint8Array.from(Buffer.from(digits, "hex"));
}

/** Upper-case hex with `0x` (ldb's form); `0x` for empty bytes. */
export function toUpperHex(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex").toUpperCase()}`;
}

/** Valid UTF-8 as a string, else undefined. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

// Control characters (C0, DEL, C1) and the backslash are escaped in human output.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\\]/;

/** For people: text as is when it is printable UTF-8, else `\xNN` escapes; or hex. */
export function formatBytes(bytes: Uint8Array, encoding: ByteEncoding): string {
  if (encoding === "hex") return toUpperHex(bytes);
  const text = decodeUtf8(bytes);
  if (text !== undefined && !UNPRINTABLE.test(text)) return text;
  return formatKey(bytes);
}

/** For machines: `{ [name]: text }` or `{ [name + "Hex"]: hex }` (see the file header). */
export function jsonBytes(
  name: string,
  bytes: Uint8Array,
  encoding: ByteEncoding,
): Record<string, string> {
  const text = encoding === "utf8" ? decodeUtf8(bytes) : undefined;
  if (text !== undefined) return { [name]: text };
  return {
    [`${name}Hex`]: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex"),
  };
}

/** Reads back what `jsonBytes` wrote: `name` (UTF-8) or `nameHex`. */
export function bytesFromJson(
  record: Record<string, unknown>,
  name: string,
  where: string,
): Uint8Array {
  const text = record[name];
  if (typeof text === "string") return encoder.encode(text);
  const hex = record[`${name}Hex`];
  if (typeof hex === "string") return parseBytes(hex, "hex", `${where}: ${name}Hex`);
  throw new CliError(`${where}: no "${name}" or "${name}Hex" string`, ExitCode.Usage);
}
