/** Path normalisation for the in-memory file systems. Internal to the package. */

/**
 * @internal Normalises a path: collapses "//", drops "." segments and trailing "/", resolves
 * "..". Absolute paths keep their leading "/"; "." and "" both become "".
 */
export function normalizePath(path: string): string {
  const absolute = path.startsWith("/");
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
      continue;
    }
    out.push(part);
  }
  const joined = out.join("/");
  return absolute ? `/${joined}` : joined;
}
