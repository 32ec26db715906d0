/**
 * Internal keys: a user key followed by an 8-byte trailer.
 *
 * ```
 * +-------------------+-----------------------------------------------+
 * | user key (n B)    | trailer: fixed64 LE  = (seq << 8) | kind      |
 * +-------------------+-----------------------------------------------+
 *                       byte 0 = kind, bytes 1..7 = seq (56 bits)
 * ```
 *
 * Internal keys sort by user key ascending (user comparator), then by trailer descending —
 * that is, newest seq first, and for the same seq, higher kind first.
 *
 * Sequence numbers are JS numbers in 0..2^53-1 (no BigInt): the trailer is handled as two
 * 32-bit words, `lo = (seq mod 2^24) << 8 | kind` and `hi = floor(seq / 2^24)`.
 *
 * Example: user key "a", seq 12, kind Value (1) ->
 * `61 01 0c 00 00 00 00 00 00` and `toString` gives `a#12,SET`.
 */
import { comparePrefixes, formatKey } from "./bytes.js";
import { getFixed32, putFixed32 } from "./coding.js";
import { bytewiseComparator, type Comparator } from "./comparator.js";
import { ShaleError } from "./errors.js";

/**
 * Entry kinds with RocksDB's numeric values.
 * DO NOT CHANGE THESE VALUES: they are part of the WAL, memtable and table formats.
 */
export const ValueKind = Object.freeze({
  Deletion: 0x0,
  Value: 0x1,
  Merge: 0x2,
  SingleDeletion: 0x7,
  RangeDeletion: 0xf,
  /**
   * RocksDB's kTypeBlobIndex: the value is a blob index (a reference into a `.blob` file of
   * RocksDB's integrated BlobDB), never the user's value itself. Written by RocksDB's flush
   * and compaction with `enable_blob_files`; read and carried through by shale.
   */
  BlobIndex: 0x11,
} as const);

export type ValueKind = (typeof ValueKind)[keyof typeof ValueKind];

/**
 * Kind used in seek keys: the largest kind, so a seek key sorts first among equal seqs
 * (a seek to `k#s` must land on `k#s,BLOB_INDEX` too).
 */
export const KIND_FOR_SEEK: ValueKind = ValueKind.BlobIndex;

/** Largest sequence number: 2^53 - 1 (fits the 56-bit field, and a JS number exactly). */
export const MAX_SEQ = Number.MAX_SAFE_INTEGER;

export const TRAILER_SIZE = 8;

const TWO_24 = 16777216;

const KIND_NAMES: Record<number, string> = {
  [ValueKind.Deletion]: "DEL",
  [ValueKind.Value]: "SET",
  [ValueKind.Merge]: "MERGE",
  [ValueKind.SingleDeletion]: "SINGLEDEL",
  [ValueKind.RangeDeletion]: "RANGEDEL",
  [ValueKind.BlobIndex]: "BLOB_INDEX",
};

/** True for the kinds defined above. */
export function isValueKind(kind: number): kind is ValueKind {
  return kind === 0 || kind === 1 || kind === 2 || kind === 7 || kind === 0xf || kind === 0x11;
}

/** "SET", "DEL", ... for a kind. */
export function kindName(kind: number): string {
  return KIND_NAMES[kind] ?? `KIND(${kind})`;
}

/** Writes the 8-byte trailer for (seq, kind) at `pos`; returns `pos + 8`. */
export function putTrailer(dst: Uint8Array, pos: number, seq: number, kind: number): number {
  const hi = Math.floor(seq / TWO_24);
  const lo = (seq - hi * TWO_24) * 256 + kind;
  putFixed32(dst, pos, lo);
  return putFixed32(dst, pos + 4, hi);
}

/**
 * The seq of the trailer at `pos`. Decoded in line, without a call to `getFixed32`: every
 * step of a scan reads one, and a call costs more than the decoding in code not yet
 * compiled (a first scan's).
 */
export function trailerSeq(src: Uint8Array, pos: number): number {
  const high =
    (src[pos + 4]! | (src[pos + 5]! << 8) | (src[pos + 6]! << 16)) + src[pos + 7]! * 0x1000000;
  return high * TWO_24 + (src[pos + 1]! | (src[pos + 2]! << 8) | (src[pos + 3]! << 16));
}

/** The kind of the trailer at `pos`. */
export function trailerKind(src: Uint8Array, pos: number): number {
  return src[pos]!;
}

/** Builds a fresh internal key (allocates; fine off the hot path). */
export function makeInternalKey(userKey: Uint8Array, seq: number, kind: number): Uint8Array {
  if (!(seq >= 0 && seq <= MAX_SEQ && Number.isInteger(seq))) {
    throw ShaleError.invalidArgument(`sequence number out of range: ${seq}`);
  }
  const out = new Uint8Array(userKey.length + TRAILER_SIZE);
  out.set(userKey, 0);
  putTrailer(out, userKey.length, seq, kind);
  return out;
}

/** Writes `userKey ‖ trailer` into `dst` at `pos`; returns the end position. */
export function writeInternalKey(
  dst: Uint8Array,
  pos: number,
  userKey: Uint8Array,
  seq: number,
  kind: number,
): number {
  dst.set(userKey, pos);
  return putTrailer(dst, pos + userKey.length, seq, kind);
}

