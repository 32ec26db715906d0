/**
 * The name of the host a secondary registration records (Node.js, Deno, Bun). A browser
 * bundle loads host.browser.ts instead (package.json `"browser"` field): no `node:os` in the
 * in-memory path.
 */
import { hostname } from "node:os";

export function hostName(): string {
  return hostname();
}
