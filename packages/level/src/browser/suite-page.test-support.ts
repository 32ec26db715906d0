/**
 * The browser suite's page script (bundled with esbuild by abstract-level-suite.browser.test.ts):
 * abstract-level's own test suite (`abstract-level/test`, run with tape as in Node:
 * ../../test/abstract-level-suite.mjs) against the browser ShaleLevel. Each factory call is a
 * fresh OPFS directory. Sets `globalThis.suiteResult` to `{ pass, fail, failures }` when tape
 * finishes; `globalThis.suiteLog` collects tape's TAP output.
 */
import suite from "abstract-level/test/index.js";
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

suite({
  test,
  factory(options?: object) {
    return new ShaleLevel(`${run}-${n++}`, options);
  },
});
