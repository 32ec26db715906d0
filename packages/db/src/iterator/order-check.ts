/**
 * The DB iterator's order invariant (checked in invariants mode): each `next()` lands on a
 * key strictly greater than the one it left, each `prev()` on one strictly smaller. A source
 * out of order, a bad merge of sources or a direction switch that repositions wrongly shows
 * up here as AssertionFailed at the move that broke it, instead of as a wrong answer later.
 */
import { assertInvariant, formatKey } from "@shale/base";

/**
 * Asserts that a move from user key `before` to `after` (undefined: the iterator is no longer
 * valid, which is always fine) went in `direction` (1: next, -1: prev).
 */
export function checkStep(
  order: { compare(a: Uint8Array, b: Uint8Array): number },
  before: Uint8Array,
  after: Uint8Array | undefined,
  direction: 1 | -1,
): void {
  if (after === undefined) return;
  const c = order.compare(after, before);
  if (direction === 1 ? c > 0 : c < 0) return;
  assertInvariant(
    false,
    `DB iterator ${direction === 1 ? "next" : "prev"}() moved from ${formatKey(before)} to ${formatKey(after)}: keys must strictly ${direction === 1 ? "increase" : "decrease"}`,
  );
}
