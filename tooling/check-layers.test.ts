import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { checkLayers, layerOf } from "./scripts/check-layers.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "shale-layers-"));
  dirs.push(dir);
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
  return dir;
}

describe("check-layers", () => {
  it("finds no back-edge in packages/db/src", () => {
    expect(checkLayers(join(root, "packages/db/src"))).toEqual([]);
  });

  it("names the file and the import of a planted back-edge", () => {
    const dir = tree({
      "core/a.ts": 'import { b } from "../background/b.js";\nexport const a = b;\n',
      "background/b.ts": 'import { c } from "../version/c.js";\nexport const b = c;\n',
      "version/c.ts": "export const c = 1;\n",
      "read/d.ts": 'export type { X } from "../ops/x.js";\n',
      "ops/x.ts": "export type X = number;\n",
      "read/d.test.ts": 'import { DB } from "../db.js";\n', // tests may drive the DB
      "loose.ts": "export const loose = 1;\n",
    });
    const bad = checkLayers(dir).map((b: { file: string; spec: string }) => `${b.file} ${b.spec}`);
    expect(bad.sort()).toEqual([
      "core/a.ts ../background/b.js",
      "loose.ts ",
      "read/d.ts ../ops/x.js",
    ]);
  });

  it("ranks by the longest prefix", () => {
    expect(layerOf("ops/backup/engine.ts")).toBeGreaterThan(layerOf("db.ts"));
    expect(layerOf("ops/backup/restore-marker.ts")).toBeLessThan(layerOf("db.ts"));
    expect(layerOf("core/options.ts")).toBeLessThan(layerOf("version/version-set.ts"));
  });
});
