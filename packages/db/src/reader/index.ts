/** Readers in worker threads (reader.ts): the surface index.ts exports. */
export { openReader, type ReaderOptions } from "./open-reader.js";
export { Reader, type ReaderIteratorOptions, type ReaderReadOptions } from "./reader.js";
export { ReaderSnapshot } from "./reader-snapshot.js";
