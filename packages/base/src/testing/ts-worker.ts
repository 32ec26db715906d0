/**
 * `tsWorker`: a worker_threads Worker for tests that imports the workspace's TypeScript
 * sources with no build. Its module hooks resolve workspace packages through their "source"
 * export condition (and `./x.js` in a .ts file to `./x.ts`) and transpile .ts with the
 * repository's `typescript` (a root devDependency). The worker's code is `body`, run after
 * the hooks are registered, with `parentPort` and `workerData` in scope.
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

const TS_HOOKS = `
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from ${JSON.stringify(pathToFileURL(createRequire(import.meta.url).resolve("typescript")).href)};
export async function resolve(specifier, context, nextResolve) {
  const ctx = { ...context, conditions: [...context.conditions, "source"] };
  try {
    return await nextResolve(specifier, ctx);
  } catch (error) {
    if (specifier.endsWith(".js") && context.parentURL?.endsWith(".ts")) {
      return nextResolve(specifier.slice(0, -3) + ".ts", ctx);
    }
    throw error;
  }
}
export async function load(url, context, nextLoad) {
  if (!url.endsWith(".ts")) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const { outputText } = ts.transpileModule(readFileSync(file, "utf8"), {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
  });
  return { format: "module", source: outputText, shortCircuit: true };
}
`;

const dataUrl = (source: string) => new URL(`data:text/javascript,${encodeURIComponent(source)}`);

/**
 * Starts a worker running `body` (an ES module's statements; `parentPort` and `workerData`
 * are imported for it) after registering the TypeScript hooks; `workerData` is passed as is
 * (plus the hooks' URL under `hooks`).
 */
export function tsWorker(body: string, workerData: Record<string, unknown>): Worker {
  const source = `import { register } from "node:module";
import { parentPort, workerData } from "node:worker_threads";
register(workerData.hooks);
${body}`;
  return new Worker(dataUrl(source), {
    workerData: { ...workerData, hooks: dataUrl(TS_HOOKS).href },
  });
}
