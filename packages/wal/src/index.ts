/**
 * @shale/wal — a durable record log in RocksDB's write-ahead log format, bit for bit:
 * 32 KiB blocks, records fragmented FULL/FIRST/MIDDLE/LAST (and RocksDB's recyclable
 * types), RocksDB's masked CRC32C per fragment, and recovery modes that decide what a
 * reader does with a torn tail or damage.
 * Format: docs/formats/log.md (and the top of writer.ts).
 */
export {
  BLOCK_SIZE,
  FIRST_IGNORABLE_TYPE,
  HEADER_SIZE,
  MAX_FRAGMENT_LENGTH,
  RECYCLABLE_HEADER_SIZE,
  RecordType,
} from "./format.js";
export { LogReader } from "./reader.js";
export {
  type LogCorruptionInfo,
  type LogReaderOptions,
  type WalDecompressor,
  WalRecoveryMode,
} from "./recovery-mode.js";
export { LogWriter, type LogWriterOptions, type WalCompressor } from "./writer.js";
