/**
 * What a browser bundle loads instead of machine-memory.ts (package.json `"browser"` field):
 * a page cannot learn the machine's memory (`navigator.deviceMemory` is coarse, capped at
 * 8 GiB and missing outside Chromium), so defaults sized to the machine take their minimum.
 */
export function machineMemory(): number | undefined {
  return undefined;
}
