/**
 * The vitest binding of the data-driven runner (`./datadriven.ts`): one test per file.
 *
 * ```ts
 * dataDrivenTests(new URL("../testdata/picker", import.meta.url), () => {
 *   let version = Version.empty();            // state shared by the cases of one file
 *   return (c) => { switch (c.cmd) { ... } };
 * });
 * ```
 *
 * `location` is a directory (every `*.txt` in it, sorted, each with a fresh handler from
 * `makeHandler`) or one file. `SHALE_REWRITE=1` regenerates the expected outputs.
 */
import { readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "vitest";
import { type DataDrivenCase, formatMismatches, runDataDrivenFile } from "./datadriven.js";

export type DataDrivenHandler = (c: DataDrivenCase) => string;

/** The data-driven files at `location` (a directory of `*.txt` or one file), sorted. */
export function dataDrivenFiles(location: URL | string): string[] {
  const path = typeof location === "string" ? location : fileURLToPath(location);
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((f) => f.endsWith(".txt"))
    .sort()
    .map((f) => join(path, f));
}

/** Registers one vitest test per data-driven file at `location`. */
export function dataDrivenTests(
  location: URL | string,
  makeHandler: (file: string) => DataDrivenHandler,
): void {
  const files = dataDrivenFiles(location);
  if (files.length === 0) throw new Error(`no data-driven files at ${String(location)}`);
  const dir = files.length === 1 ? basename(files[0]!) : basename(join(files[0]!, ".."));
  describe(`testdata ${dir}`, () => {
    for (const file of files) {
      const name = `${basename(join(file, ".."))}/${basename(file)}`;
      it(name, () => {
        const mismatches = runDataDrivenFile(file, makeHandler(file), { name });
        if (mismatches.length > 0) throw new Error(formatMismatches(mismatches));
      });
    }
  });
}
