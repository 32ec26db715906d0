/**
 * The property `rocksdb.compression` (RocksDB's `TableProperties::compression_name`) in its
 * two forms:
 * - format versions 2-6: one of RocksDB's compression names, the table's configured
 *   compression ("NoCompression", "Snappy", "ZSTD", ...; compression.ts);
 * - format version 7: `<compatibility name>;<types>;<future fields>`, where the
 *   compatibility name is the compression manager's (`BuiltinV2`, RocksDB's built-in one)
 *   or empty when compression was off, and `<types>` is the sorted set of compression types
 *   the table's blocks use (none excluded), two upper-case hex digits each:
 *   ```
 *   BuiltinV2;07;    ZSTD blocks          BuiltinV2;;    compression on, no block compressed
 *   BuiltinV2;0107;  Snappy and ZSTD      ;;             compression off
 *   ```
 * RocksDB refuses (and so does this reader) a version-7 value without the two separators, an
 * odd number of hex digits, a bad digit or a type of 00 or ff (Corruption), and a compression
 * manager it does not know (NotSupported here: the blocks may use a custom codec).
 */
import { ShaleError } from "@shale/base";
import { FormatVersion, notSupportedAt } from "../format/format.js";

/** RocksDB's built-in compression manager (format version >= 2 framing). */
export const BUILTIN_COMPRESSION_MANAGER = "BuiltinV2";

/**
 * The version-7 value: `compressionOn` says whether the table was written with compression
 * configured (the manager's name is then recorded), `typesUsed` the compression types of its
 * blocks (None ignored).
 */
export function formatCompressionName(compressionOn: boolean, typesUsed: Iterable<number>): string {
  const types = [...new Set(typesUsed)].filter((t) => t !== 0).sort((a, b) => a - b);
  const hex = types.map((t) => t.toString(16).toUpperCase().padStart(2, "0")).join("");
  return `${compressionOn ? BUILTIN_COMPRESSION_MANAGER : ""};${hex};`;
}

/**
 * Checks a version-7 value and returns the compression types it lists. Corruption (naming
 * `file` and `offset`, the properties block) for a malformed value; NotSupported for a
 * compression manager other than RocksDB's built-in one.
 */
export function parseCompressionName(
  value: string,
  file: string | undefined,
  offset: number,
): number[] {
  const fail = (what: string): never => {
    throw ShaleError.corruption(
      `bad rocksdb.compression ${JSON.stringify(value)}: ${what}`,
      file,
      offset,
    );
  };
  const first = value.indexOf(";");
  if (first < 0) fail("missing separator");
  const manager = value.slice(0, first);
  if (manager !== "" && manager !== BUILTIN_COMPRESSION_MANAGER) {
    throw notSupportedAt(`compression manager "${manager}" is not supported`, file, offset);
  }
  const second = value.indexOf(";", first + 1);
  if (second < 0) fail("missing second field");
  const field = value.slice(first + 1, second);
  if (field.length % 2 !== 0) fail("odd number of hex digits");
  const types: number[] = [];
  for (let i = 0; i < field.length; i += 2) {
    const pair = field.slice(i, i + 2);
    const t = /^[0-9a-fA-F]{2}$/.test(pair) ? Number.parseInt(pair, 16) : -1;
    if (t <= 0 || t >= 0xff) fail(`bad compression type "${pair}"`);
    types.push(t);
  }
  return types;
}

/**
 * Whether the table's blocks are probably compressed, from its `rocksdb.compression` value
 * (either form; a value of a version-7 table was checked by `parseCompressionName`).
 */
export function compressionNameSaysCompressed(value: string, formatVersion: number): boolean {
  if (formatVersion >= FormatVersion.V7) {
    const first = value.indexOf(";");
    return first >= 0 && value.charCodeAt(first + 1) !== 0x3b; // a type before the second ';'
  }
  return value !== "NoCompression" && value !== "";
}
