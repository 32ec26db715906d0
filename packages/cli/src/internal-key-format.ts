/** Internal keys (`user key ‖ seq<<8|kind`) as the file tools print them. */
import { kindName, TRAILER_SIZE, trailerKind, trailerSeq } from "@shale/base";
import { formatBytes, jsonBytes } from "./bytes-format.js";
import type { CommandContext } from "./context.js";

/** `key @ seq : KIND` (or the raw bytes escaped, for a key shorter than its trailer). */
export function internalKeyString(ctx: CommandContext, ikey: Uint8Array): string {
  if (ikey.length < TRAILER_SIZE) return formatBytes(ikey, "hex");
  const n = ikey.length - TRAILER_SIZE;
  return `${formatBytes(ikey.subarray(0, n), ctx.keyEncoding)} @ ${trailerSeq(ikey, n)} : ${kindName(trailerKind(ikey, n))}`;
}

/** `{ key | keyHex, seq, kind }`. */
export function internalKeyFields(ctx: CommandContext, ikey: Uint8Array): Record<string, unknown> {
  if (ikey.length < TRAILER_SIZE) return jsonBytes("raw", ikey, "hex");
  const n = ikey.length - TRAILER_SIZE;
  return {
    ...jsonBytes("key", ikey.subarray(0, n), ctx.keyEncoding),
    seq: trailerSeq(ikey, n),
    kind: kindName(trailerKind(ikey, n)),
  };
}
