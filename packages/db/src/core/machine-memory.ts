/**
 * The memory this process can use, for defaults sized to the machine (the block cache's,
 * default-block-cache.ts): the cgroup limit `process.constrainedMemory()` reports when it is
 * below the machine's memory (a container), else `os.totalmem()`. A browser bundle loads
 * machine-memory.browser.ts instead (package.json `"browser"` field): no `node:os` there.
 *
 * Never throws and never asks for a permission: under Deno, `os.totalmem()` needs
 * `--allow-sys` (without it, it throws NotCapable, or prompts at a terminal), so it is read
 * only when that permission is already granted; otherwise the memory is unknown.
 */
import { totalmem } from "node:os";

interface DenoPermissions {
  querySync?(d: { name: "sys"; kind: "systemMemoryInfo" }): { state: string };
}

/** Whether reading the memory needs no prompt: under Deno, only once `sys` access to it is granted. */
function readable(): boolean {
  const deno = (globalThis as { Deno?: { permissions?: DenoPermissions } }).Deno;
  if (deno === undefined) return true;
  const status = deno.permissions?.querySync?.({ name: "sys", kind: "systemMemoryInfo" });
  return status?.state === "granted";
}

/** Bytes of memory this process can use, or undefined where it is unknown. */
export function machineMemory(): number | undefined {
  try {
    if (!readable()) return undefined;
    const total = totalmem();
    if (!(total > 0)) return undefined;
    // Node >= 19.6; 0 (or undefined on early 20.x) without a limit, 2^63-ish for "max".
    const limit = process.constrainedMemory?.();
    return typeof limit === "number" && limit > 0 && limit < total ? limit : total;
  } catch {
    return undefined;
  }
}
