/**
 * The metamorphic test in the normal suite: fixed seeds, short lists, a few option sets
 * (seconds). With SHALE_STRESS=1: random seeds (printed), 1000 operations, 8 option sets,
 * for SHALE_METAMORPHIC_MINUTES minutes (default 5). A mismatch fails with the seed, the
 * operation, both option sets and a minimised reproduction (written into testdata/, which
 * replay.test.ts runs).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Random } from "@shale/base/testing/random";
import { describe, expect, it } from "vitest";
import { generateOps } from "./generate.js";
import { describeFailure, formatReproduction, runAll, shrink } from "./metamorphic.js";
import { optionSets } from "./option-space.js";

const STRESS = process.env["SHALE_STRESS"] === "1";
const MINUTES = Number(process.env["SHALE_METAMORPHIC_MINUTES"] ?? "5");

async function runSeed(seed: number, ops: number, sets: number): Promise<void> {
  const list = generateOps({ seed, ops });
  const drawn = optionSets(new Random(seed ^ 0x5eed), sets);
  const failure = await runAll(list, drawn);
  if (failure === undefined) return;
  const report = describeFailure(seed, failure, drawn[0]!);
  const small = await shrink(list, failure.set);
  const file = join(
    import.meta.dirname,
    "..",
    "testdata",
    `seed-${seed}-op-${failure.mismatch.index}.txt`,
  );
  writeFileSync(
    file,
    formatReproduction([`metamorphic reproduction: seed ${seed}`], [failure.set, drawn[0]!], small),
  );
  expect.fail(`${report}\nminimised to ${small.length} ops: ${file}`);
}

describe("metamorphic test", () => {
  if (!STRESS) {
    for (const seed of [11, 12, 13]) {
      it(`seed ${seed}: 150 operations under 4 option sets agree with the model`, async () => {
        await runSeed(seed, 150, 4);
      });
    }
    return;
  }
  it(
    `random seeds for ${MINUTES} minutes: 1000 operations under 8 option sets`,
    async () => {
      const until = Date.now() + MINUTES * 60_000;
      let seeds = 0;
      while (Date.now() < until) {
        const seed = Math.floor(Math.random() * 2 ** 31);
        console.log(`metamorphic: seed ${seed}`);
        await runSeed(seed, 1000, 8);
        seeds++;
      }
      console.log(`metamorphic: ${seeds} seeds x 1000 ops x 8 option sets, no mismatch`);
    },
    MINUTES * 60_000 + 600_000,
  );
});
