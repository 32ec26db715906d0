/**
 * The OPTIONS-NNNNNN file, in RocksDB's INI form (options/options_parser.cc), and IDENTITY.
 *
 * ```
 * # This is a RocksDB option file.            comment lines start with '#'
 * [Version]
 *   rocksdb_version=7.8.3
 *   options_file_version=1.1
 * [DBOptions]
 *   create_if_missing=true ...
 * [CFOptions "default"]                        one section per column family
 *   comparator=leveldb.BytewiseComparator
 *   merge_operator=MaxOperator                 nullptr when there is none
 * [TableOptions/BlockBasedTable "default"]
 *   block_size=4096 ...
 * ```
 * Written at every open as `OPTIONS-N.dbtmp`, synced, renamed to `OPTIONS-N` (N a fresh file
 * number); the two newest are kept, as RocksDB does. Sections of column families shale leaves
 * alone are copied from the previous file unchanged.
 *
 * The merge operator's name is what shale adds to RocksDB's MANIFEST-era state: it lives here
 * (RocksDB's own place for it), spelled as RocksDB spells its built-ins (`max` is
 * `MaxOperator`, `uint64add` `UInt64AddOperator`, `stringappend` `StringAppendOperator`);
 * other operators by their `name`.
 *
 * Checks at open (the newest OPTIONS file, when there is one), as RocksDB's options
 * compatibility check (kSanityLevelLooselyCompatible) decides them:
 * - a comparator other than the file's is InvalidArgument (the MANIFEST checks it too);
 * - the merge operator is verified by name, "allow from null": a file that says `nullptr`
 *   accepts any operator; a file naming one refuses another one (InvalidArgument). Opening
 *   without any operator is allowed, as RocksDB's DB::Open allows it: reading a merge entry
 *   then fails, as it does in RocksDB.
 *
 * Block compression is recorded as RocksDB writes it (`OptionsHelper::
 * compression_type_string_map`): `compression=kLZ4Compression`, `compression_per_level=
 * kNoCompression:kLZ4Compression:kZSTD` (only when the list is given: RocksDB 7.8.3 leaves
 * the key out for an empty list), `bottommost_compression=kDisableCompressionOption` when
 * none is given; `recordedCompression` reads them back.
 *
 * IDENTITY holds the database's id (a random UUID, 36 characters, no newline, as RocksDB
 * writes it); it is created when missing and matches a db id the MANIFEST carries.
 */
import {
  baseName,
  bytesToString,
  type FileSystem,
  joinPath,
  ShaleError,
  toBytes,
} from "@shale/base";
import { identityFileName, optionsFileName, parseFileName } from "./filenames.js";

/** Shale's built-in merge operator names and RocksDB's names for the same operators. */
const ROCKSDB_MERGE_NAMES: Readonly<Record<string, string>> = Object.freeze({
  max: "MaxOperator",
  uint64add: "UInt64AddOperator",
  stringappend: "StringAppendOperator",
});
const SHALE_MERGE_NAMES: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(Object.entries(ROCKSDB_MERGE_NAMES).map(([a, b]) => [b, a])),
);

/** The name written to OPTIONS for a merge operator named `name` in shale. */
export function rocksdbMergeOperatorName(name: string): string {
  return ROCKSDB_MERGE_NAMES[name] ?? name;
}

/** RocksDB's OPTIONS names of the block codecs, by shale's option-style name. */
const ROCKSDB_COMPRESSION_OPTION_NAMES: Readonly<Record<string, string>> = Object.freeze({
  none: "kNoCompression",
  snappy: "kSnappyCompression",
  zlib: "kZlibCompression",
  bzip2: "kBZip2Compression",
  lz4: "kLZ4Compression",
  lz4hc: "kLZ4HCCompression",
  xpress: "kXpressCompression",
  zstd: "kZSTD",
  zstdNotFinal: "kZSTDNotFinalCompression",
});
const SHALE_COMPRESSION_NAMES: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(Object.entries(ROCKSDB_COMPRESSION_OPTION_NAMES).map(([a, b]) => [b, a])),
);
/** `bottommost_compression`'s value when none is given. */
const DISABLE_COMPRESSION_OPTION = "kDisableCompressionOption";

