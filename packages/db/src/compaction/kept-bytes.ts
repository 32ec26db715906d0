/**
 * KeptBytes: copies of byte strings that must outlive a move of the iterator they were read
 * from, packed into one buffer reused from one group of copies to the next (no allocation
 * per copy once the buffer has grown to the largest group).
 *
 * The compaction iterator keeps a key's merge operands (and the base under them) across
 * moves of its input, whose values are views valid until the input moves when the input
 * reuses its memory (`isValuePinned()` false: @shale/sstable's scan buffers). It copies
 * them here, and clears the copies when it starts the next group.
 *
 * ```
 *   keep(a) keep(b)   buffer: [a a a b b . . .]   views a, b
 *   keep(c) (no room) a new buffer twice the size: [c c c c . . . . . .]; a and b stay
 *                     valid in the old buffer, which is never written again
 *   clear()           the next keep writes at 0: every view handed out before is stale
 * ```
 *
 * Not thread-safe (one per compaction iterator).
 */

export class KeptBytes {
  private buf = new Uint8Array(4096);
  private used = 0;

  /** A copy of `bytes`, valid until the next `clear()`. */
  keep(bytes: Uint8Array): Uint8Array {
    const n = bytes.length;
    let buf = this.buf;
    if (this.used + n > buf.length) {
      buf = new Uint8Array(Math.max(n, buf.length * 2));
      this.buf = buf;
      this.used = 0;
    }
    const at = this.used;
    buf.set(bytes, at);
    this.used = at + n;
    return new Uint8Array(buf.buffer, at, n);
  }

  /** Ends the current group: the copies handed out so far may be overwritten from now on. */
  clear(): void {
    this.used = 0;
  }
}
