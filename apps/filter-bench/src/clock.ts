/** Nanosecond clocks for the bench: elapsed (wall) time or this process's CPU time. */
import type { Clock } from "./flags.js";

/** Returns a function giving a monotonic reading in nanoseconds on `clock`. */
export function makeClock(clock: Clock): () => number {
  if (clock === "cpu") {
    return () => {
      const u = process.cpuUsage();
      return (u.user + u.system) * 1000;
    };
  }
  return () => Number(process.hrtime.bigint());
}