function checkLength(ikey: Uint8Array): void {
  if (ikey.length < TRAILER_SIZE) {
    throw ShaleError.corruption(`internal key shorter than ${TRAILER_SIZE} bytes (${ikey.length})`);
  }
}

/** A view of the user key part. */
export function userKeyOf(ikey: Uint8Array): Uint8Array {
  checkLength(ikey);
  return ikey.subarray(0, ikey.length - TRAILER_SIZE);
}

/** The seq of an internal key. */
export function seqOf(ikey: Uint8Array): number {
  checkLength(ikey);
  return trailerSeq(ikey, ikey.length - TRAILER_SIZE);
}

/** The kind of an internal key. */
export function kindOf(ikey: Uint8Array): number {
  checkLength(ikey);
  return ikey[ikey.length - TRAILER_SIZE]!;
}

export interface ParsedInternalKey {
  /** A view into the internal key. */
  userKey: Uint8Array;
  seq: number;
  kind: ValueKind;
}

/** Splits an internal key; throws Corruption for a short key or an unknown kind. */
export function parseInternalKey(ikey: Uint8Array): ParsedInternalKey {
  checkLength(ikey);
  const t = ikey.length - TRAILER_SIZE;
  const kind = ikey[t]!;
  if (!isValueKind(kind)) throw ShaleError.corruption(`unknown value kind ${kind}`);
  return { userKey: ikey.subarray(0, t), seq: trailerSeq(ikey, t), kind };
}

/**
 * Compares the trailers of two internal keys: DEScending (newer first). Negative when `a`'s
 * trailer is larger. REQUIRES: both have >= 8 bytes.
 */
export function compareTrailers(a: Uint8Array, b: Uint8Array): number {
  const at = a.length - TRAILER_SIZE;
  const bt = b.length - TRAILER_SIZE;
  const ahi = getFixed32(a, at + 4);
  const bhi = getFixed32(b, bt + 4);
  if (ahi !== bhi) return bhi - ahi;
  return getFixed32(b, bt) - getFixed32(a, at);
}

/** `a#12,SET` — deterministic, for tests and messages. */
export function formatInternalKey(ikey: Uint8Array): string {
  if (ikey.length < TRAILER_SIZE) return `<invalid internal key ${formatKey(ikey)}>`;
  const t = ikey.length - TRAILER_SIZE;
  return `${formatKey(ikey.subarray(0, t))}#${trailerSeq(ikey, t)},${kindName(ikey[t]!)}`;
}

/**
 * Orders internal keys: user key ascending by the user comparator, then trailer descending.
 * Its `name` is the user comparator's; tables and the MANIFEST record that.
 */
export class InternalKeyComparator {
  readonly user: Comparator;
  readonly name: string;
  /** True when the user order is plain bytewise: compares without creating views. */
  private readonly bytewise: boolean;

  constructor(user: Comparator) {
    this.user = user;
    this.name = user.name;
    this.bytewise = user === bytewiseComparator;
  }

  /** REQUIRES: both keys have an 8-byte trailer. */
  compare(a: Uint8Array, b: Uint8Array): number {
    const at = a.length - TRAILER_SIZE;
    const bt = b.length - TRAILER_SIZE;
    const r = this.bytewise
      ? comparePrefixes(a, at, b, bt)
      : this.user.compare(a.subarray(0, at), b.subarray(0, bt));
    if (r !== 0) return r;
    return compareTrailers(a, b);
  }

  /** Compares a user key with the user-key part of an internal key. */
  compareUserKeyTo(userKey: Uint8Array, ikey: Uint8Array): number {
    const n = ikey.length - TRAILER_SIZE;
    if (this.bytewise) return comparePrefixes(userKey, userKey.length, ikey, n);
    return this.user.compare(userKey, ikey.subarray(0, n));
  }

  /** Compares the user-key parts only. */
  compareUserKeys(a: Uint8Array, b: Uint8Array): number {
    if (this.bytewise)
      return comparePrefixes(a, a.length - TRAILER_SIZE, b, b.length - TRAILER_SIZE);
    return this.user.compare(
      a.subarray(0, a.length - TRAILER_SIZE),
      b.subarray(0, b.length - TRAILER_SIZE),
    );
  }

  /**
   * A short internal key s with a <= s < b, for index blocks. Shortens the user key when it
   * can, then appends the largest trailer (MAX_SEQ, KIND_FOR_SEEK) so s sorts before every
   * real entry of its user key.
   */
  findShortestSeparator(a: Uint8Array, b: Uint8Array): Uint8Array {
    const ua = a.subarray(0, a.length - TRAILER_SIZE);
    const ub = b.subarray(0, b.length - TRAILER_SIZE);
    const sep = this.user.findShortestSeparator(ua, ub);
    if (sep.length < ua.length && this.user.compare(ua, sep) < 0) {
      return makeInternalKey(sep, MAX_SEQ, KIND_FOR_SEEK);
    }
    return a;
  }

  /** A short internal key s >= a. */
  findShortSuccessor(a: Uint8Array): Uint8Array {
    const ua = a.subarray(0, a.length - TRAILER_SIZE);
    const succ = this.user.findShortSuccessor(ua);
    if (succ.length < ua.length && this.user.compare(ua, succ) < 0) {
      return makeInternalKey(succ, MAX_SEQ, KIND_FOR_SEEK);
    }
    return a;
  }
}
