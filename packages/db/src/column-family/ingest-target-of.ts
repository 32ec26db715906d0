/**
 * The `IngestTarget` of one column family (ops/ingest/ingest-target.ts): what
 * `ingestExternalFile` reads and changes of the database and of the family, wired from the
 * family's parts. Built per call (ingestion is rare; nothing here is on a hot path).
 *
 * Threading: the database's thread.
 */

import type { FileSystem } from "@shale/base";
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
  readonly writes: Pick<WriteLoop, "lastSeq">;
  takeFinished(): void;
}

export function ingestTargetOf(
  core: IngestCore,
  cf: ColumnFamilyData,
  checkWritable: () => void,
): IngestTarget {
  const ucmp = cf.icmp.user;
  const versions = core.versions;
  return {
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
    flush: () => cf.flush(),
    snapshotCount: () => core.snapshots.size,
    lastSequence: () => core.writes.lastSeq,
    setLastSequence: (seq) => {
      core.writes.lastSeq = seq;
      versions.lastSequence = seq;
    },
    newFileNumber: () => versions.newFileNumber(),
    recordFileNumbers: () => versions.logAndApplyFamily(new VersionEdit(), cf.versions),
    applyEdit: (edit) => {
      versions.logAndApplyFamily(edit, cf.versions);
      cf.versionChanged();
    },
    checkWritable,
    takeFinished: () => core.takeFinished(),
  };
}
