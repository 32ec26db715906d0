/**
 * The fragmented form of a list of range tombstones (drawn in fragmenter.ts), shared
 * read-only by a list, its iterators and derived lists. Its own file so that the fragmenter
 * and the code it calls (pack-keys.ts) both import it without importing each other.
 */
export interface FragmentParts {
  readonly starts: readonly Uint8Array[];
  readonly ends: readonly Uint8Array[];
  /** numFragments + 1 offsets into `seqs`. */
  readonly seqOffsets: Uint32Array;
  /** Every fragment's stack, newest first, back to back. */
  readonly seqs: Float64Array;
}
