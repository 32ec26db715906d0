/**
 * The prefix extractor a column family opens with, from the one given (`prefixExtractor`)
 * and the one its newest OPTIONS file records (`prefix_extractor=` in its CFOptions
 * section; RocksDB writes "nullptr" for none):
 *
 * ```
 *   recorded      given         opens with
 *   none/nullptr  E or none     E or none
 *   X             E, E.name=X   E
 *   X             E, other name InvalidArgument (before anything is written)
 *   X (built-in)  none          the built-in X (fixedPrefix, cappedPrefix, Noop)
 *   X (other)     none          InvalidArgument: give the extractor named X
 * ```
 * Tables record their own extractor (`rocksdb.prefix.extractor.name`); a table's prefix
 * filter is used only by an extractor of that name, whatever is decided here.
 */
import { ShaleError } from "@shale/base";
import { builtinPrefixExtractor, type PrefixExtractor } from "@shale/sstable";
import type { OptionsSection } from "./options-file.js";

/** The extractor name a family's CFOptions section records; undefined for none ("nullptr"). */
export function recordedPrefixExtractor(
  sections: readonly OptionsSection[],
  family: string,
): string | undefined {
  const cf = sections.find((s) => s.title === `CFOptions "${family}"`);
  const v = cf?.entries.get("prefix_extractor")?.trim();
  return v === undefined || v === "" || v === "nullptr" ? undefined : v;
}

/** The extractor family `family` opens with (see the table above); `file` names the OPTIONS file. */
export function resolvePrefixExtractor(
  recorded: string | undefined,
  given: PrefixExtractor | undefined,
  family: string,
  file: string,
): PrefixExtractor | undefined {
  if (recorded === undefined) return given;
  if (given !== undefined) {
    if (given.name === recorded) return given;
    throw ShaleError.invalidArgument(
      `column family ${JSON.stringify(family)} was created with prefix extractor "${recorded}", not "${given.name}" (${file})`,
    );
  }
  const builtin = builtinPrefixExtractor(recorded);
  if (builtin !== undefined) return builtin;
  throw ShaleError.invalidArgument(
    `column family ${JSON.stringify(family)} was created with prefix extractor "${recorded}", which is not built in: pass it as the prefixExtractor option (${file})`,
  );
}
