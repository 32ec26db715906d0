/**
 * Whether a column family is a TTL family, as its newest OPTIONS file records it, and the
 * open's check against the `ttl` option.
 *
 * RocksDB's DBWithTTL records itself in the family's CFOptions section, through the
 * compaction filter factory it installs (RocksDB 7.8.3, as `ldb --ttl` writes it):
 * ```
 *   compaction_filter_factory={id=TtlCompactionFilterFactory;user_filter_factory=nullptr;ttl=0;}
 *   merge_operator={id=TtlMergeOperator;user_operator={id=StringAppendOperator;delimiter=\:;};}
 * ```
 * (`compaction_filter={id=TtlCompactionFilter;...}` when a user's filter was given; the
 * merge operator line only with a merge operator). shale writes the same lines for a family
 * with `ttl`, and reads either as "this family stores timestamps". RocksDB itself does not
 * check them at open (a TTL database opened without TTL returns values with their suffix);
 * shale does, because the other outcome is silent garbage:
 * ```
 *   recorded        ttl option     open
 *   no section      any            as given (a new family or a directory without OPTIONS)
 *   TTL             a number       TTL (the number given wins over the recorded one)
 *   TTL             none           InvalidArgument
 *   not TTL         a number       InvalidArgument
 *   not TTL         none           plain
 * ```
 */
import { ShaleError } from "@shale/base";
import type { OptionsSection } from "./options-file.js";

const TTL_FILTER_IDS = ["TtlCompactionFilterFactory", "TtlCompactionFilter"];

/** True/false as the family's section records TTL; undefined when there is no section. */
export function recordedTtl(
  sections: readonly OptionsSection[],
  family: string,
): boolean | undefined {
  const cf = sections.find((s) => s.title === `CFOptions "${family}"`);
  if (cf === undefined) return undefined;
  for (const key of ["compaction_filter_factory", "compaction_filter"]) {
    const v = cf.entries.get(key)?.trim();
    if (v === undefined) continue;
    const id = /^\{\s*id=([^;}]*)/.exec(v)?.[1]?.trim() ?? v;
    if (TTL_FILTER_IDS.includes(id)) return true;
  }
  return false;
}

/** The open's check (see the table above); `file` names the OPTIONS file. */
export function checkTtl(
  recorded: boolean | undefined,
  ttl: number | undefined,
  family: string,
  file: string,
): void {
  if (recorded === true && ttl === undefined)
    throw ShaleError.invalidArgument(
      `column family ${JSON.stringify(family)} was written with TTL (its values end with a timestamp): open it with the ttl option (${file})`,
    );
  if (recorded === false && ttl !== undefined)
    throw ShaleError.invalidArgument(
      `column family ${JSON.stringify(family)} was written without TTL: it cannot be opened with ttl (${file})`,
    );
}

/** The CFOptions entry that records a TTL family, as RocksDB 7.8.3 writes it. */
export function ttlOptionsEntries(ttl: number | undefined): Record<string, string> {
  if (ttl === undefined) return {};
  return {
    compaction_filter_factory: `{id=TtlCompactionFilterFactory;user_filter_factory=nullptr;ttl=${ttl};}`,
  };
}
