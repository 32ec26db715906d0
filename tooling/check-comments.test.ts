/**
 * check-comments (tooling/scripts/check-comments.mjs): what comments and READMEs name is
 * true of the repository — paths exist, no build machine's path, no issue numbers.
 * check-comments: ignore-file (the cases below plant findings in strings)
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkComments } from "./scripts/check-comments.mjs";

const WORD = ["iss", "ue"].join("");
const WORD_CAP = `I${WORD.slice(1)}`;
const MACHINE = `/${["wo", "rk"].join("")}/`;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function repo(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "shale-comments-"));
  dirs.push(dir);
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
  execFileSync("git", ["init", "-q"], { cwd: dir });
  return dir;
}

describe("check-comments", () => {
  it("finds nothing in this repository", () => {
    expect(checkComments()).toEqual([]);
  });

  it("names each planted finding, and only those", () => {
    const dir = repo({
      // The planted words are assembled here so this file itself names no issue number or
      // machine path.
      "pkg/src/a.ts": [
        "/**",
        " * Reads b.ts and pkg/src/b.ts and ../src/b.ts (all exist); see gone/c.ts.",
        ` * Fixed for ${WORD} 12. Built on ${MACHINE}main; LevelDB's doc/log_format.md is theirs.`,
        " */",
        `const s = "${WORD} 7 in a string is code, not a comment";`,
        "// a line comment naming missing.ts",
        "export const a = s;",
      ].join("\n"),
      "pkg/src/b.ts": "export const b = 1;\n",
      "README.md": `Run \`npx tsx example.mts\`; read docs/x.md (${WORD_CAP} 3).\n`,
    });
    const found = checkComments(dir).map((f: { at: string; what: string }) => `${f.at} ${f.what}`);
    expect(found.sort()).toEqual(
      [
        `README.md:1 names "${WORD_CAP} 3"`,
        "README.md:1 names docs/x.md, which does not exist",
        `pkg/src/a.ts:3 names "${WORD} 12"`,
        `pkg/src/a.ts:3 names a machine path "${MACHINE}"`,
        "pkg/src/a.ts:2 names gone/c.ts, which does not exist",
        "pkg/src/a.ts:6 names missing.ts, which does not exist",
      ].sort(),
    );
  });
});
