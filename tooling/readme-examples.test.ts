/**
 * README examples are code: every package README's fenced ```ts example is compiled and run
 * as an ES module inside that package's directory, against the BUILT package (`dist/`,
 * through the package's own `exports`, as a user would import it).
 *
 * A README without an example must say why with `<!-- no-example: reason -->`.
 *
 * `<!-- example-needs: nats-server -->` on the line before a block runs it beside a JetStream
 * server of its own (its URL in NATS_URL), or skips it with the reason printed where
 * nats-server is missing.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import {
  natsMissing,
  startNatsServer,
} from "../packages/replication/src/nats-server.test-support.js";

const root = join(import.meta.dirname, "..");
const dirs = ["packages", "apps"].flatMap((group) =>
  readdirSync(join(root, group), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join(group, d.name)),
);

interface Example {
  readonly source: string;
  /** A server the example needs beside it (`<!-- example-needs: ... -->`). */
  readonly needs: string | undefined;
}

function examples(readme: string): Example[] {
  const out: Example[] = [];
  const re = /(?:<!-- example-needs: ([\w-]+) -->\n)?```ts\n([\s\S]*?)```/g;
  for (let m = re.exec(readme); m !== null; m = re.exec(readme))
    out.push({ source: m[2]!, needs: m[1] });
  return out;
}

/** Why nats-server cannot run here, or undefined. */
const noNats = natsMissing();

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
    blocks.forEach(({ source, needs }, i) => {
      const name = `${dir}: example ${i + 1} runs against the built package`;
      if (needs !== undefined && needs !== "nats-server") {
        it(name, () => expect.fail(`unknown example-needs: ${needs}`));
        return;
      }
      if (needs !== undefined && noNats !== undefined) {
        console.log(`${dir} example ${i + 1}: skipped — ${noNats}`);
        it.skip(name, () => {});
        return;
      }
      it(name, async () => {
        const server = needs === undefined ? undefined : await startNatsServer();
        const env = server === undefined ? process.env : { ...process.env, NATS_URL: server.url };
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
            env,
          });
          expect(r.stderr + r.stdout, `exit ${r.status}`).not.toMatch(/Error|AssertionError/);
          expect(r.status).toBe(0);
        } finally {
          rmSync(file, { force: true });
          await server?.stop();
        }
      }, 90_000);
    });
  }
});
