/**
 * The CURRENT file: one line, the name of the MANIFEST in use ("MANIFEST-000005\n"),
 * replaced by write-temp-then-rename (version-set.ts) so a reader sees the old name or the
 * new one. The one reader of it: recovery, secondaries, listing the column families.
 */
import { baseName, bytesToString, type FileSystem, ShaleError } from "@shale/base";
import { currentFileName, FileType, manifestFileName, parseFileName } from "../core/filenames.js";

/** The MANIFEST number CURRENT's text names; Corruption for anything else. */
export function parseCurrent(text: string): number {
  const parsed = text.endsWith("\n") ? parseFileName(text.slice(0, -1)) : undefined;
  if (parsed === undefined || parsed.type !== FileType.Manifest)
    throw ShaleError.corruption(
      `CURRENT does not name a MANIFEST: ${JSON.stringify(text)}`,
      "CURRENT",
      0,
    );
  return parsed.number;
}

/**
 * The MANIFEST number the CURRENT file of `dir` names. Reading a missing CURRENT throws what
 * the file system throws; `requireManifest`: also Corruption when that MANIFEST is missing.
 */
export function readCurrent(fs: FileSystem, dir: string, requireManifest = false): number {
  const n = parseCurrent(bytesToString(fs.readFile(currentFileName(dir))));
  if (requireManifest && !fs.exists(manifestFileName(dir, n)))
    throw ShaleError.corruption(
      `CURRENT names a missing ${baseName(manifestFileName(dir, n))}`,
      "CURRENT",
      0,
    );
  return n;
}
