/**
 * The FileSystem contract and its three implementations.
 * Re-exported from the package root, with what a FileSystem implementation outside this
 * package can reuse: `BufferedWriter` (the write buffer) and `checkRange` / `checkCount`
 * (the contract's argument checks). errno.ts and normalize-path.ts stay internal.
 */

export { BufferedWriter, type ByteSink } from "./buffered-writer.js";
export {
  type FaultCounters,
  type FaultErrno,
  FaultInjectionFileSystem,
  type FaultOperation,
} from "./fault-fs.js";
export { checkCount, checkRange } from "./file-checks.js";
export * from "./file-system.js";
export { MemoryFileSystem } from "./memory-fs.js";
export { DEFAULT_WRITE_BUFFER_SIZE, NodeFileSystem } from "./node-fs.js";
