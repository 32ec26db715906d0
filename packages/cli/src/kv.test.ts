// The key-value commands (get, put, delete, scan, dump, load) run through the built bin on
// a real directory: output and exit codes.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, jsonLines, shale, tempDir } from "./bin.test-support.js";
import { ExitCode } from "./exit-codes.js";

function filled(keys: string[]): string {
  const dir = join(tempDir(), "db");
  const input = `${keys.map((k) => `${k} ==> value-of-${k}`).join("\n")}\n`;
  const r = shale(["load", dir, "--format", "utf8"], input);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toBe(`loaded ${keys.length} entries\n`);
  return dir;
}

describe("put / get / delete", () => {
  it("stores, reads and deletes a key, creating the database", () => {
    const dir = join(tempDir(), "db");
    expect(shale(["put", dir, "user:1", "ada"])).toEqual({
      code: 0,
      stdout: "OK user:1\n",
      stderr: "",
    });
    expect(shale(["get", dir, "user:1"])).toEqual({ code: 0, stdout: "ada\n", stderr: "" });
    expect(jsonLines(shale(["--json", "get", dir, "user:1"]).stdout)).toEqual([
      { key: "user:1", found: true, value: "ada" },
    ]);
    expect(shale(["delete", dir, "user:1"]).stdout).toBe("OK deleted user:1\n");
    const missing = shale(["get", dir, "user:1"]);
    expect(missing.code).toBe(ExitCode.NotFound);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toContain("key not found: user:1");
    const json = shale(["--json", "get", dir, "user:1"]);
    expect(json.code).toBe(ExitCode.NotFound);
    expect(jsonLines(json.stdout)).toEqual([{ key: "user:1", found: false }]);
  });

  it("takes and prints hex keys and values", () => {
    const dir = join(tempDir(), "db");
    expect(shale(["--hex", "put", dir, "0x00ff", "0102"]).code).toBe(0);
    expect(shale(["--hex", "get", dir, "00FF"]).stdout).toBe("0x0102\n");
    // As text, the non-printable bytes are escaped.
    expect(shale(["--key-hex", "get", dir, "00ff"]).stdout).toBe("\\x01\\x02\n");
    expect(jsonLines(shale(["--json", "--key-hex", "get", dir, "00ff"]).stdout)).toEqual([
      { keyHex: "00ff", found: true, value: "\u0001\u0002" },
    ]);
    const bad = shale(["--hex", "get", dir, "0xzz"]);
    expect(bad.code).toBe(ExitCode.Usage);
    expect(bad.stderr).toContain("key is not hex");
  });

  it("deletes a range with --to", () => {
    const dir = filled(["a", "b", "c", "d"]);
    expect(shale(["delete", dir, "b", "--to", "d"]).stdout).toBe("OK deleted [b, d)\n");
    expect(shale(["scan", dir, "--keys-only"]).stdout).toBe("a\nd\n");
  });

  it("merges with --merge and --merge-operator", () => {
    const dir = join(tempDir(), "db");
    expect(shale(["--merge-operator", "stringappend", "put", dir, "k", "x"]).code).toBe(0);
    expect(shale(["--merge-operator", "stringappend", "put", "--merge", dir, "k", "y"]).code).toBe(
      0,
    );
    expect(shale(["--merge-operator", "stringappend", "get", dir, "k"]).stdout).toBe("x,y\n");
    const bad = shale(["--merge-operator", "nope", "get", dir, "k"]);
    expect(bad.code).toBe(ExitCode.Usage);
    expect(bad.stderr).toContain("--merge-operator must be one of");
  });

  it("exits 1 for a directory without a database, and creates none", () => {
    const dir = tempDir();
    for (const args of [
      ["get", dir, "k"],
      ["scan", dir],
      ["delete", dir, "k"],
      ["stats", dir],
    ]) {
      const r = shale(args);
      expect(r.code, args.join(" ")).toBe(ExitCode.NotFound);
      expect(r.stderr).toContain(`no database in ${dir}`);
    }
    expect(shale(["get", join(dir, "nope"), "k"]).stderr).toContain("no such directory");
    const json = shale(["--json", "get", dir, "k"]);
    expect(jsonLines(json.stderr)).toEqual([
      { error: { exitCode: 1, message: `no database in ${dir}` } },
    ]);
  });
});

describe("scan", () => {
  const keys = ["apple", "apricot", "banana", "blueberry", "cherry"];

  it("prints every entry, in order, as `key : value`", () => {
    const dir = filled(keys);
    expect(shale(["scan", dir]).stdout).toBe(keys.map((k) => `${k} : value-of-${k}\n`).join(""));
  });

  it("honours --from/--to, --prefix, --limit and --reverse", () => {
    const dir = filled(keys);
    const scan = (...args: string[]) => shale(["scan", dir, "--keys-only", ...args]).stdout;
    expect(scan("--from", "apricot", "--to", "blueberry")).toBe("apricot\nbanana\n");
    expect(scan("--prefix", "b")).toBe("banana\nblueberry\n");
    expect(scan("--prefix", "b", "--from", "bb")).toBe("blueberry\n");
    expect(scan("--limit", "2")).toBe("apple\napricot\n");
    expect(scan("--reverse", "--limit", "2")).toBe("cherry\nblueberry\n");
    expect(scan("--reverse", "--from", "b", "--to", "c")).toBe("blueberry\nbanana\n");
    expect(scan("--from", "c", "--to", "a")).toBe("");
    const bad = shale(["scan", dir, "--limit", "-1"]);
    expect(bad.code).toBe(ExitCode.Usage);
    expect(bad.stderr).toContain("--limit must be a non-negative integer");
  });

  it("prints JSON lines, hex, and the bytes that are not UTF-8 losslessly", () => {
    const dir = filled(["k1"]);
    expect(shale(["--hex", "put", dir, "ff00", "c3"]).code).toBe(0);
    expect(jsonLines(shale(["--json", "scan", dir]).stdout)).toEqual([
      { key: "k1", value: "value-of-k1" },
      { keyHex: "ff00", valueHex: "c3" },
    ]);
    expect(shale(["--hex", "scan", dir]).stdout).toBe(
      "0x6B31 : 0x76616C75652D6F662D6B31\n0xFF00 : 0xC3\n",
    );
    expect(shale(["scan", dir, "--from", "\u00ff"]).stdout).toBe("\\xff\\x00 : \\xc3\n");
  });
});