/**
 * The codec options as `[CFOptions]` entries, named and spelled as RocksDB writes them; with
 * `compression_opts` (zstd's level and dictionary size, in RocksDB's struct syntax with the
 * fields 7.8.3 knows) when any level writes zstd.
 */
export function compressionEntries(o: {
  compression: string;
  compressionPerLevel: readonly string[];
  bottommostCompression: string | undefined;
  zstdLevel: number;
  zstdMaxDictBytes: number;
}): Record<string, string> {
  const name = (c: string) => ROCKSDB_COMPRESSION_OPTION_NAMES[c] ?? c;
  const out: Record<string, string> = { compression: name(o.compression) };
  if (o.compressionPerLevel.length > 0) {
    out["compression_per_level"] = o.compressionPerLevel.map(name).join(":");
  }
  out["bottommost_compression"] =
    o.bottommostCompression === undefined
      ? DISABLE_COMPRESSION_OPTION
      : name(o.bottommostCompression);
  if (
    o.compression === "zstd" ||
    o.bottommostCompression === "zstd" ||
    o.compressionPerLevel.includes("zstd")
  ) {
    out["compression_opts"] =
      `{window_bits=-14;level=${o.zstdLevel};strategy=0;max_dict_bytes=${o.zstdMaxDictBytes};zstd_max_train_bytes=0;enabled=false;}`;
  }
  return out;
}

/** What a `[CFOptions]` section records of block compression, in shale's names. */
export interface RecordedCompression {
  /** undefined when the key is absent. */
  compression: string | undefined;
  /** Empty when absent or empty. */
  compressionPerLevel: string[];
  /** undefined when absent or kDisableCompressionOption. */
  bottommostCompression: string | undefined;
}

/**
 * Reads `compression`, `compression_per_level` and `bottommost_compression` of a parsed
 * `[CFOptions]` section (RocksDB's names, `:`-separated list). A name RocksDB does not have
 * is Corruption naming the file and the key.
 */
export function recordedCompression(section: OptionsSection, file: string): RecordedCompression {
  const read = (key: string, value: string): string => {
    const shale = SHALE_COMPRESSION_NAMES[value.trim()];
    if (shale === undefined)
      throw ShaleError.corruption(
        `${section.title}: ${key} names an unknown compression ${JSON.stringify(value)}`,
        file,
      );
    return shale;
  };
  const e = section.entries;
  const compression = e.get("compression");
  const list = e.get("compression_per_level") ?? "";
  const bottommost = e.get("bottommost_compression");
  return {
    compression: compression === undefined ? undefined : read("compression", compression),
    compressionPerLevel:
      list.trim() === "" ? [] : list.split(":").map((v) => read("compression_per_level", v)),
    bottommostCompression:
      bottommost === undefined || bottommost === DISABLE_COMPRESSION_OPTION
        ? undefined
        : read("bottommost_compression", bottommost),
  };
}

/** One `[Section "arg"]` of an OPTIONS file, keys in file order. */
export interface OptionsSection {
  readonly title: string;
  readonly entries: Map<string, string>;
  /** The section's lines as found (for copying it unchanged). */
  readonly text: string;
}

