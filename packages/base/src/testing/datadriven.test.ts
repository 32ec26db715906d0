/** The data-driven runner: parsing, arguments, blank-line outputs and the rewrite. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseDataDriven, rewriteDataDriven, runDataDrivenFile } from "./datadriven.js";

const FILE = `# a comment
echo a=1 b=(x, y) flag
line one
line two
----
line one
line two

# an empty output
noop
----

blank
----
----
first

third
----
----

echo
----
stale
`;

const tmp = mkdtempSync(join(tmpdir(), "shale-datadriven-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const handler = (c: ReturnType<typeof parseDataDriven>[number]) =>
  c.cmd === "echo" ? c.input : c.cmd === "blank" ? "first\n\nthird" : "";

describe("data-driven files", () => {
  it("parses commands, arguments, inputs and expected outputs", () => {
    const cases = parseDataDriven(FILE, "f.txt");
    expect(cases.map((c) => [c.pos, c.cmd, c.input, c.expected])).toEqual([
      ["f.txt:2", "echo", "line one\nline two", "line one\nline two\n"],
      ["f.txt:10", "noop", "", ""],
      ["f.txt:13", "blank", "", "first\n\nthird\n"],
      ["f.txt:22", "echo", "", "stale\n"],
    ]);
    const c = cases[0]!;
    expect(c.arg("a")).toBe("1");
    expect(c.numArg("a")).toBe(1);
    expect(c.argValues("b")).toEqual(["x", "y"]);
    expect(c.hasArg("flag")).toBe(true);
    expect(c.hasArg("nope")).toBe(false);
    expect(c.arg("nope", "d")).toBe("d");
    expect(() => c.arg("b")).toThrow(/f.txt:2: echo: argument b wants one value/);
    expect(() => c.arg("nope")).toThrow(/missing argument nope=/);
  });

  it("refuses a case without its separator", () => {
    expect(() => parseDataDriven("cmd\ninput\n", "g.txt")).toThrow(/g.txt:1: cmd: no "----" line/);
  });

  it("reports mismatches with their position, and rewrites only the outputs", () => {
    const path = join(tmp, "a.txt");
    writeFileSync(path, FILE);
    const mismatches = runDataDrivenFile(path, handler, { rewrite: false, name: "a.txt" });
    expect(mismatches).toEqual([{ pos: "a.txt:22", cmd: "echo", expected: "stale\n", actual: "" }]);
    expect(runDataDrivenFile(path, handler, { rewrite: true })).toEqual([]);
    const rewritten = readFileSync(path, "utf8");
    expect(rewritten).toBe(FILE.replace("----\nstale\n", "----\n"));
    // Rewriting an up-to-date file changes nothing; it now passes.
    expect(runDataDrivenFile(path, handler, { rewrite: true })).toEqual([]);
    expect(readFileSync(path, "utf8")).toBe(rewritten);
    expect(runDataDrivenFile(path, handler, { rewrite: false })).toEqual([]);
  });

  it("writes an output with blank lines between doubled separators", () => {
    const cases = parseDataDriven("cmd\n----\nold\n", "h.txt");
    expect(rewriteDataDriven("cmd\n----\nold\n", cases, ["x\n\ny\n"])).toBe(
      "cmd\n----\n----\nx\n\ny\n----\n----\n",
    );
  });
});
