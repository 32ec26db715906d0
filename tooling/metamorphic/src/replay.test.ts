/**
 * Replays every reproduction in testdata/ (one file per mismatch a metamorphic run found,
 * minimised; plus hand-written scenarios): each is a valid operation list, and it runs
 * under each of its option sets with every result equal to the model's.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseReproduction, runOne } from "./metamorphic.js";
import { checkOps } from "./tracker.js";

const dir = join(import.meta.dirname, "..", "testdata");
const files = readdirSync(dir).filter((f) => f.endsWith(".txt"));

describe("metamorphic reproductions in testdata/", () => {
  it("has reproductions to replay", () => {
    expect(files.length).toBeGreaterThan(0);
  });
  for (const file of files) {
    it(file, async () => {
      const { sets, ops } = parseReproduction(readFileSync(join(dir, file), "utf8"));
      expect(sets.length).toBeGreaterThan(0);
      expect(checkOps(ops)).toBeUndefined();
      for (const set of sets) expect(await runOne(ops, set)).toBeUndefined();
    });
  }
});
