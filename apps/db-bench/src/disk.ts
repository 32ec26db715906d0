/**
 * Disk usage of an engine's directory: the sum of its files' sizes (recursively), as `du
 * --apparent-size` would count them. Undefined when the directory does not exist (an
 * in-memory engine). The engine may still be deleting files in the background (an obsolete
 * log or table): a file gone between listing and `stat` counts as 0.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export function directoryBytes(dir: string): number | undefined {
  if (!existsSync(dir)) return undefined;
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += directoryBytes(path) ?? 0;
    else if (entry.isFile()) total += statSync(path, { throwIfNoEntry: false })?.size ?? 0;
  }
  return total;
}

/** The peak resident set size of this process so far, in bytes. */
export function peakRssBytes(): number {
  return process.resourceUsage().maxRSS * 1024;
}
