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

export const invariants: boolean = envFlag("SHALE_INVARIANTS");

/**
 * True when the environment variable `name` is "1", read so that it never needs (or prompts
 * for) a permission and never throws: in Deno only when access to it is already granted
 * (`Deno.permissions.querySync`; a plain `process.env` read throws NotCapable without
 * `--allow-env`), in a browser never (no `process`). Only `globalThis` is touched.
 */
function envFlag(name: string): boolean {
  const g = globalThis as {
    Deno?: {
      permissions?: { querySync?(d: { name: "env"; variable: string }): { state: string } };
    };
    process?: { env?: Record<string, string | undefined> };
  };
  try {
    if (g.Deno !== undefined) {
      const status = g.Deno.permissions?.querySync?.({ name: "env", variable: name });
      if (status?.state !== "granted") return false;
    }
    return g.process?.env?.[name] === "1";
  } catch {
    return false;
  }
}

/** Throws `ShaleError(AssertionFailed)` when `condition` is false. */
export function assertInvariant(condition: boolean, message: string): asserts condition {
  if (!condition) throw ShaleError.assertionFailed(`invariant violated: ${message}`);
}
