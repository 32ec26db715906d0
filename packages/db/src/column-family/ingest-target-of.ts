/**
 * The `IngestTarget` of one column family (ops/ingest/ingest-target.ts): what
 * `ingestExternalFile` reads and changes of the database and of the family, wired from the
 * family's parts. Built per call (ingestion is rare; nothing here is on a hot path).
 *
 * Threading: the database's thread.
 */

import { type FileSystem, ShaleError } from "@shale/base";
import {
  type IngestTarget,
  memtableHasDataIn,
  tablesHaveDataIn,
} from "../ops/ingest/ingest-target.js";
import { VersionEdit } from "../version/version-edit.js";
import type { VersionSet } from "../version/version-set.js";
import type { ColumnFamilyData } from "./column-family-data.js";
import type { WriteLoop } from "./write-loop.js";

/** The database's parts an ingestion uses (a `FamilyMethodsCore` has them). */
export interface IngestCore {
  readonly fs: FileSystem;
  readonly dir: string;
  readonly versions: VersionSet;
  readonly snapshots: { readonly size: number };
  readonly writes: Pick<WriteLoop, "lastSeq" | "syncWal">;
  takeFinished(): void;
}

/** The family of each target made here (`applyEdits` groups targets of several families). */
const familyOfTarget = new WeakMap<IngestTarget, { cf: ColumnFamilyData; core: IngestCore }>();

export function ingestTargetOf(
  core: IngestCore,
  cf: ColumnFamilyData,
  checkWritable: () => void,
): IngestTarget {
  const ucmp = cf.icmp.user;
  const versions = core.versions;
  const target: IngestTarget = {
    fs: core.fs,
    dir: core.dir,
    id: cf.id,
    icmp: cf.icmp,
    ucmp,
    current: () => cf.current,
    memtablesHaveDataIn: (range) =>
      memtableHasDataIn(cf.mem, ucmp, range) ||
      cf.flushes.imm.some((m) => memtableHasDataIn(m.mem, ucmp, range)),
    levelHasDataIn: (level, range) =>
      tablesHaveDataIn(cf.tableCache, cf.current.levels[level]!, ucmp, range),
    compactionWritesOver: (level, range) => cf.compactions.writesOver(level, range),
    // Universal and FIFO: into L0 (pick-level.ts).
    ...(cf.compactions.stylePicker === undefined ? {} : { deepestLevel: 0 }),
    flush: () => cf.flush(),
    snapshotCount: () => core.snapshots.size,
    lastSequence: () => core.writes.lastSeq,
    setLastSequence: (seq) => {
      core.writes.lastSeq = seq;
      versions.lastSequence = seq;
    },
    syncWal: () => core.writes.syncWal(),
    newFileNumber: () => versions.newFileNumber(),
    recordFileNumbers: () => versions.logAndApplyFamily(new VersionEdit(), cf.versions),
    applyEdits: (edits) => {
      const group = edits.map(({ target, edit }) => {
        const made = familyOfTarget.get(target);
        if (made === undefined || made.core !== core)
          throw ShaleError.invalidArgument("a column family of another database");
        return { edit, family: made.cf };
      });
      if (group.length === 1) versions.logAndApplyFamily(group[0]!.edit, group[0]!.family.versions);
      else
        versions.logAndApplyGroup(group.map((g) => ({ edit: g.edit, family: g.family.versions })));
      for (const g of group) g.family.versionChanged();
    },
    checkWritable,
    takeFinished: () => core.takeFinished(),
  };
  familyOfTarget.set(target, { cf, core });
  return target;
}
