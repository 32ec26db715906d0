/**
 * The memory this process can use, for defaults sized to the machine (the block cache's,
 * default-block-cache.ts): the cgroup limit `process.constrainedMemory()` reports when it is
 * below the machine's memory (a container), else `os.totalmem()`. A browser bundle loads
 * machine-memory.browser.ts instead (package.json `"browser"` field): no `node:os` there.
 */
import { totalmem } from "node:os";

/** Bytes of memory this process can use, or undefined where it is unknown. */
export function machineMemory(): number | undefined {
  const total = totalmem();
  if (!(total > 0)) return undefined;
  // Node >= 19.6; 0 (or undefined on early 20.x) without a limit, 2^63-ish for "max".
  const limit = process.constrainedMemory?.();
  return typeof limit === "number" && limit > 0 && limit < total ? limit : total;
}