/** Parses an OPTIONS file. Throws Corruption (file, line offset) on lines it cannot read. */
export function parseOptionsFile(text: string, file: string): OptionsSection[] {
  const sections: OptionsSection[] = [];
  let current: { title: string; entries: Map<string, string>; lines: string[] } | undefined;
  let offset = 0;
  const close = () => {
    if (current !== undefined)
      sections.push({
        title: current.title,
        entries: current.entries,
        text: current.lines.join("\n"),
      });
  };
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const at = offset;
    offset += raw.length + 1;
    if (line === "" || line.startsWith("#")) continue;
    if (line.startsWith("[")) {
      if (!line.endsWith("]"))
        throw ShaleError.corruption(`bad section line ${JSON.stringify(line)}`, file, at);
      close();
      current = { title: line.slice(1, -1), entries: new Map(), lines: [raw] };
      continue;
    }
    const eq = line.indexOf("=");
    if (eq <= 0 || current === undefined)
      throw ShaleError.corruption(`bad option line ${JSON.stringify(line)}`, file, at);
    current.entries.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
    current.lines.push(raw);
  }
  close();
  if (sections[0]?.title !== "Version")
    throw ShaleError.corruption("an OPTIONS file starts with a [Version] section", file, 0);
  return sections;
}

/** The merge operator a `merge_operator=` value names (shale's alias for built-ins), or undefined for nullptr. */
export function mergeOperatorOf(value: string | undefined): string | undefined {
  if (value === undefined || value === "" || value === "nullptr") return undefined;
  let name = value;
  const m = /^\{(.*)\}$/.exec(value);
  // TTL's wrapper (RocksDB's TtlMergeOperator): the operator it wraps.
  const wrapped =
    m === null ? null : /^\s*id=TtlMergeOperator;\s*user_operator=(\{.*\}|[^;]*)/.exec(m[1]!);
  if (wrapped !== null) return mergeOperatorOf(wrapped[1]);
  if (m !== null) {
    const id = /(?:^|;)\s*id=([^;]*)/.exec(m[1]!);
    name = id === null ? m[1]! : id[1]!.trim();
  }
  return SHALE_MERGE_NAMES[name] ?? name;
}

/** The newest OPTIONS-N file in `dir`, parsed, or undefined when there is none. */
export function readNewestOptions(
  fs: FileSystem,
  dir: string,
): { name: string; sections: OptionsSection[] } | undefined {
  const numbers = optionsFileNumbers(fs, dir);
  if (numbers.length === 0) return undefined;
  const path = optionsFileName(dir, numbers[0]!);
  const name = baseName(path);
  return { name, sections: parseOptionsFile(bytesToString(fs.readFile(path)), name) };
}

/** Numbers of the OPTIONS files in `dir`, newest first. */
export function optionsFileNumbers(fs: FileSystem, dir: string): number[] {
  const out: number[] = [];
  for (const n of fs.list(dir)) {
    const parsed = parseFileName(n);
    if (parsed?.type === "options") out.push(parsed.number);
  }
  return out.sort((a, b) => b - a);
}

/** Refuses to open with a comparator or merge operator the newest OPTIONS file rules out. */
export function checkOptionsFile(
  found: { name: string; sections: OptionsSection[] },
  comparator: string,
  mergeOperator: string | undefined,
): void {
  const cf = found.sections.find((s) => s.title === 'CFOptions "default"');
  if (cf === undefined) return;
  const recordedComparator = cf.entries.get("comparator");
  if (
    recordedComparator !== undefined &&
    recordedComparator !== "nullptr" &&
    recordedComparator !== comparator
  )
    throw ShaleError.invalidArgument(
      `the database was created with comparator "${recordedComparator}", not "${comparator}" (${found.name})`,
    );
  const recorded = mergeOperatorOf(cf.entries.get("merge_operator"));
  if (recorded !== undefined && mergeOperator !== undefined && recorded !== mergeOperator)
    throw ShaleError.invalidArgument(
      `the database was created with merge operator "${recorded}", not "${mergeOperator}" (${found.name})`,
    );
}

