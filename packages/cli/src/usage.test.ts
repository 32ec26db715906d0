// What the command line promises scripts and people: --help for every command, exit 2 with a
// "Did you mean" for typos and bad usage, exit 4 for a database another process holds.
import { join } from "node:path";
import { DB } from "@shale/db";
import { describe, expect, it } from "vitest";
import { shale, tempDir } from "./bin.test-support.js";
import { ExitCode } from "./exit-codes.js";
import { createProgram, run } from "./program.js";

function capture() {
  const out = { stdout: "", stderr: "" };
  return {
    out,
    sink: {
      write: (s: string) => void (out.stdout += s),
      error: (s: string) => void (out.stderr += s),
    },
  };
}

const commands = createProgram(capture().sink, () => {}).commands.map((c) => c.name());

describe("help", () => {
  it("lists every command and the exit codes", () => {
    const r = shale(["--help"]);
    expect(r.code).toBe(0);
    for (const name of commands) expect(r.stdout).toMatch(new RegExp(`^ {2}${name}\\b`, "m"));
    expect(r.stdout).toContain(
      "Exit codes: 0 ok, 1 not found or a check failed, 2 usage, 3 corruption",
    );
  });

  it.each(commands.filter((c) => c !== "help"))("%s --help explains the command", async (name) => {
    const { out, sink } = capture();
    expect(await run([name, "--help"], sink)).toBe(0);
    expect(out.stdout).toMatch(new RegExp(`^Usage: shale ${name}(\\|\\w+)? `));
  });

  it("sst's subcommands have their own help", async () => {
    for (const sub of ["properties", "layout", "index", "scan", "check"]) {
      const { out, sink } = capture();
      expect(await run(["sst", sub, "--help"], sink)).toBe(0);
      expect(out.stdout).toMatch(new RegExp(`^Usage: shale sst ${sub} \\[options\\] <file>`));
    }
  });

  it("--version prints the package's version", () => {
    const r = shale(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe("usage errors exit 2", () => {
  it("suggests the nearest command for a typo", () => {
    const r = shale(["gett", "db", "k"]);
    expect(r.code).toBe(ExitCode.Usage);
    expect(r.stderr).toContain("unknown command 'gett'");
    expect(r.stderr).toContain("Did you mean get?");
    const sub = shale(["sst", "chek", "f.sst"]);
    expect(sub.code).toBe(ExitCode.Usage);
    expect(sub.stderr).toContain("Did you mean check?");
  });

  it("suggests the nearest option, and names a missing argument", () => {
    const r = shale(["scan", "db", "--revers"]);
    expect(r.code).toBe(ExitCode.Usage);
    expect(r.stderr).toContain("unknown option '--revers'");
    expect(r.stderr).toContain("Did you mean --reverse?");
    const missing = shale(["get", "db"]);
    expect(missing.code).toBe(ExitCode.Usage);
    expect(missing.stderr).toContain("missing required argument 'key'");
  });

  it("prints the help on standard error for no command at all", () => {
    const r = shale([]);
    expect(r.code).toBe(ExitCode.Usage);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("Usage: shale [options] [command]");
  });
});

describe("a database another process has open", () => {
  it("is read beside the writer (read-only), and a write exits 4 (Busy)", async () => {
    const dir = join(tempDir(), "db");
    const db = await DB.open(dir);
    try {
      db.put("k", "v", { sync: true });
      expect(shale(["get", dir, "k"])).toEqual({ code: 0, stdout: "v\n", stderr: "" });
      expect(shale(["scan", dir]).stdout).toBe("k : v\n");
      const r = shale(["put", dir, "k", "w"]);
      expect(r.code).toBe(ExitCode.Busy);
      expect(r.stderr).toMatch(/^shale: Busy: /);
      expect(r.stderr).not.toContain("Busy: Busy:");
      expect(new TextDecoder().decode(db.get("k"))).toBe("v");
    } finally {
      await db.close();
    }
    expect(shale(["put", dir, "k", "w"]).code).toBe(0);
    expect(shale(["get", dir, "k"]).stdout).toBe("w\n");
  });
});
