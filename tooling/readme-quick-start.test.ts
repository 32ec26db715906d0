/**
 * Each component package's README opens with an example of its common use in 10 lines of
 * code or fewer (not counting imports, blank lines and comments): the first ```ts block.
 * (That it runs as written is readme-examples.test.ts's job.) The engines (`@shale/db`,
 * `shale`, `@shale/level`) are assembled from these and are not held to it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const COMPONENTS = [
  "base",
  "wal",
  "memtable",
  "bloom",
  "block-cache",
  "merging-iterator",
  "range-tombstones",
  "sstable",
];
const MAX_LINES = 10;

/** Lines of code of an example: not imports, not blank, not comment-only. */
export function exampleLines(source: string): number {
  let n = 0;
  let inImport = false;
  for (const raw of source.split("\n")) {
    const t = raw.trim();
    if (inImport) {
      if (t.includes(" from ")) inImport = false;
      continue;
    }
    if (t.startsWith("import ")) {
      if (!t.includes(" from ") && !/^import\s+["']/.test(t)) inImport = true;
      continue;
    }
    if (t === "" || t.startsWith("//")) continue;
    n++;
  }
  return n;
}

describe("README quick starts", () => {
  it("counts lines as documented", () => {
    const src =
      'import {\n  a,\n} from "x";\nimport b from "y";\n\n// note\nconst c = a + b;\nf(c);\n';
    expect(exampleLines(src)).toBe(2);
  });

  for (const name of COMPONENTS) {
    it(`packages/${name}: the first example is ${MAX_LINES} lines or fewer`, () => {
      const readme = readFileSync(join(root, "packages", name, "README.md"), "utf8");
      const first = /```ts\n([\s\S]*?)```/.exec(readme);
      expect(first, "a ```ts example").not.toBeNull();
      expect(exampleLines(first![1]!)).toBeLessThanOrEqual(MAX_LINES);
    });
  }
});
