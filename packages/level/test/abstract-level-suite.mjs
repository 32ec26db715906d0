// abstract-level's own test suite (its `abstract-level/test` entry, run with tape, as
// classic-level and memory-level run it) against the BUILT package (dist/). Each factory
// call gets a fresh directory under one temporary root, removed at the end. Prints tape's
// TAP output, then "# pass N" and "# fail M"; exits non-zero on any failure.
//
//   node test/abstract-level-suite.mjs            (from packages/level, after `tsc -b`)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import suite from "abstract-level/test/index.js";
import tape from "tape";
import { ShaleLevel } from "../dist/index.js";

const root = mkdtempSync(join(tmpdir(), "shale-level-suite-"));
let n = 0;

const test = tape.createHarness();
let pass = 0;
let fail = 0;
const stream = test.createStream({ objectMode: true });
stream.on("data", (row) => {
  if (row.type === "assert") {
    if (row.ok) pass++;
    else fail++;
  }
});
test.createStream().pipe(process.stdout);
test.onFinish(() => {
  rmSync(root, { recursive: true, force: true });
  console.log(`# pass ${pass}`);
  console.log(`# fail ${fail}`);
  process.exitCode = fail === 0 && pass > 0 ? 0 : 1;
});
test.onFailure(() => {
  process.exitCode = 1;
});

suite({
  test,
  factory(options) {
    return new ShaleLevel(join(root, `db-${n++}`), options);
  },
});
