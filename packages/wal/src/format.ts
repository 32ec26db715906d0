/**
 * Constants of the log format (drawn in full at the top of writer.ts and in
 * docs/formats/log.md). Everything here is part of the file format: do not change.
 */

/** Logs are a sequence of blocks of this many bytes; only the last one may be shorter. */
export const BLOCK_SIZE = 32768;

/** fixed32 masked checksum ‖ fixed16 length ‖ u8 type. */
export const HEADER_SIZE = 7;

/** The largest payload one fragment can carry (a whole block minus its header). */
export const MAX_FRAGMENT_LENGTH = BLOCK_SIZE - HEADER_SIZE;

/**
 * Fragment types, stored in the last byte of the header. Part of the file format: do not
 * change these values.
 */
export const RecordType = Object.freeze({
  /** Never written as a header: zero bytes are padding or a zeroed (damaged) region. */
  Zero: 0,
  /** A whole record in one fragment. */
  Full: 1,
  /** The first fragment of a record that continues in the next block(s). */
  First: 2,
  /** A fragment that is neither the first nor the last of its record. */
  Middle: 3,
  /** The last fragment of a record. */
  Last: 4,
} as const);

export type RecordType = (typeof RecordType)[keyof typeof RecordType];

/**
 * Types at or above this value are reserved for records a reader may ignore: a reader that
 * does not know such a type skips the fragment silently.
 */
export const FIRST_IGNORABLE_TYPE = 128;
