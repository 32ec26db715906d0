/**
 * @shale/level — shale as an abstract-level 3 database (a drop-in for classic-level, level
 * and @nxtedition/rocksdb). See README.md.
 */
export { msgpack } from "./encodings.js";
export { LEVEL_CODES, ShaleLevelError } from "./errors.js";
export { ShaleIterator, ShaleKeyIterator, ShaleValueIterator } from "./iterator.js";
export {
  ShaleLevel,
  type ShaleLevelOptions,
  ShaleLevelSnapshot,
  ShaleSublevel,
} from "./shale-level.js";
