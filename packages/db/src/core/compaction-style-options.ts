/**
 * The compaction style of a column family (RocksDB's `compaction_style`) and the options of
 * the universal and FIFO styles (`compaction_options_universal`, `compaction_options_fifo`,
 * and the family's `ttl` for FIFO), with RocksDB's names and defaults, camelCased:
 *
 * ```
 *   compactionStyle: "leveled" | "universal" | "fifo"        compaction_style=kCompactionStyleLevel
 *                                                            | kCompactionStyleUniversal | kCompactionStyleFIFO
 *   universal: {                                             compaction_options_universal={...}
 *     sizeRatio: 1                       (percent)           size_ratio
 *     minMergeWidth: 2                                       min_merge_width
 *     maxMergeWidth: 4294967295                              max_merge_width
 *     maxSizeAmplificationPercent: 200                       max_size_amplification_percent
 *     compressionSizePercent: -1                             compression_size_percent
 *     stopStyle: "totalSize" | "similarSize"                 stop_style=kCompactionStopStyleTotalSize
 *     allowTrivialMove: false                                allow_trivial_move
 *   }
 *   fifo: {                                                  compaction_options_fifo={...}
 *     maxTableFilesSize: 1 GiB                               max_table_files_size
 *     ttl: 2592000 (30 days; 0: none)    (seconds)           ttl (a CFOptions entry of its own)
 *     allowCompaction: false                                 allow_compaction
 *   }
 * ```
 * RocksDB's `incremental` (universal) is written as false; true is NotSupported. The FIFO ttl default is RocksDB 7.8.3's effective one (its `ttl` is
 * sanitized to 30 days for FIFO with block-based tables, and the OPTIONS file records that).
 *
 * An open that gives no `compactionStyle` for a family takes the one its newest OPTIONS file
 * records, with the recorded universal / FIFO options under the ones given (a directory
 * RocksDB's db_bench wrote with `--compaction_style=1` opens universal).
 */
import { ShaleError } from "@shale/base";
import type { OptionsSection } from "./options-file.js";

export type CompactionStyle = "leveled" | "universal" | "fifo";

/** RocksDB's CompactionOptionsUniversal (include/rocksdb/universal_compaction.h). */
export interface UniversalCompactionOptions {
  /**
   * Percent of flexibility when comparing sorted-run sizes: a run joins the candidates when
   * it is at most `(100 + sizeRatio)%` of the candidates' total size. Default: 1.
   */
  sizeRatio?: number;
  /** Fewest sorted runs in a size-ratio compaction (at least 2). Default: 2. */
  minMergeWidth?: number;
  /** Most sorted runs in a size-ratio compaction. Default: 4294967295 (UINT_MAX). */
  maxMergeWidth?: number;
  /**
   * When the sorted runs other than the oldest hold this percent of the oldest one's bytes
   * or more, all runs are compacted into one. Default: 200.
   */
  maxSizeAmplificationPercent?: number;
  /**
   * -1: outputs are compressed as the options say. Otherwise a size-ratio compaction writes
   * uncompressed tables while the runs older than its inputs already hold this percent of
   * the data. Default: -1.
   */
  compressionSizePercent?: number;
  /**
   * "totalSize": a run joins while the candidates' total size (plus `sizeRatio`) reaches
   * it; "similarSize": while the last picked run's does, both ways. Default: "totalSize".
   */
  stopStyle?: "totalSize" | "similarSize";
  /**
   * RocksDB's allow_trivial_move: an automatic compaction whose input tables do not overlap
   * one another (no user key in two of them) moves them to its output level in the MANIFEST
   * instead of rewriting them (not into L0, not for `compactRange`). Default: false.
   */
  allowTrivialMove?: boolean;
  /** RocksDB's incremental: only false (true is NotSupported). Default: false. */
  incremental?: boolean;
}

