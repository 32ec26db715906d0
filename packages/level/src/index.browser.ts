/**
 * @shale/level in a browser bundle (the package's `browser` entry): ShaleLevel over a
 * shale database on OPFS in a worker, a drop-in for browser-level. See README.md.
 */
export { ShaleLevel, type ShaleLevelOptions } from "./browser/shale-level.js";
export { msgpack } from "./encodings.js";
export { LEVEL_CODES, ShaleLevelError } from "./errors.js";
export { ShaleSublevel } from "./sublevel.js";
