// checkpoint, backup (create/list/verify/purge/delete), restore, verify and repair through
// the built bin on real directories — whole, and with a flipped byte or a lost MANIFEST.
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DB } from "@shale/db";
import { describe, expect, it } from "vitest";
import { jsonLines, shale, tempDir } from "./bin.test-support.js";
import { ExitCode } from "./exit-codes.js";

function load(dir: string, from: number, to: number): void {
  const lines: string[] = [];
  for (let i = from; i < to; i++) lines.push(`k${String(i).padStart(4, "0")} ==> v${i}`);
  expect(shale(["load", dir, "--format", "utf8"], `${lines.join("\n")}\n`).code).toBe(0);
}

const keysOf = (dir: string) => shale(["scan", dir, "--keys-only"]).stdout.trimEnd().split("\n");

function flip(file: string, offset: number): void {
  const bytes = readFileSync(file);
  bytes[offset]! ^= 0x01;
  writeFileSync(file, bytes);
}

describe("checkpoint", () => {
  it("writes an openable copy as of the call", () => {
    const dir = join(tempDir(), "db");
    load(dir, 0, 100);
    const copy = join(tempDir(), "copy");
    const r = shale(["checkpoint", dir, copy]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^checkpoint ${copy}: sequence 100, \\d+ files \\(\\d+ linked, \\d+ copied\\), \\d+ bytes\\n$`,
      ),
    );
    load(dir, 100, 110);
    expect(keysOf(copy).length).toBe(100);
    expect(keysOf(dir).length).toBe(110);
    const again = shale(["--json", "checkpoint", dir, copy]);
    expect(again.code).toBe(ExitCode.Usage); // the target is not empty
    expect(jsonLines(again.stderr)[0]).toMatchObject({ error: { code: "InvalidArgument" } });
  });
});

describe("backup and restore", () => {
  it("creates incremental backups, lists, verifies, restores, purges and deletes them", () => {
    const dir = join(tempDir(), "db");
    const backups = join(tempDir(), "backups");
    load(dir, 0, 50);
    expect(shale(["backup", "create", dir, backups, "--metadata", "first"]).stdout).toMatch(
      /^created backup #1 {2}\S+Z {2}sequence 50 {2}\d+ files {2}\d+ bytes {2}"first"\n$/,
    );
    load(dir, 50, 80);
    const second = jsonLines(shale(["--json", "backup", "create", dir, backups]).stdout)[0] as {
      backup: { id: number; sequence: number };
    };
    expect(second.backup).toMatchObject({ id: 2, sequence: 80 });
    const list = jsonLines(shale(["--json", "backup", "list", backups]).stdout)[0] as {
      backups: { id: number; metadata?: string }[];
      corrupted: unknown[];
    };
    expect(list.backups.map((b) => [b.id, b.metadata])).toEqual([
      [1, "first"],
      [2, undefined],
    ]);
    expect(list.corrupted).toEqual([]);
    expect(shale(["backup", "verify", backups])).toEqual({
      code: 0,
      stdout: "OK backup #1\nOK backup #2\n",
      stderr: "",
    });

    const restored = join(tempDir(), "restored");
    expect(shale(["restore", backups, restored, "--id", "1"]).stdout).toBe(
      `restored backup #1 to ${restored}\n`,
    );
    expect(keysOf(restored).length).toBe(50);
    const newest = join(tempDir(), "newest");
    expect(shale(["restore", backups, newest]).stdout).toBe(`restored backup #2 to ${newest}\n`);
    expect(keysOf(newest).length).toBe(80);
    expect(shale(["restore", backups, join(tempDir(), "x"), "--id", "9"]).code).toBe(
      ExitCode.NotFound,
    );

    expect(shale(["backup", "purge", backups, "--keep", "1"]).stdout).toBe("deleted backups #1\n");
    expect(shale(["backup", "list", backups]).stdout).toMatch(/^#2 /);
    expect(shale(["backup", "delete", backups, "2"]).stdout).toBe("deleted backup #2\n");
    expect(shale(["backup", "list", backups]).stdout).toBe(`no backups in ${backups}\n`);
    expect(shale(["backup", "verify", backups]).code).toBe(ExitCode.NotFound);
    expect(shale(["backup", "purge", backups]).code).toBe(ExitCode.Usage); // --keep is required
  });

  it("exits 3 for a backup with a flipped byte, naming the file", () => {
    const dir = join(tempDir(), "db");
    const backups = join(tempDir(), "backups");
    load(dir, 0, 20);
    expect(shale(["backup", "create", dir, backups]).code).toBe(0);
    const shared = join(backups, "shared_checksum");
    const table = join(shared, readdirSync(shared)[0]!);
    flip(table, 3);
    const r = shale(["backup", "verify", backups, "1"]);
    expect(r.code).toBe(ExitCode.Corruption);
    expect(r.stderr).toContain("Corruption");
    expect(r.stderr).toContain(readdirSync(shared)[0]!);
  });
});

describe("verify", () => {
  it("exits 0 for a sound database and 3 listing the damaged table", () => {
    const dir = join(tempDir(), "db");
    load(dir, 0, 200);
    const ok = shale(["verify", dir]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(
      /^OK \d+ tables \(\d+ blocks\), \d+ logs \(\d+ records\), \d+ bytes\n$/,
    );
    const table = readdirSync(dir).find((f) => f.endsWith(".sst"))!;
    flip(join(dir, table), 10);
    const bad = shale(["verify", dir]);
    expect(bad.code).toBe(ExitCode.Corruption);
    expect(bad.stdout).toMatch(/^FAILED: 1 damaged; /);
    expect(bad.stderr).toContain(table);
    const json = jsonLines(shale(["--json", "verify", dir]).stdout)[0] as {
      ok: boolean;
      problems: { file: string }[];
    };
    expect(json.ok).toBe(false);
    expect(json.problems.map((p) => p.file.endsWith(table))).toEqual([true]);
  });

  it("runs beside a writer in another process", async () => {
    const dir = join(tempDir(), "db");
    load(dir, 0, 10);
    const db = await DB.open(dir);
    try {
      db.put("live", "1", { sync: true });
      expect(shale(["verify", dir]).code).toBe(0);
    } finally {
      await db.close();
    }
  });
});

describe("repair", () => {
  it("recovers every key after the MANIFEST is deleted, and reports what it kept", () => {
    const dir = join(tempDir(), "db");
    load(dir, 0, 100);
    load(dir, 100, 150);
    for (const f of readdirSync(dir))
      if (f === "CURRENT" || f.startsWith("MANIFEST-")) rmSync(join(dir, f));
    expect(shale(["get", dir, "k0001"]).code).toBe(ExitCode.NotFound); // no database without CURRENT
    const r = shale(["repair", dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\d+\.sst: kept, 100 entries/);
    expect(r.stdout).toMatch(/\d+\.sst: kept, 50 entries/);
    expect(keysOf(dir).length).toBe(150);
    expect(shale(["get", dir, "k0149"]).stdout).toBe("v149\n");
    const json = jsonLines(shale(["--json", "repair", dir]).stdout)[0] as {
      tables: { kind: string }[];
      dropped: unknown[];
    };
    expect(json.tables.every((t) => t.kind === "kept")).toBe(true);
    expect(json.dropped).toEqual([]);
  });

  it("exits 4 while another process has the database open", async () => {
    const dir = join(tempDir(), "db");
    load(dir, 0, 5);
    const db = await DB.open(dir);
    try {
      expect(shale(["repair", dir]).code).toBe(ExitCode.Busy);
    } finally {
      await db.close();
    }
    expect(shale(["repair", join(tempDir(), "none")]).code).toBe(ExitCode.NotFound);
  });
});
