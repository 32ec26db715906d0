/**
 * Encodings: what the engine's bytes become on the way out, and the `msgpack` encoding.
 *
 * The private API speaks three formats (abstract-level README, "Encodings"): `view`
 * (Uint8Array), `buffer` (Buffer) and `utf8` (string); every other encoding (json, hex,
 * base64, msgpack, custom ones) is transcoded by abstract-level to one of these. Values the
 * engine hands out may be views of its memory (a memtable arena in a SharedArrayBuffer, a
 * cached block, an iterator's reused buffer): `fromView` always returns memory the caller
 * owns, never backed by a SharedArrayBuffer.
 *
 * `msgpack` is MessagePack through msgpackr's pure-JavaScript entry (`msgpackr/pack`: no
 * native addon is loaded), plain maps without msgpackr's record extension, so other
 * MessagePack readers can decode what it writes. Use it by name (`valueEncoding: 'msgpack'`
 * on ShaleLevel and its sublevels) or as the `msgpack` object with any abstract-level db.
 */
import { Packr } from "msgpackr/pack";

const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
const NodeBuffer: typeof Buffer | undefined = (globalThis as { Buffer?: typeof Buffer }).Buffer;

/** A private-API format. */
export type Format = "view" | "buffer" | "utf8";

/**
 * `bytes` (a view of engine memory, valid only now) as a caller-owned value in `format`:
 * a string (utf8), a Buffer (buffer) or a fresh Uint8Array (view).
 */
export function fromView(bytes: Uint8Array, format: string): Uint8Array | string {
  if (format === "utf8") return decoder.decode(bytes);
  if (format === "buffer" && NodeBuffer !== undefined) return NodeBuffer.from(bytes);
  return bytes.slice();
}

const packr = new Packr({ useRecords: false, mapsAsObjects: true });

/** The `msgpack` encoding (a level-transcoder encoding object, format `view`). */
export const msgpack = Object.freeze({
  name: "msgpack",
  format: "view" as const,
  encode(value: unknown): Uint8Array {
    return packr.pack(value);
  },
  decode(bytes: Uint8Array): unknown {
    return packr.unpack(bytes);
  },
});

/** An encoding as abstract-level takes it: a name or an encoding object. */
type EncodingOption = unknown;

/** `'msgpack'` (which abstract-level does not know by name) as the encoding object. */
export function resolveEncoding(encoding: EncodingOption): EncodingOption {
  return encoding === "msgpack" ? msgpack : encoding;
}

/** `options` with `keyEncoding` / `valueEncoding: 'msgpack'` replaced by the object. */
export function withEncodings<T>(options: T): T {
  if (typeof options !== "object" || options === null) return options;
  const o = options as { keyEncoding?: unknown; valueEncoding?: unknown };
  if (o.keyEncoding !== "msgpack" && o.valueEncoding !== "msgpack") return options;
  return {
    ...options,
    keyEncoding: resolveEncoding(o.keyEncoding),
    valueEncoding: resolveEncoding(o.valueEncoding),
  } as T;
}
