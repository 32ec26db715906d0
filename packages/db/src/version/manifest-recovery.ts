/**
 * Choosing and replaying the MANIFEST at open (RocksDB's VersionSet::Recover and, for
 * `bestEfforts`, VersionSet::TryRecover):
 *
 * - strict (default): the MANIFEST CURRENT names, replayed by manifest-replay.ts (any damage
 *   is Corruption with file and offset); then NextFileNumber, LogNumber and LastSequence must
 *   have been recorded, and every table of every column family must exist with its recorded
 *   size — else Corruption naming the table (not an IOError at the first read, later).
 * - best efforts: CURRENT's MANIFEST if it can be read, then every other MANIFEST in the
 *   directory, newest first; each is read up to its first damage and the state after the
 *   last edit at which all tables existed is taken (replayed a second time up to there). The
 *   first MANIFEST with such a state (after at least one edit) wins. What was left out is
 *   returned as text, one line per fact.
 */
import { baseName, type FileSystem, type InternalKeyComparator, ShaleError } from "@shale/base";
import {
  currentFileName,
  manifestFileName,
  parseFileName,
  tableFileName,
} from "../core/filenames.js";
import { readCurrent } from "./current-file.js";
import { type FamilyComparator, type ManifestState, replayManifest } from "./manifest-replay.js";

export interface RecoveredManifest {
  state: ManifestState;
  /** The MANIFEST's number. */
  number: number;
  /** Best efforts: what was left out ("" when nothing). */
  report: string;
}

export function recoverManifest(
  fs: FileSystem,
  dir: string,
  icmp: InternalKeyComparator,
  bestEfforts: boolean,
  familyComparator?: FamilyComparator,
): RecoveredManifest {
  const resolve = familyComparator !== undefined ? { familyComparator } : {};
  const candidates = bestEfforts ? manifestCandidates(fs, dir) : [readCurrent(fs, dir, true)];
  let state: ManifestState | undefined;
  let chosen = 0;
  const report: string[] = [];
  for (const number of candidates) {
    const path = manifestFileName(dir, number);
    const name = baseName(path);
    if (!bestEfforts) {
      state = replayManifest(path, { fs, dir, icmp, ...resolve }).state;
      chosen = number;
      break;
    }
    const first = replayManifest(path, {
      fs,
      dir,
      icmp,
      bestEfforts: true,
      ...resolve,
    });
    if (first.damage !== undefined)
      report.push(
        `${name}: read up to damage at offset ${first.damage.offset ?? 0}: ${first.damage.message}`,
      );
    if (first.missing.length > 0) report.push(`${name}: ${first.missing.join(", ")}`);
    if (first.lastWhole < first.state.units)
      report.push(`${name}: opened at edit ${first.lastWhole} of ${first.state.units}`);
    // The first pass's state is usable only if it stopped cleanly: an edit that failed half
    // way (say, its counters applied, then an unknown file deleted) must not leak into it.
    state =
      first.lastWhole === first.state.units && first.damage === undefined
        ? first.state
        : replayManifest(path, {
            fs,
            dir,
            icmp,
            limit: first.lastWhole,
            ...resolve,
          }).state;
    chosen = number;
    if (first.lastWhole > 0) break;
    report.push(`${name}: no whole version; trying an older MANIFEST`);
  }
  if (state === undefined)
    throw ShaleError.corruption("no MANIFEST to recover from", baseName(currentFileName(dir)), 0);
  const manifestName = baseName(manifestFileName(dir, chosen));
  if (!bestEfforts) {
    const missing = (what: string) => `no meta-${what} entry in ${manifestName}`;
    if (state.nextFileNumber === undefined)
      throw ShaleError.corruption(missing("nextfile"), manifestName, 0);
    if (state.logNumber === undefined)
      throw ShaleError.corruption(missing("lognumber"), manifestName, 0);
    if (state.lastSequence === undefined)
      throw ShaleError.corruption(missing("last-sequence-number"), manifestName, 0);
    for (const f of state.liveTables()) {
      const p = tableFileName(dir, f.number);
      const table = baseName(p);
      if (!fs.exists(p))
        throw ShaleError.corruption(`${table} is missing (${manifestName} names it)`, table, 0);
      // Sizes are checked by paranoidChecks (paranoid-checks.ts), as RocksDB's CheckConsistency.
    }
  }
  return { state, number: chosen, report: report.join("\n") };
}

/** Best efforts: the MANIFEST CURRENT names (if it can be read), then the others, newest first. */
function manifestCandidates(fs: FileSystem, dir: string): number[] {
  const numbers: number[] = [];
  for (const name of fs.list(dir)) {
    const parsed = parseFileName(name);
    if (parsed?.type === "manifest") numbers.push(parsed.number);
  }
  numbers.sort((a, b) => b - a);
  try {
    const named = readCurrent(fs, dir);
    return [named, ...numbers.filter((n) => n !== named)];
  } catch {
    return numbers;
  }
}