describe("dump / load", () => {
  it("round-trips every byte in each format; the hex form is `ldb dump --hex`'s", () => {
    const dir = join(tempDir(), "db");
    const entries: [string, string][] = [
      ["00", ""],
      ["6b31", "76"],
      ["ff0a3d3d3e", "0a0d5c"],
    ];
    for (const [k, v] of entries) expect(shale(["--hex", "put", dir, k, v || "0x"]).code).toBe(0);
    const hex = shale(["dump", dir]);
    expect(hex.code).toBe(0);
    expect(hex.stdout).toBe("0x00 ==> 0x\n0x6B31 ==> 0x76\n0xFF0A3D3D3E ==> 0x0A0D5C\n");
    expect(hex.stderr).toBe("dumped 3 entries\n");
    const json = shale(["--json", "dump", dir]).stdout;
    expect(jsonLines(json)).toEqual([
      { key: "\u0000", value: "" },
      { key: "k1", value: "v" },
      { keyHex: "ff0a3d3d3e", value: "\n\r\\" },
    ]);
    for (const [format, text] of [
      ["hex", hex.stdout],
      ["json", json],
    ] as const) {
      const copy = join(tempDir(), "copy");
      const file = join(tempDir(), `dump.${format}`);
      writeFileSync(file, text);
      expect(shale(["load", copy, file, "--format", format, "--batch-size", "2"]).stdout).toBe(
        "loaded 3 entries\n",
      );
      expect(shale(["dump", copy]).stdout).toBe(hex.stdout);
    }
    // utf8 text cannot hold the third key: refused, naming the way out.
    const utf8 = shale(["dump", dir, "--format", "utf8"]);
    expect(utf8.code).toBe(ExitCode.Usage);
    expect(utf8.stderr).toContain("use --format hex or json");
  });

  it.skipIf(spawnSync("ldb", ["--version"]).status !== 0)(
    "writes what `ldb load --hex` reads, and reads `ldb dump --hex`",
    () => {
      const dir = filled(["a", "b\u00e9"]);
      const rocks = join(tempDir(), "rocks");
      const dump = shale(["dump", dir]).stdout;
      const load = spawnSync("ldb", [`--db=${rocks}`, "--create_if_missing", "--hex", "load"], {
        input: dump,
        encoding: "utf8",
      });
      expect(load.status, load.stderr).toBe(0);
      const back = spawnSync("ldb", [`--db=${rocks}`, "--hex", "dump"], { encoding: "utf8" });
      expect(
        back.stdout
          .split("\n")
          .filter((l) => l.includes(" ==> "))
          .join("\n"),
      ).toBe(dump.trimEnd());
      const copy = join(tempDir(), "copy");
      expect(shale(["load", copy], back.stdout.replace(/^Keys in range.*$/m, "")).stdout).toBe(
        "loaded 2 entries\n",
      );
      expect(shale(["dump", copy]).stdout).toBe(dump);
    },
  );

  it("writes --output files, reads standard input, and names a bad line", () => {
    const dir = filled(["a", "b"]);
    const out = join(tempDir(), "out.txt");
    expect(shale(["dump", dir, "--from", "b", "-o", out]).code).toBe(0);
    expect(readFileSync(out, "utf8")).toBe("0x62 ==> 0x76616C75652D6F662D62\n");
    const copy = join(tempDir(), "copy");
    expect(shale(["load", copy, "-"], "0x01 ==> 0x02\r\n\n0x03 ==> 0x04\n").stdout).toBe(
      "loaded 2 entries\n",
    );
    expect(shale(["--hex", "scan", copy]).stdout).toBe("0x01 : 0x02\n0x03 : 0x04\n");
    const bad = shale(["load", copy], "0x05 ==> 0x06\nno separator here\n");
    expect(bad.code).toBe(ExitCode.Usage);
    expect(bad.stderr).toContain('line 2: no " ==> " between key and value');
    const missing = shale(["load", copy, join(tempDir(), "nope.txt")]);
    expect(missing.code).toBe(ExitCode.NotFound);
  });
});

describe("a reader that stops reading", () => {
  it("ends the command quietly with exit 0 (`shale scan db | head -1`)", async () => {
    const dir = filled(
      Array.from({ length: 4000 }, (_, i) => `key${String(i).padStart(5, "0")}-${"x".repeat(40)}`),
    );
    const child = spawn(process.execPath, [BIN, "scan", dir], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const first = await new Promise<string>((resolve) => {
      child.stdout.once("data", (d: Buffer) => {
        child.stdout.destroy(); // like head after its first line
        resolve(d.toString().split("\n")[0]!);
      });
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(first).toBe(`key00000-${"x".repeat(40)} : value-of-key00000-${"x".repeat(40)}`);
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});
