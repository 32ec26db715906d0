/**
 * @shale/wal — a durable record log in the format of LevelDB/RocksDB's write-ahead log:
 * 32 KiB blocks, records fragmented FULL/FIRST/MIDDLE/LAST, a masked XXH32 checksum per
 * fragment, and recovery modes that decide what a reader does with a torn tail or damage.
 * Format: docs/formats/log.md (and the top of writer.ts).
 */
export {
  BLOCK_SIZE,
  FIRST_IGNORABLE_TYPE,
  HEADER_SIZE,
  MAX_FRAGMENT_LENGTH,
  RecordType,
} from "./format.js";
export { LogReader } from "./reader.js";
export { type LogCorruptionInfo, type LogReaderOptions, WalRecoveryMode } from "./recovery-mode.js";
export { LogWriter, type LogWriterOptions } from "./writer.js";
