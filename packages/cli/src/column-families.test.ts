// Column families from the command line: `shale cf list|create|drop` and the data commands'
// `--column-family`, through the built bin on a real directory.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { DB } from "@shale/db";
import { describe, expect, it } from "vitest";
import { jsonLines, shale, tempDir } from "./bin.test-support.js";
import { ExitCode } from "./exit-codes.js";

// About 20 runs of the bin each: a few seconds apiece on a loaded machine.
describe("column families", { timeout: 300_000 }, () => {
  it("creates, lists and drops families; get, put, delete, load, scan, levels and compact use --column-family", () => {
    const dir = join(tempDir(), "db");
    expect(shale(["put", dir, "k", "in-default"]).code).toBe(0);
    expect(shale(["cf", "create", dir, "users"])).toEqual({
      code: 0,
      stdout: "created column family users (id 1)\n",
      stderr: "",
    });
    expect(shale(["cf", "list", dir]).stdout).toBe("default\nusers\n");
    expect(jsonLines(shale(["--json", "cf", "list", dir]).stdout)).toEqual([
      { columnFamilies: ["default", "users"] },
    ]);
    const cf = ["--column-family", "users"];
    expect(shale([...cf, "put", dir, "k", "in-users"]).code).toBe(0);
    expect(shale([...cf, "get", dir, "k"]).stdout).toBe("in-users\n");
    expect(shale(["get", dir, "k"]).stdout).toBe("in-default\n");
    const load = shale([...cf, "load", dir, "--format", "utf8"], "a ==> 1\nb ==> 2\nc ==> 3\n");
    expect(load.code, load.stderr).toBe(0);
    expect(shale([...cf, "delete", dir, "b"]).code).toBe(0);
    expect(shale([...cf, "scan", dir]).stdout).toBe("a : 1\nc : 3\nk : in-users\n");
    expect(shale(["scan", dir]).stdout).toBe("k : in-default\n");
    expect(shale([...cf, "compact", dir]).code).toBe(0);
    const levels = jsonLines(shale(["--json", ...cf, "levels", dir]).stdout)[0] as {
      levels: { files: unknown[] }[];
    };
    expect(levels.levels.reduce((n, l) => n + l.files.length, 0)).toBe(1);
    const defaultLevels = jsonLines(shale(["--json", "levels", dir]).stdout)[0] as {
      levels: { files: unknown[] }[];
    };
    expect(defaultLevels.levels.reduce((n, l) => n + l.files.length, 0)).toBe(0);

    expect(shale(["cf", "drop", dir, "users"]).stdout).toBe("dropped column family users\n");
    expect(shale(["cf", "list", dir]).stdout).toBe("default\n");
    const gone = shale([...cf, "get", dir, "k"]);
    expect(gone.code).toBe(ExitCode.NotFound);
    expect(gone.stderr).toContain('no column family "users"');
    expect(gone.stderr).toContain("it has: default");
  });

  it("refuses to drop default, to create a family twice, and a family on a missing database", () => {
    const dir = join(tempDir(), "db");
    expect(shale(["put", dir, "k", "v"]).code).toBe(0);
    expect(shale(["cf", "drop", dir, "default"]).code).toBe(ExitCode.Usage);
    expect(shale(["cf", "create", dir, "x"]).code).toBe(0);
    const twice = shale(["cf", "create", dir, "x"]);
    expect(twice.code).toBe(ExitCode.Usage);
    expect(twice.stderr).toContain("x");
    expect(shale(["cf", "list", join(tempDir(), "none")]).code).toBe(ExitCode.NotFound);
    expect(shale(["--column-family", "", "get", dir, "k"]).code).toBe(ExitCode.Usage);
  });

  it("get, scan, dump, stats and levels read any family read-only, beside a writer holding the LOCK", async () => {
    const dir = join(tempDir(), "db");
    const writer = await DB.open(dir, {
      createMissingColumnFamilies: true,
      columnFamilies: { users: {}, logs: {} },
    });
    try {
      writer.put("k", "in-default");
      const users = writer.columnFamily("users");
      users.put("a", "1");
      users.put("b", "2");
      await users.flush();
      users.put("c", "3"); // in the WAL only
      writer.columnFamily("logs").put("l", "in-logs");
      const before = readdirSync(dir).sort();
      const cf = ["--column-family", "users"];
      const run = (args: string[]) => {
        const r = shale(args);
        expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
        return r.stdout;
      };
      expect(run([...cf, "get", dir, "c"])).toBe("3\n");
      expect(run(["--column-family", "logs", "get", dir, "l"])).toBe("in-logs\n");
      expect(run([...cf, "scan", dir])).toBe("a : 1\nb : 2\nc : 3\n");
      expect(run([...cf, "dump", dir, "--format", "utf8"])).toBe("a ==> 1\nb ==> 2\nc ==> 3\n");
      expect(run([...cf, "stats", dir]).length).toBeGreaterThan(0);
      const levels = jsonLines(run(["--json", ...cf, "levels", dir]))[0] as {
        levels: { files: unknown[] }[];
      };
      expect(levels.levels.reduce((n, l) => n + l.files.length, 0)).toBe(1);
      // Read-only: nothing written (a read-write open would write a MANIFEST, WAL and OPTIONS).
      expect(readdirSync(dir).sort()).toEqual(before);
    } finally {
      await writer.close();
    }
  });
});
