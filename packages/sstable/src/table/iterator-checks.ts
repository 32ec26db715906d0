/**
 * What a table iterator checks in invariants mode (off: the iterator holds `undefined` and
 * pays one branch per move, never a second code path):
 *
 * - Order: each `next()` lands on an internal key strictly greater than the one it left, each
 *   `prev()` on one strictly smaller. The bytes passed their checksum, so keys out of order
 *   mean the writer (or a block decoder) is wrong: AssertionFailed naming file and block,
 *   not Corruption.
 * - Released memory: the iterator reads private copies of its data blocks and overwrites
 *   them (0xcc) when it closes, so a key or value view used after `close()` reads garbage
 *   instead of the right bytes (which would hide the bug until a block is really reused).
 *   An iterator that reuses its memory (`reuseScanBuffers`) overwrites the copy of a block
 *   as soon as it moves to another one, as its reused memory may be: a value kept across
 *   that move reads garbage in tests at once, not only when a region is refilled.
 */
import { assertInvariant, formatInternalKey } from "@shale/base";
import type { Block } from "../block/block.js";
import type { KeyOrder } from "../block/key-order.js";

export class TableIteratorChecks {
  private readonly order: KeyOrder;
  private readonly fileName: string | undefined;
  private readonly copies: Block[] = [];
  private before = new Uint8Array(64);
  private beforeLength = 0;
  /** The iterator reuses its memory: a copy is mangled when the next block is kept. */
  private readonly reuse: boolean;

  constructor(order: KeyOrder, fileName: string | undefined, reuse = false) {
    this.order = order;
    this.fileName = fileName;
    this.reuse = reuse;
  }

  /**
   * The block the iterator should read: a private copy of `block`, mangled at `close()` (or,
   * reusing, when the iterator keeps its next block).
   */
  keep(block: Block): Block {
    if (this.reuse) this.mangle();
    const copy = block.privateCopy();
    this.copies.push(copy);
    return copy;
  }

  /** Remembers the current key before a move. */
  remember(key: Uint8Array): void {
    if (key.length > this.before.length) this.before = new Uint8Array(key.length * 2);
    this.before.set(key);
    this.beforeLength = key.length;
  }

  /** Checks the key after a move in `direction` (1: next, -1: prev) from the remembered one. */
  check(key: Uint8Array, direction: 1 | -1, blockOffset: number): void {
    const before = this.before.subarray(0, this.beforeLength);
    const c = this.order.compare(key, before);
    if (direction === 1 ? c > 0 : c < 0) return;
    assertInvariant(
      false,
      `table iterator ${direction === 1 ? "next" : "prev"}() moved from ${formatInternalKey(before)} to ${formatInternalKey(key)} in ${this.fileName ?? "a table"} (data block @ ${blockOffset}): keys must strictly ${direction === 1 ? "increase" : "decrease"}`,
    );
  }

  /** Overwrites every block copy the iterator read. */
  mangle(): void {
    for (const b of this.copies) b.mangle();
    this.copies.length = 0;
  }
}
