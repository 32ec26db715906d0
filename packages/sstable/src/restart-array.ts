/**
 * The restart array at the end of a key/value block (format in `block-builder.ts`): fixed32
 * little-endian entry offsets, then fixed32 numRestarts.
 */

/** The offset of restart point `i` of the block `data` whose restart array is at `restartsOffset`. */
export function restartAt(data: Uint8Array, restartsOffset: number, i: number): number {
  const p = restartsOffset + 4 * i;
  return (data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16) | (data[p + 3]! << 24)) >>> 0;
}
