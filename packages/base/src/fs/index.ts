/**
 * The FileSystem contract and its three implementations.
 * Re-exported from the package root (with `BufferedWriter`, the write buffer a
 * FileSystem implementation outside this package can reuse); errno.ts, normalize-path.ts and file-checks.ts stay
 * internal.
 */

export { BufferedWriter, type ByteSink } from "./buffered-writer.js";
export {
  type FaultCounters,
  type FaultErrno,
  FaultInjectionFileSystem,
  type FaultOperation,
} from "./fault-fs.js";
export * from "./file-system.js";
export { MemoryFileSystem } from "./memory-fs.js";
export { DEFAULT_WRITE_BUFFER_SIZE, NodeFileSystem } from "./node-fs.js";
