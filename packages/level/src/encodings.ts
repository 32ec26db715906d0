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
 * Copies handed out are carved from pooled chunks, as Node's Buffer pool does (and with
 * the sizes of @shale/db's pool for `get`): one ArrayBuffer allocation per 32 KiB of small
 * values instead of one per value — the per-entry ArrayBuffer was most of an iterator's
 * cost. A returned view is the caller's; its `.buffer` may also hold other values handed
 * out (never engine memory), so use `byteOffset`/`byteLength`. Values over 4 KiB get an
 * ArrayBuffer of their own.
 */
const CHUNK = 32 * 1024;
const OWN_BUFFER = CHUNK >>> 3;
let chunk = new ArrayBuffer(CHUNK);
let chunkBytes = new Uint8Array(chunk);
let used = 0;

/** A caller-owned copy of `bytes` (a plain Uint8Array, never SharedArrayBuffer-backed). */
export function copyOut(bytes: Uint8Array): Uint8Array {
  const n = bytes.length;
  if (n > OWN_BUFFER) return bytes.slice();
  if (used + n > CHUNK) {
    chunk = new ArrayBuffer(CHUNK);
    chunkBytes = new Uint8Array(chunk);
    used = 0;
  }
  // A view made with the constructor, not subarray(): no species lookup (~30 % faster).
  const out = new Uint8Array(chunk, used, n);
  chunkBytes.set(bytes, used);
  used += n;
  return out;
}

/** UTF-8 text of `bytes` (any view, shared memory included). */
export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/**
 * `owned` (memory the caller already owns, e.g. the engine's `get`) in `format`, without
 * another copy: itself (view), a Buffer over the same bytes (buffer), or its text (utf8).
 */
export function ownedAs(owned: Uint8Array, format: string | undefined): Uint8Array | string {
  if (format === "utf8") return decoder.decode(owned);
  if (format === "buffer" && NodeBuffer !== undefined)
    return NodeBuffer.from(owned.buffer, owned.byteOffset, owned.byteLength);
  return owned;
}

/**
 * `bytes` (a view of engine memory, valid only now) as a caller-owned value in `format`:
 * a string (utf8), a Buffer (buffer) or a Uint8Array (view).
 */
export function fromView(bytes: Uint8Array, format: string): Uint8Array | string {
  if (format === "utf8") return decoder.decode(bytes);
  return ownedAs(copyOut(bytes), format);
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