/** RocksDB's CompactionOptionsFIFO, and the family's `ttl` as FIFO reads it. */
export interface FifoCompactionOptions {
  /** When the tables' total size exceeds this, the oldest are deleted. Default: 1 GiB. */
  maxTableFilesSize?: number;
  /**
   * Seconds: tables whose creation time (MANIFEST `file_creation_time`) is older are
   * deleted, oldest first, when that brings the total under `maxTableFilesSize`. 0: none.
   * Default: 2592000 (30 days, RocksDB 7.8.3's effective value).
   */
  ttl?: number;
  /**
   * Merge small L0 tables into larger ones (RocksDB's FindIntraL0Compaction: at least
   * `level0FileNumCompactionTrigger` files, while the bytes per file removed do not grow,
   * none larger than 1.1 x writeBufferSize). Default: false.
   */
  allowCompaction?: boolean;
}

export interface ResolvedUniversalOptions {
  sizeRatio: number;
  minMergeWidth: number;
  maxMergeWidth: number;
  maxSizeAmplificationPercent: number;
  compressionSizePercent: number;
  stopStyle: "totalSize" | "similarSize";
  allowTrivialMove: boolean;
}

export interface ResolvedFifoOptions {
  maxTableFilesSize: number;
  ttl: number;
  allowCompaction: boolean;
}

export const UINT_MAX = 4294967295;
export const FIFO_DEFAULT_TTL = 30 * 24 * 60 * 60;

export const UNIVERSAL_DEFAULTS: Readonly<ResolvedUniversalOptions> = Object.freeze({
  sizeRatio: 1,
  minMergeWidth: 2,
  maxMergeWidth: UINT_MAX,
  maxSizeAmplificationPercent: 200,
  compressionSizePercent: -1,
  stopStyle: "totalSize",
  allowTrivialMove: false,
});

export const FIFO_DEFAULTS: Readonly<ResolvedFifoOptions> = Object.freeze({
  maxTableFilesSize: 1024 * 1024 * 1024,
  ttl: FIFO_DEFAULT_TTL,
  allowCompaction: false,
});

const STYLE_NAMES: Readonly<Record<CompactionStyle, string>> = Object.freeze({
  leveled: "kCompactionStyleLevel",
  universal: "kCompactionStyleUniversal",
  fifo: "kCompactionStyleFIFO",
});
const STOP_STYLE_NAMES = Object.freeze({
  totalSize: "kCompactionStopStyleTotalSize",
  similarSize: "kCompactionStopStyleSimilarSize",
});

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

type FieldCheck = (name: string, value: unknown) => void;

function integerField(min: number, max: number): FieldCheck {
  return (name, v) => {
    if (typeof v !== "number")
      throw new TypeError(`options.${name} must be an integer; got ${typeof v}`);
    if (!Number.isSafeInteger(v) || v < min || v > max)
      throw ShaleError.invalidArgument(
        `options.${name} must be an integer in [${min}, ${max}]; got ${v}`,
      );
  };
}
function booleanField(): FieldCheck {
  return (name, v) => {
    if (typeof v !== "boolean")
      throw new TypeError(`options.${name} must be a boolean; got ${typeof v}`);
  };
}
function falseOnly(rocksdbName: string): FieldCheck {
  return (name, v) => {
    booleanField()(name, v);
    if (v === true)
      throw ShaleError.notSupported(
        `options.${name} (RocksDB's ${rocksdbName}) true is not supported`,
      );
  };
}

const UNIVERSAL_FIELDS: Readonly<Record<keyof UniversalCompactionOptions, FieldCheck>> = {
  sizeRatio: integerField(0, UINT_MAX),
  minMergeWidth: integerField(0, UINT_MAX),
  maxMergeWidth: integerField(0, UINT_MAX),
  maxSizeAmplificationPercent: integerField(0, UINT_MAX),
  compressionSizePercent: integerField(-1, 100),
  stopStyle: (name, v) => {
    if (typeof v !== "string")
      throw new TypeError(`options.${name} must be a string; got ${typeof v}`);
    if (v !== "totalSize" && v !== "similarSize")
      throw ShaleError.invalidArgument(
        `options.${name} must be "totalSize" or "similarSize"; got ${JSON.stringify(v)}`,
      );
  },
  allowTrivialMove: booleanField(),
  incremental: falseOnly("incremental"),
};

const FIFO_FIELDS: Readonly<Record<keyof FifoCompactionOptions, FieldCheck>> = {
  maxTableFilesSize: integerField(0, Number.MAX_SAFE_INTEGER),
  ttl: integerField(0, Number.MAX_SAFE_INTEGER),
  allowCompaction: booleanField(),
};

