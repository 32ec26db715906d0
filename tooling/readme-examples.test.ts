/**
 * README examples are code: every package README's fenced ```ts example is compiled and run
 * as an ES module inside that package's directory, against the BUILT package (`dist/`,
 * through the package's own `exports`, as a user would import it).
 *
 * A README without an example must say why with `<!-- no-example: reason -->`.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const dirs = ["packages", "apps"].flatMap((group) =>
  readdirSync(join(root, group), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join(group, d.name)),
);

function examples(readme: string): string[] {
  const out: string[] = [];
  const re = /```ts\n([\s\S]*?)```/g;
  for (let m = re.exec(readme); m !== null; m = re.exec(readme)) out.push(m[1]!);
  return out;
}

describe("README examples", () => {
  for (const dir of dirs) {
    const readme = readFileSync(join(root, dir, "README.md"), "utf8");
    const blocks = examples(readme);
    if (blocks.length === 0) {
      it(`${dir}: README says why it has no example`, () => {
        expect(readme).toMatch(/<!-- no-example: .+ -->/);
      });
      continue;
    }
    blocks.forEach((source, i) => {
      it(`${dir}: example ${i + 1} runs against the built package`, () => {
        const js = ts.transpileModule(source, {
          compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
        }).outputText;
        const file = join(root, dir, `.readme-example-${i}.mjs`);
        writeFileSync(file, js);
        try {
          const r = spawnSync(process.execPath, [file], {
            cwd: join(root, dir),
            encoding: "utf8",
            timeout: 60_000,
          });
          expect(r.stderr + r.stdout, `exit ${r.status}`).not.toMatch(/Error|AssertionError/);
          expect(r.status).toBe(0);
        } finally {
          rmSync(file, { force: true });
        }
      });
    });
  }
});
