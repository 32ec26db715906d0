/**
 * What a browser bundle loads instead of host.ts (package.json `"browser"` field): no
 * `node:os`. Secondaries need a NodeFileSystem, which a browser bundle cannot construct, so
 * this name is never written; it is a constant rather than a throw because the primary's
 * file deletion asks for it only when registrations exist.
 */
export function hostName(): string {
  return "browser";
}
