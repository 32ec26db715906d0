/**
 * @shale/cli — the `shale` command (RocksDB's `ldb` and `sst_dump` for shale, which also read
 * RocksDB's own files). Installing it, or `shale`, gives the bin. `run` runs the command
 * in-process (for tools and tests): it returns the exit code and writes through `out`;
 * `main` runs it on this process's arguments and streams, as the bin does.
 */
export type { Output } from "./context.js";
export { main } from "./process.js";
export { run } from "./program.js";