/** Checks `options.universal` / `options.fifo` field by field (TypeError / InvalidArgument / NotSupported). */
export function checkStyleOptions(what: "universal" | "fifo", value: unknown): void {
  if (!isObject(value)) throw new TypeError(`options.${what} must be an object`);
  const fields: Record<string, FieldCheck> = what === "universal" ? UNIVERSAL_FIELDS : FIFO_FIELDS;
  for (const [k, v] of Object.entries(value)) {
    const check = fields[k];
    if (check === undefined)
      throw ShaleError.invalidArgument(
        `unknown options.${what} option "${k}" (known: ${Object.keys(fields).join(", ")})`,
      );
    if (v !== undefined) check(`${what}.${k}`, v);
  }
}

/** The compaction options of one family as resolved: style and both styles' options. */
export interface ResolvedCompactionStyle {
  compactionStyle: CompactionStyle;
  universal: ResolvedUniversalOptions;
  fifo: ResolvedFifoOptions;
}

function defined<T extends object>(o: T | undefined): Partial<T> {
  const out: Partial<T> = {};
  if (o === undefined) return out;
  for (const [k, v] of Object.entries(o))
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** Defaults filled in (`recorded` below the given values, above the defaults). */
export function resolveCompactionStyle(
  given: {
    compactionStyle?: CompactionStyle | undefined;
    universal?: UniversalCompactionOptions | undefined;
    fifo?: FifoCompactionOptions | undefined;
  },
  recorded?: RecordedCompactionStyle,
): ResolvedCompactionStyle {
  const { incremental: _i, ...universal } = defined(given.universal);
  return {
    compactionStyle: given.compactionStyle ?? recorded?.compactionStyle ?? "leveled",
    universal: { ...UNIVERSAL_DEFAULTS, ...recorded?.universal, ...universal },
    fifo: { ...FIFO_DEFAULTS, ...recorded?.fifo, ...defined(given.fifo) },
  };
}

/** The `[CFOptions]` entries of the compaction style, spelled as RocksDB 7.8.3 writes them. */
export function compactionStyleEntries(
  o: ResolvedCompactionStyle,
): Record<string, string | number> {
  const u = o.universal;
  const f = o.fifo;
  const out: Record<string, string | number> = {
    compaction_style: STYLE_NAMES[o.compactionStyle],
    compaction_options_universal:
      `{incremental=false;compression_size_percent=${u.compressionSizePercent};allow_trivial_move=${u.allowTrivialMove};` +
      `max_size_amplification_percent=${u.maxSizeAmplificationPercent};max_merge_width=${u.maxMergeWidth};` +
      `stop_style=${STOP_STYLE_NAMES[u.stopStyle]};min_merge_width=${u.minMergeWidth};size_ratio=${u.sizeRatio};}`,
    compaction_options_fifo: `{allow_compaction=${f.allowCompaction};age_for_warm=0;max_table_files_size=${f.maxTableFilesSize};}`,
  };
  // RocksDB's `ttl` means other things to the other styles (shale has no leveled ttl).
  if (o.compactionStyle === "fifo") out["ttl"] = f.ttl;
  return out;
}

/** What a family's OPTIONS section records of the compaction style (given keys only). */
export interface RecordedCompactionStyle {
  compactionStyle: CompactionStyle | undefined;
  universal: Partial<ResolvedUniversalOptions>;
  fifo: Partial<ResolvedFifoOptions>;
}

/** `{a=1;b=x;}` -> entries (RocksDB's struct syntax, one level deep). */
function parseStruct(text: string, key: string, file: string): Map<string, string> {
  const t = text.trim();
  if (!t.startsWith("{") || !t.endsWith("}"))
    throw ShaleError.corruption(`${key} is not a {...} struct: ${JSON.stringify(text)}`, file);
  const out = new Map<string, string>();
  for (const part of t.slice(1, -1).split(";")) {
    if (part.trim() === "") continue;
    const eq = part.indexOf("=");
    if (eq <= 0)
      throw ShaleError.corruption(`${key} has a bad field ${JSON.stringify(part)}`, file);
    out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}

function numberOf(value: string, key: string, file: string): number {
  const n = Number(value);
  if (value === "" || !Number.isFinite(n))
    throw ShaleError.corruption(`${key} is not a number: ${JSON.stringify(value)}`, file);
  return n;
}

/**
 * Reads `compaction_style`, `compaction_options_universal`, `compaction_options_fifo` and
 * (FIFO) `ttl` of family `family` in an OPTIONS file. Unknown struct fields are skipped
 * (newer RocksDB versions add some); a style name RocksDB does not have is Corruption.
 */
export function recordedCompactionStyle(
  sections: readonly OptionsSection[],
  family: string,
  file: string,
): RecordedCompactionStyle {
  const out: RecordedCompactionStyle = { compactionStyle: undefined, universal: {}, fifo: {} };
  const cf = sections.find((s) => s.title === `CFOptions "${family}"`);
  if (cf === undefined) return out;
  const e = cf.entries;
  const style = e.get("compaction_style");
  if (style !== undefined) {
    const found = (Object.keys(STYLE_NAMES) as CompactionStyle[]).find(
      (k) => STYLE_NAMES[k] === style,
    );
    if (found === undefined) {
      if (style === "kCompactionStyleNone")
        throw ShaleError.notSupported(
          `${cf.title}: compaction_style=kCompactionStyleNone is not supported (${file})`,
        );
      throw ShaleError.corruption(
        `${cf.title}: unknown compaction_style ${JSON.stringify(style)}`,
        file,
      );
    }
    out.compactionStyle = found;
  }
  const u = e.get("compaction_options_universal");
  if (u !== undefined) {
    const m = parseStruct(u, "compaction_options_universal", file);
    const num = (k: string) => {
      const v = m.get(k);
      return v === undefined ? undefined : numberOf(v, `compaction_options_universal.${k}`, file);
    };
    const set = <K extends keyof ResolvedUniversalOptions>(
      k: K,
      v: ResolvedUniversalOptions[K] | undefined,
    ) => {
      if (v !== undefined) out.universal[k] = v;
    };
    set("sizeRatio", num("size_ratio"));
    set("minMergeWidth", num("min_merge_width"));
    set("maxMergeWidth", num("max_merge_width"));
    set("maxSizeAmplificationPercent", num("max_size_amplification_percent"));
    set("compressionSizePercent", num("compression_size_percent"));
    const move = m.get("allow_trivial_move");
    if (move !== undefined) set("allowTrivialMove", move.trim() === "true");
    const stop = m.get("stop_style");
    if (stop !== undefined)
      set("stopStyle", stop === STOP_STYLE_NAMES.similarSize ? "similarSize" : "totalSize");
  }
  const f = e.get("compaction_options_fifo");
  if (f !== undefined) {
    const m = parseStruct(f, "compaction_options_fifo", file);
    const size = m.get("max_table_files_size");
    if (size !== undefined)
      out.fifo.maxTableFilesSize = numberOf(
        size,
        "compaction_options_fifo.max_table_files_size",
        file,
      );
    const allow = m.get("allow_compaction");
    if (allow !== undefined) out.fifo.allowCompaction = allow === "true";
  }
  const ttl = e.get("ttl");
  if (out.compactionStyle === "fifo" && ttl !== undefined)
    out.fifo.ttl = numberOf(ttl, "ttl", file);
  return out;
}

/**
 * Refuses a style the family's tree cannot take, before anything is written: FIFO keeps
 * every table in L0, so a tree with tables in L1..L6 cannot be opened FIFO.
 */
export function checkStyleFitsTree(
  style: CompactionStyle,
  family: string,
  filesPerLevel: readonly number[],
): void {
  if (style !== "fifo") return;
  const deeper = filesPerLevel.slice(1).reduce((a, b) => a + b, 0);
  if (deeper > 0)
    throw ShaleError.invalidArgument(
      `column family ${JSON.stringify(family)} cannot open with compactionStyle "fifo": FIFO keeps every table in L0 and ${deeper} table(s) are in L1..L${filesPerLevel.length - 1} (files per level: ${filesPerLevel.join(",")})`,
    );
}
