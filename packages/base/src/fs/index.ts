/**
 * The FileSystem contract and its three implementations.
 * Re-exported from the package root; errno.ts, normalize-path.ts and file-checks.ts stay
 * internal.
 */

export {
  type FaultCounters,
  type FaultErrno,
  FaultInjectionFileSystem,
  type FaultOperation,
} from "./fault-fs.js";
export * from "./file-system.js";
export { MemoryFileSystem } from "./memory-fs.js";
export { DEFAULT_WRITE_BUFFER_SIZE, NodeFileSystem } from "./node-fs.js";
