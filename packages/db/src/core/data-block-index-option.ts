/**
 * The data block index of a column family's tables (`dataBlockIndexType`,
 * `dataBlockHashTableUtilRatio`; @shale/sstable's data-block-hash-index.ts) in the OPTIONS
 * file, under RocksDB's names in the family's `[TableOptions/BlockBasedTable "<family>"]`
 * section:
 *
 * ```
 *   data_block_index_type=kDataBlockBinarySearch | kDataBlockBinaryAndHash
 *   data_block_hash_table_util_ratio=0.750000          (a double, "%f" as RocksDB prints it)
 * ```
 * A family opened without the option takes what its newest OPTIONS file records (a RocksDB
 * directory written with the hash index keeps writing it), else the defaults
 * ("binarySearch", 0.75). A ratio <= 0 in a file reads as 0.75, as RocksDB's builder reads
 * it; a type RocksDB does not have, or a ratio that is not a number, is Corruption naming
 * the file.
 */
import { ShaleError } from "@shale/base";
import type { DataBlockIndexTypeName } from "@shale/sstable";
import type { OptionsSection } from "./options-file.js";

/** RocksDB's names of the data block index types (BlockBasedTableOptions::DataBlockIndexType). */
const ROCKSDB_NAMES: Readonly<Record<DataBlockIndexTypeName, string>> = Object.freeze({
  binarySearch: "kDataBlockBinarySearch",
  binaryAndHash: "kDataBlockBinaryAndHash",
});

/** RocksDB's default `data_block_hash_table_util_ratio`. */
export const DEFAULT_DATA_BLOCK_HASH_UTIL_RATIO = 0.75;

/** What an OPTIONS file records of a family's data block index (undefined: absent). */
export interface RecordedDataBlockIndex {
  dataBlockIndexType: DataBlockIndexTypeName | undefined;
  dataBlockHashTableUtilRatio: number | undefined;
}

/** Reads the data block index of family `family` from a parsed OPTIONS file (`file` names it). */
export function recordedDataBlockIndex(
  sections: readonly OptionsSection[],
  family: string,
  file: string,
): RecordedDataBlockIndex {
  const out: RecordedDataBlockIndex = {
    dataBlockIndexType: undefined,
    dataBlockHashTableUtilRatio: undefined,
  };
  const table = sections.find((s) => s.title === `TableOptions/BlockBasedTable "${family}"`);
  if (table === undefined) return out;
  const type = table.entries.get("data_block_index_type")?.trim();
  if (type !== undefined) {
    const found = (Object.keys(ROCKSDB_NAMES) as DataBlockIndexTypeName[]).find(
      (k) => ROCKSDB_NAMES[k] === type,
    );
    if (found === undefined) {
      throw ShaleError.corruption(
        `${table.title}: data_block_index_type names an unknown type ${JSON.stringify(type)}`,
        file,
      );
    }
    out.dataBlockIndexType = found;
  }
  const ratio = table.entries.get("data_block_hash_table_util_ratio")?.trim();
  if (ratio !== undefined) {
    const value = ratio === "" ? Number.NaN : Number(ratio);
    if (!Number.isFinite(value)) {
      throw ShaleError.corruption(
        `${table.title}: data_block_hash_table_util_ratio is not a number: ${JSON.stringify(ratio)}`,
        file,
      );
    }
    out.dataBlockHashTableUtilRatio = value > 0 ? value : DEFAULT_DATA_BLOCK_HASH_UTIL_RATIO;
  }
  return out;
}

/** The entries a family's table section records (RocksDB's spelling). */
export function dataBlockIndexEntries(options: {
  dataBlockIndexType?: DataBlockIndexTypeName | undefined;
  dataBlockHashTableUtilRatio?: number | undefined;
}): Record<string, string> {
  return {
    data_block_index_type: ROCKSDB_NAMES[options.dataBlockIndexType ?? "binarySearch"],
    data_block_hash_table_util_ratio: (
      options.dataBlockHashTableUtilRatio ?? DEFAULT_DATA_BLOCK_HASH_UTIL_RATIO
    ).toFixed(6),
  };
}