export interface OptionsFileContent {
  comparator: string;
  mergeOperator: string | undefined;
  /** The default family has ttl: its merge operator is recorded wrapped (core/ttl-option.ts). */
  ttl?: boolean;
  db: Record<string, string | number | boolean>;
  cf: Record<string, string | number | boolean>;
  table: Record<string, string | number | boolean>;
  /** Sections of other column families, copied as found. */
  foreignSections: readonly OptionsSection[];
  /** The column families other than default, in id order: each a CFOptions and a table section. */
  families?: readonly FamilyOptionsContent[];
}

/** One column family's sections of an OPTIONS file. */
export interface FamilyOptionsContent {
  name: string;
  comparator: string;
  mergeOperator: string | undefined;
  ttl?: boolean;
  cf: Record<string, string | number | boolean>;
  table: Record<string, string | number | boolean>;
}

/** The text of an OPTIONS file. */
export function formatOptionsFile(c: OptionsFileContent): string {
  const lines = [
    "# This is a RocksDB option file.",
    "#",
    "# Written by shale; the format is RocksDB's (options/options_parser.cc).",
    "#",
    "",
    "[Version]",
    "  rocksdb_version=7.8.3",
    "  options_file_version=1.1",
    "",
    "[DBOptions]",
  ];
  const put = (rec: Record<string, string | number | boolean>) => {
    for (const [k, v] of Object.entries(rec)) lines.push(`  ${k}=${String(v)}`);
    lines.push("");
  };
  put(c.db);
  const families: FamilyOptionsContent[] = [
    {
      name: "default",
      comparator: c.comparator,
      mergeOperator: c.mergeOperator,
      ...(c.ttl === true ? { ttl: true } : {}),
      cf: c.cf,
      table: c.table,
    },
    ...(c.families ?? []),
  ];
  for (const f of families) {
    lines.push(`[CFOptions "${f.name}"]`);
    put({
      ...f.cf,
      merge_operator:
        f.mergeOperator === undefined
          ? "nullptr"
          : f.ttl === true
            ? `{id=TtlMergeOperator;user_operator={id=${rocksdbMergeOperatorName(f.mergeOperator)};};}`
            : rocksdbMergeOperatorName(f.mergeOperator),
      comparator: f.comparator,
    });
    lines.push(`[TableOptions/BlockBasedTable "${f.name}"]`);
    put(f.table);
  }
  for (const s of c.foreignSections) lines.push(s.text, "");
  return lines.join("\n");
}

/** Writes OPTIONS-`number` (temp file, sync, rename) and removes all but the two newest. */
export function writeOptionsFile(
  fs: FileSystem,
  dir: string,
  number: number,
  text: string,
  deletable: (n: number) => boolean,
): void {
  const path = optionsFileName(dir, number);
  const tmp = `${path}.dbtmp`;
  fs.writeFile(tmp, toBytes(text), { sync: true });
  fs.rename(tmp, path);
  fs.syncDir(dir);
  for (const n of optionsFileNumbers(fs, dir).slice(2))
    if (deletable(n)) fs.remove(optionsFileName(dir, n));
}

/**
 * Makes sure IDENTITY exists and holds `dbId` when one is given (the MANIFEST's); returns
 * the database id.
 */
export function ensureIdentity(fs: FileSystem, dir: string, dbId: string | undefined): string {
  const path = identityFileName(dir);
  if (fs.exists(path)) {
    const id = bytesToString(fs.readFile(path)).trim();
    if (dbId === undefined || id === dbId) return id;
  }
  const id = dbId ?? randomUuid();
  const tmp = joinPath(dir, "IDENTITY.dbtmp");
  fs.writeFile(tmp, toBytes(id), { sync: true });
  fs.rename(tmp, path);
  return id;
}

/** A version 4 UUID (RocksDB's db ids are UUIDs too). */
function randomUuid(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID !== undefined) return c.randomUUID();
  const hex = Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16));
  hex[12] = "4";
  hex[16] = ((Number.parseInt(hex[16]!, 16) & 3) | 8).toString(16);
  const h = hex.join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
