/**
 * The browser suite's page script (bundled with esbuild by abstract-level-suite.browser.test.ts):
 * abstract-level's own test suite (`abstract-level/test`, run with tape as in Node:
 * ../../test/abstract-level-suite.mjs) against the browser ShaleLevel. Each factory call is a
 * fresh OPFS directory, and so a database worker and an I/O worker (about 0.2 s): the whole
 * suite (on the database, then again on a sublevel) runs with `?full` in the page's URL; by
 * default its modules that exercise the private API (reads, writes, batches, iterators,
 * seeks, clears, snapshots, sublevels, encodings, events) run once, on the database. Sets
 * `globalThis.suiteResult` to `{ pass, fail, failures }` when tape finishes;
 * `globalThis.suiteLog` collects tape's TAP output.
 */
import batchTest from "abstract-level/test/batch-test.js";
import chainedBatchTest from "abstract-level/test/chained-batch-test.js";
import clearRangeTest from "abstract-level/test/clear-range-test.js";
import common from "abstract-level/test/common.js";
import writeEvents from "abstract-level/test/events/write.js";
import getManyTest from "abstract-level/test/get-many-test.js";
import hasManyTest from "abstract-level/test/has-many-test.js";
import suite from "abstract-level/test/index.js";
import iteratorRangeTest from "abstract-level/test/iterator-range-test.js";
import iteratorSeekTest from "abstract-level/test/iterator-seek-test.js";
import iteratorSnapshotTest from "abstract-level/test/iterator-snapshot-test.js";
import iteratorTest from "abstract-level/test/iterator-test.js";
import putGetDelTest from "abstract-level/test/put-get-del-test.js";
import sublevelTest from "abstract-level/test/sublevel-test.js";
import tape from "tape";
import { ShaleLevel } from "../index.browser.js";

interface Row {
  type: string;
  ok?: boolean;
  name?: string;
  operator?: string;
  actual?: unknown;
  expected?: unknown;
}

const scope = globalThis as unknown as {
  suiteResult?: { pass: number; fail: number; failures: string[] };
  suiteLog: string[];
};
scope.suiteLog = [];
const run = `run-${Date.now()}`;
let n = 0;
let pass = 0;
let fail = 0;
const failures: string[] = [];
let current = "";

const test = tape.createHarness();
test.createStream({ objectMode: true }).on("data", (row: Row) => {
  if (row.type === "test") current = row.name ?? "";
  if (row.type !== "assert") return;
  if (row.ok) pass++;
  else {
    fail++;
    failures.push(
      `${current}: ${row.name} (${row.operator}: ${JSON.stringify(row.actual)} vs ${JSON.stringify(row.expected)})`,
    );
  }
});
test.createStream().on("data", (line: string) => scope.suiteLog.push(line));
test.onFinish(() => {
  scope.suiteResult = { pass, fail, failures };
});

const options = {
  test,
  factory(options?: object) {
    return new ShaleLevel(`${run}-${n++}`, options);
  },
};
const search = (globalThis as unknown as { location: { search: string } }).location.search;
if (new URLSearchParams(search).has("full")) {
  suite(options);
} else {
  const testCommon = common(options);
  for (const module of [
    putGetDelTest,
    getManyTest,
    hasManyTest,
    batchTest,
    chainedBatchTest,
    iteratorTest,
    iteratorRangeTest,
    iteratorSeekTest,
    iteratorSnapshotTest,
    clearRangeTest,
    sublevelTest,
  ])
    module.all(test, testCommon);
  writeEvents(test, testCommon);
}
