/**
 * The restart array at the end of a key/value block (format in `block-builder.ts`): fixed32
 * little-endian entry offsets, then fixed32 numRestarts.
 */
import { fixed32At } from "@shale/base";

/** The offset of restart point `i` of the block `data` whose restart array is at `restartsOffset`. */
export function restartAt(data: Uint8Array, restartsOffset: number, i: number): number {
  const p = restartsOffset + 4 * i;
  return fixed32At(data, p);
}
