/**
 * shale/testing — parts for testing an application on shale, not for production: a
 * FileSystem that injects write/sync failures, short writes and torn writes, and simulates
 * a crash (unsynced data lost). Wrap a MemoryFileSystem (or NodeFileSystem) with it and
 * pass it as `fs` to `open`.
 */
export {
  type FaultCounters,
  type FaultErrno,
  FaultInjectionFileSystem,
  type FaultOperation,
} from "@shale/base";
