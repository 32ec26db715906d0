/**
 * The engine options of a Level open, for both adapters (shale-level.ts over `@shale/db` in
 * Node; browser/shale-level.ts over `openInWorker`): Level's and classic-level's names
 * mapped to the engine's, over the user's `shale` object (the named options win).
 *
 * ```
 *   createIfMissing (default true) -> createIfMissing     cacheSize        -> blockCacheSize
 *   errorIfExists   (default false) -> errorIfExists     blockSize        -> blockSize
 *   compression: true | false      -> "snappy" | "none"  writeBufferSize  -> writeBufferSize
 * ```
 */

/** The options both adapters take. */
export interface LevelOpenOptions {
  createIfMissing?: boolean | undefined;
  errorIfExists?: boolean | undefined;
  cacheSize?: number | undefined;
  blockSize?: number | undefined;
  writeBufferSize?: number | undefined;
  compression?: boolean | undefined;
  shale?: object | undefined;
}

/** The engine options `options` name; TypeError for a `shale` or `compression` of a wrong type. */
export function levelEngineOptions(options: LevelOpenOptions): Record<string, unknown> {
  const shale: unknown = options.shale;
  if (shale !== undefined && (typeof shale !== "object" || shale === null))
    throw new TypeError("options.shale must be an object of @shale/db options");
  const out: Record<string, unknown> = { ...shale };
  out.createIfMissing = options.createIfMissing !== false;
  out.errorIfExists = options.errorIfExists === true;
  if (options.cacheSize !== undefined) out.blockCacheSize = options.cacheSize;
  if (options.blockSize !== undefined) out.blockSize = options.blockSize;
  if (options.writeBufferSize !== undefined) out.writeBufferSize = options.writeBufferSize;
  if (options.compression !== undefined) {
    if (typeof options.compression !== "boolean")
      throw new TypeError("options.compression must be a boolean");
    out.compression = options.compression ? "snappy" : "none";
  }
  return out;
}
