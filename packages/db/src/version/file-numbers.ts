/**
 * The database's file-number counter, in shared memory so that a compaction running in a
 * worker thread can number its output tables itself (it does not know in advance how many
 * it will write) without a round trip to the main thread — RocksDB's atomic
 * `next_file_number_`.
 *
 * ```
 * SharedArrayBuffer (8 bytes):  | next file number: BigInt64, native endianness |
 * ```
 * In memory only: the MANIFEST persists the value (`NextFileNumber`) with every edit, and
 * recovery raises it above every number found in the directory, so a number taken by a
 * worker whose output never reached an edit is never reused.
 */
export class FileNumberCounter {
  /** Structured-clone friendly: send it to a worker and wrap it there. */
  readonly buffer: SharedArrayBuffer;
  private readonly cell: BigInt64Array;

  constructor(buffer?: SharedArrayBuffer) {
    this.buffer = buffer ?? new SharedArrayBuffer(8);
    this.cell = new BigInt64Array(this.buffer);
  }

  /** The number the next `allocate` returns. */
  get next(): number {
    return Number(Atomics.load(this.cell, 0));
  }

  set next(n: number) {
    Atomics.store(this.cell, 0, BigInt(n));
  }

  /** Takes a fresh number (atomically: safe from any thread). */
  allocate(): number {
    return Number(Atomics.add(this.cell, 0, 1n));
  }

  /** Makes sure `next` is above `n`. */
  markUsed(n: number): void {
    const want = BigInt(n + 1);
    let cur = Atomics.load(this.cell, 0);
    while (cur < want) {
      const seen = Atomics.compareExchange(this.cell, 0, cur, want);
      if (seen === cur) return;
      cur = seen;
    }
  }
}
