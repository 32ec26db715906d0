/**
 * The options `DB.openAsSecondary` takes beyond the open options (options.ts).
 */
import { ShaleError } from "@shale/base";
import type { DbOptions } from "../core/options.js";

export interface SecondaryOptions {
  /**
   * How long the primary keeps the files this secondary reads after its last sign of life
   * (the grace period, ms): the registration is renewed every third of it from a timer
   * (unref'd) and at every catch-up; a secondary that stops (killed, hung) stops pinning
   * files once it ends; on the same host a dead process stops at once. Default: 60000.
   */
  secondaryLeaseMs?: number;
}

/** Takes the secondary's own options out of `options`; the rest are the open options. */
export function resolveSecondaryOptions(options: (DbOptions & SecondaryOptions) | undefined): {
  leaseMs: number;
  rest: DbOptions;
} {
  if (options === undefined) return { leaseMs: 60_000, rest: {} };
  if (typeof options !== "object" || options === null)
    throw new TypeError("options must be an object");
  const { secondaryLeaseMs, ...rest } = options;
  if (secondaryLeaseMs === undefined) return { leaseMs: 60_000, rest };
  if (typeof secondaryLeaseMs !== "number")
    throw new TypeError("options.secondaryLeaseMs must be a number");
  if (
    !Number.isInteger(secondaryLeaseMs) ||
    secondaryLeaseMs < 30 ||
    secondaryLeaseMs > 2 ** 31 - 1
  )
    throw ShaleError.invalidArgument(
      `options.secondaryLeaseMs must be an integer in [30, 2^31-1]; got ${secondaryLeaseMs}`,
    );
  return { leaseMs: secondaryLeaseMs, rest };
}
