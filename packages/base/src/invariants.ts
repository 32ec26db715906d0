/**
 * Invariant checks: extra assertions that are on in tests (`SHALE_INVARIANTS=1`, set by the
 * shared vitest config) and off in production. Guard expensive checks with
 * `if (invariants) ...` so they cost one predictable branch when off.
 */
import { ShaleError } from "./errors.js";

export const invariants: boolean =
  typeof process !== "undefined" && process.env?.["SHALE_INVARIANTS"] === "1";

/** Throws a Corruption error (an engine bug or damaged state) when `condition` is false. */
export function assertInvariant(condition: boolean, message: string): asserts condition {
  if (!condition) throw ShaleError.corruption(`invariant violated: ${message}`);
}
