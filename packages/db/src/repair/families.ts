/**
 * Repair's column families (RocksDB's Repairer learns them the same way): which families the
 * rebuilt MANIFEST holds, and which family each table belongs to.
 *
 * - `default` (id 0) always.
 * - The families the old MANIFESTs name (read as far as they read; a damaged or unreadable
 *   one adds nothing): a family with no table left keeps its id and name, so the records
 *   the WALs hold for it are not lost.
 * - The family each table's properties name (`rocksdb.column.family.id` and its name, as
 *   every table RocksDB or shale writes records them): a family no MANIFEST names is added
 *   with that id and name. A table without a family id (0x7fffffff: SstFileWriter's) or
 *   whose properties do not read belongs to `default` (the scan then decides its fate).
 *
 * A family's comparator is the one its options name, else the one recorded for it (the
 * table's comparator name, or the MANIFEST's), resolved as an open resolves it; one shale
 * does not have makes the family unknown: its tables are dropped (to `lost/`) and its WAL
 * records skipped, each reported.
 */
import { baseName, type FileSystem, type InternalKeyComparator, joinPath } from "@shale/base";
import { type TableBuilderOptions, TableReader } from "@shale/sstable";
import { type TableIdentity, tableWriteOptions } from "../compaction/build-table.js";
import { tableFileName } from "../core/filenames.js";
import { type ResolvedOptions, resolveColumnFamilyOptions } from "../core/options.js";
import { familyComparator } from "../open/recovery.js";
import { replayManifest } from "../version/manifest-replay.js";
import type { FileMetaData } from "../version/version-edit.js";

/** A column family of the repaired database. */
export interface RepairFamily {
  readonly id: number;
  readonly name: string;
  readonly icmp: InternalKeyComparator;
  /** For the tables repair writes into the family (its WALs' records, salvages). */
  readonly builderOptions: TableBuilderOptions;
  /** Its tables in the rebuilt MANIFEST (all in L0). */
  readonly files: FileMetaData[];
}

/** The id tables without a column family carry (RocksDB's kUnknownColumnFamily). */
const UNKNOWN_FAMILY = 0x7fffffff;

export interface RepairFamilies {
  /** By id, `default` first. */
  readonly families: Map<number, RepairFamily>;
  /** The family of each table (by table number). */
  readonly tableFamily: Map<number, number>;
  /** The families named by tables or MANIFESTs that could not be added (comparator). */
  readonly unknown: Map<number, string>;
}

export function findFamilies(
  fs: FileSystem,
  dir: string,
  options: ResolvedOptions,
  icmp: InternalKeyComparator,
  identity: TableIdentity,
  tables: readonly number[],
  manifests: readonly string[],
): RepairFamilies {
  const comparatorOf = familyComparator(options, icmp);
  const families = new Map<number, RepairFamily>();
  const unknown = new Map<number, string>();
  const add = (id: number, name: string, familyIcmp: InternalKeyComparator) => {
    if (families.has(id)) return;
    const own = id === 0 ? options : resolveColumnFamilyOptions(options, name);
    families.set(id, {
      id,
      name,
      icmp: familyIcmp,
      builderOptions: {
        ...tableWriteOptions(own, identity, { id, name }),
        comparator: familyIcmp.user,
      },
      files: [],
    });
  };
  const tryAdd = (id: number, name: string, recorded: string | undefined) => {
    if (families.has(id) || unknown.has(id)) return;
    try {
      add(id, name, comparatorOf(name, recorded));
    } catch {
      unknown.set(id, name);
    }
  };
  add(0, "default", icmp);
  for (const manifest of manifests) {
    try {
      const { state } = replayManifest(joinPath(dir, manifest), {
        fs,
        dir,
        icmp,
        bestEfforts: true,
        familyComparator: comparatorOf,
      });
      for (const f of state.families.values()) tryAdd(f.id, f.name, f.icmp.name);
    } catch {
      // An unreadable MANIFEST names no family; the tables still do.
    }
  }
  const tableFamily = new Map<number, number>();
  for (const number of tables) {
    const path = tableFileName(dir, number);
    let id = 0;
    try {
      const reader = TableReader.open(fs.openRandomAccess(path), {
        fileSize: fs.fileSize(path),
        fileName: baseName(path),
        fileNumber: number,
        comparator: icmp.user,
      });
      try {
        const p = reader.properties;
        if (p.columnFamilyId !== undefined && p.columnFamilyId !== UNKNOWN_FAMILY) {
          id = p.columnFamilyId;
          if (id !== 0) tryAdd(id, p.columnFamilyName, p.comparatorName);
        }
      } finally {
        reader.close();
      }
    } catch {
      // Does not open: the scan drops it (as a default family table).
    }
    tableFamily.set(number, id);
  }
  return { families, tableFamily, unknown };
}
