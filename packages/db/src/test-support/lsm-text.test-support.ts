/**
 * Files, versions and edits written as text, for the data-driven tests of the version set,
 * the picker and compactions (testdata/version, testdata/picker).
 *
 * A file: `<number>:<smallest>-<largest> [size=<bytes>|<n>K|<n>M]`, each bound an internal
 * key as `@shale/base/testing` reads it (`a#12,SET`; `,SET` may be left out; seq `max`), e.g.
 * `12:a#5-k#9,DEL size=2M`. Default size: 1M. `created=<seconds>` sets the file's creation
 * time (FIFO's ttl). A level line: `L<n> <file>`.
 */
import { bytewiseComparator, InternalKeyComparator, seqOf } from "@shale/base";
import { parseInternalKeyText } from "@shale/base/testing";
import { type FileMetaData, NUM_LEVELS, VersionEdit } from "../version/version-edit.js";
import { Version } from "../version/version-set.js";

export const icmp = new InternalKeyComparator(bytewiseComparator);

/** `2M`, `64K`, `1000` -> bytes. */
export function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([KMG]?)$/.exec(text);
  if (m === null) throw new TypeError(`bad size ${JSON.stringify(text)}`);
  const unit = { "": 1, K: 1024, M: 1024 * 1024, G: 1024 * 1024 * 1024 }[m[2]!]!;
  return Math.round(Number(m[1]) * unit);
}

/** `12:a#5-k#9 size=2M` -> a file. */
export function parseFile(text: string): FileMetaData {
  const [spec, ...opts] = text.trim().split(/\s+/);
  const m = /^(\d+):(.+#[^-]+)-(.+#[^-]+)$/.exec(spec ?? "");
  if (m === null) throw new TypeError(`bad file ${JSON.stringify(text)}: want N:lo#seq-hi#seq`);
  let size = 1024 * 1024;
  let created: number | undefined;
  for (const o of opts) {
    const [k, v] = o.split("=");
    if (k === "size" && v !== undefined) size = parseSize(v);
    else if (k === "created" && v !== undefined) created = Number(v);
    else throw new TypeError(`bad file option ${JSON.stringify(o)}`);
  }
  const smallest = parseInternalKeyText(m[2]!);
  const largest = parseInternalKeyText(m[3]!);
  const s1 = seqOf(smallest);
  const s2 = seqOf(largest);
  // A range-tombstone sentinel (seq max) does not count as data.
  const seqs = [s1, s2].filter((s) => s !== Number.MAX_SAFE_INTEGER);
  return {
    number: Number(m[1]),
    size,
    smallest,
    largest,
    smallestSeq: seqs.length ? Math.min(...seqs) : 0,
    largestSeq: seqs.length ? Math.max(...seqs) : 0,
    ...(created === undefined ? {} : { fileCreationTime: created }),
  };
}

/** `L1 12:a#5-k#9` -> [1, file]. */
export function parseLevelLine(line: string): [number, FileMetaData] {
  const m = /^L(\d)\s+(.*)$/.exec(line.trim());
  if (m === null) throw new TypeError(`bad level line ${JSON.stringify(line)}: want L<n> <file>`);
  const level = Number(m[1]);
  if (level >= NUM_LEVELS) throw new TypeError(`level ${level} >= ${NUM_LEVELS}`);
  return [level, parseFile(m[2]!)];
}

/** The non-blank, non-comment lines of an input. */
export function inputLines(input: string): string[] {
  return input
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}

/** A version holding the files of `L<n> <file>` lines (through `Version.apply`). */
export function parseVersion(input: string): Version {
  const edit = new VersionEdit();
  for (const line of inputLines(input)) {
    const [level, f] = parseLevelLine(line);
    edit.addFile(level, f);
  }
  return Version.empty().apply(edit, icmp);
}

/** `add L1 <file>` / `del L1 <number>` lines -> an edit. */
export function parseEdit(input: string): VersionEdit {
  const edit = new VersionEdit();
  for (const line of inputLines(input)) {
    const m = /^(add|del)\s+(L\d\s+.*)$/.exec(line);
    if (m === null)
      throw new TypeError(`bad edit line ${JSON.stringify(line)}: want add|del L<n> ...`);
    if (m[1] === "add") {
      const [level, f] = parseLevelLine(m[2]!);
      edit.addFile(level, f);
    } else {
      const d = /^L(\d)\s+(\d+)$/.exec(m[2]!);
      if (d === null)
        throw new TypeError(`bad del line ${JSON.stringify(line)}: want del L<n> <number>`);
      edit.deleteFile(Number(d[1]), Number(d[2]));
    }
  }
  return edit;
}

/** The version's files, one level per line, with sizes when `sizes` (for the picker). */
export function versionText(v: Version, sizes = false): string {
  const s = v.toString();
  if (!sizes) return s === "" ? "(empty)" : s;
  const out: string[] = [];
  v.levels.forEach((files, level) => {
    if (files.length === 0) return;
    out.push(`L${level}: ${files.map((f) => `${f.number}(${sizeText(f.size)})`).join(" ")}`);
  });
  return out.length ? out.join("\n") : "(empty)";
}

/** Bytes as `2M`, `64K` or a number. */
export function sizeText(n: number): string {
  if (n % (1024 * 1024 * 1024) === 0) return `${n / (1024 * 1024 * 1024)}G`;
  if (n % (1024 * 1024) === 0) return `${n / (1024 * 1024)}M`;
  if (n % 1024 === 0) return `${n / 1024}K`;
  return String(n);
}

/** A thrown error as one line for expected outputs. */
export function errorText(e: unknown): string {
  return `error: ${e instanceof Error ? e.message : String(e)}`;
}
