/**
 * Invariant checks (Pebble's `internal/invariants`): extra assertions that are on in tests
 * (`SHALE_INVARIANTS=1`, set by the shared vitest config) and off in production. Guard
 * expensive checks with `if (invariants) ...` so they cost one predictable branch when off —
 * never a second code path.
 *
 * A failed check is `ShaleError(AssertionFailed)`: an engine bug, kept apart from
 * `Corruption` (damage to stored data) so the one never reads like the other.
 */
import { ShaleError } from "./errors.js";

export const invariants: boolean =
  typeof process !== "undefined" && process.env?.["SHALE_INVARIANTS"] === "1";

/** Throws `ShaleError(AssertionFailed)` when `condition` is false. */
export function assertInvariant(condition: boolean, message: string): asserts condition {
  if (!condition) throw ShaleError.assertionFailed(`invariant violated: ${message}`);
}
