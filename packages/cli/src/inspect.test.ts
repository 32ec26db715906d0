// stats, levels (text, JSON and the SVG picture) and compact through the built bin on a real
// database with tables in L0 and L1.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DB } from "@shale/db";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { beforeAll, describe, expect, it } from "vitest";
import { jsonLines, shale, tempDir } from "./bin.test-support.js";
import { ExitCode } from "./exit-codes.js";

interface LevelsJson {
  levels: {
    level: number;
    bytes: number;
    files: { number: number; size: number; smallest?: string; largest?: string }[];
  }[];
}

const key = (i: number) => `key${String(i).padStart(6, "0")}`;

/** A database with several L1 tables (small target file size) and three L0 tables on top. */
async function layered(): Promise<string> {
  const dir = join(tempDir(), "db");
  const db = await DB.open(dir, {
    disableAutoCompactions: true,
    targetFileSizeBase: 16 * 1024,
    compression: "none",
  });
  const value = "v".repeat(100);
  for (let i = 0; i < 2000; i++) db.put(key(i), value);
  await db.flush();
  await db.compactRange();
  for (let round = 0; round < 3; round++) {
    for (let i = round * 300; i < round * 300 + 400; i += 2) db.put(key(i), `round${round}`);
    await db.flush();
  }
  await db.close();
  return dir;
}

let dir: string;
beforeAll(async () => {
  dir = await layered();
});

describe("levels", () => {
  it("lists every table per level, in text and JSON", () => {
    const json = jsonLines(shale(["--json", "levels", dir]).stdout)[0] as LevelsJson;
    const counts = json.levels.map((l) => l.files.length);
    expect(counts[0]).toBe(3);
    expect(counts[1]).toBeGreaterThan(3);
    expect(counts.slice(2).every((n) => n === 0)).toBe(true);
    const l1 = json.levels[1]!;
    expect(l1.files[0]!.smallest).toBe(key(0));
    expect(l1.files[l1.files.length - 1]!.largest).toBe(key(1999));
    expect(l1.bytes).toBe(l1.files.reduce((n, f) => n + f.size, 0));

    const text = shale(["levels", dir]);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(`--- level 0 --- 3 files, ${json.levels[0]!.bytes} bytes`);
    expect(lines).toContain(`--- level 1 --- ${counts[1]} files, ${l1.bytes} bytes`);
    expect(lines.filter((l) => l.startsWith(" ")).length).toBe(3 + counts[1]!);
    const f = l1.files[0]!;
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^ ${f.number}:${f.size}\\[\\d+ \\.\\. \\d+\\]\\['${key(0)}' \\.\\. '${f.largest}'\\]$`,
        ),
      ),
    );
    expect(lines.some((l) => l.startsWith("--- level 2"))).toBe(false); // empty levels below are left out
  });

  it("--svg draws one rectangle per live table, positioned by key range, with a legend", async () => {
    const svgFile = join(tempDir(), "levels.svg");
    const r = shale(["--json", "levels", dir, "--svg", svgFile]);
    expect(r.code, r.stderr).toBe(0);
    const json = jsonLines(r.stdout)[0] as LevelsJson & { svg: string };
    expect(json.svg).toBe(svgFile);
    const svg = readFileSync(svgFile, "utf8");
    expect(XMLValidator.validate(svg)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(svg) as {
      svg: { xmlns: string; rect: Record<string, string>[]; text: unknown[] };
    };
    expect(doc.svg.xmlns).toBe("http://www.w3.org/2000/svg");
    const tables = doc.svg.rect.filter((rect) => rect.class === "table");
    // One rectangle per live table, as the database itself lists them.
    const db = await DB.open(dir, { readOnly: true });
    const live = db.getLiveFiles().tables;
    await db.close();
    expect(tables.length).toBe(live.length);
    expect(
      tables.map((t) => [
        Number(t["data-number"]),
        Number(t["data-level"]),
        Number(t["data-size"]),
      ]),
    ).toEqual(live.map((t) => [t.number, t.level, t.size]));
    expect(json.levels.flatMap((l) => l.files.map((f) => f.number))).toEqual(
      live.map((t) => t.number),
    );
    expect(doc.svg.rect.filter((rect) => rect.class === "legend").length).toBeGreaterThanOrEqual(4);
    // L1 tables are disjoint and in key order: their rectangles go left to right without overlap.
    const l1 = tables.filter((t) => t["data-level"] === "1");
    for (let i = 1; i < l1.length; i++) {
      expect(Number(l1[i]!.x)).toBeGreaterThanOrEqual(
        Number(l1[i - 1]!.x) + Number(l1[i - 1]!.width) - 0.2,
      );
    }
    // The L0 tables cover the first part of the key space only.
    for (const t of tables.filter((t) => t["data-level"] === "0")) {
      expect(Number(t.x) + Number(t.width)).toBeLessThan(
        Number(l1[l1.length - 1]!.x) + Number(l1[l1.length - 1]!.width),
      );
    }
    expect(svg).not.toMatch(/<script|href=/);
  });
});

describe("compact", () => {
  it("moves L0 down and reports the files per level before and after", async () => {
    const copy = await layered();
    const r = shale(["compact", copy]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^files per level before: 3 \d+ 0 0 0 0 0\nfiles per level after: {2}0 \d+ 0 0 0 0 0\ncompacted in [\d.]+ s\n$/,
    );
    const after = jsonLines(shale(["--json", "levels", copy]).stdout)[0] as LevelsJson;
    expect(after.levels[0]!.files.length).toBe(0);
    expect(shale(["get", copy, key(300)]).stdout).toBe("round1\n");
    expect(shale(["get", copy, key(1999)]).stdout).toBe(`${"v".repeat(100)}\n`);
    const json = jsonLines(
      shale(["--json", "compact", copy, "--from", key(0), "--to", key(10)]).stdout,
    )[0];
    expect(json).toMatchObject({ ok: true, filesAfter: after.levels.map((l) => l.files.length) });
    const bad = shale(["compact", copy, "--from", "b", "--to", "a"]);
    expect(bad.code).toBe(ExitCode.Usage);
    expect(bad.stderr).toContain("start is after end");
  });
});

describe("stats", () => {
  it("prints shale.stats, every numeric property as JSON, and one property", () => {
    const text = shale(["stats", dir]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("** DB Stats **");
    expect(text.stdout).toContain("Latest sequence: 2600");
    const json = jsonLines(shale(["--json", "stats", dir]).stdout)[0] as {
      properties: Record<string, number>;
      levels: { level: number; files: number; bytes: number }[];
    };
    expect(json.properties["shale.latest-sequence"]).toBe(2600);
    expect(json.levels[0]).toEqual({ level: 0, files: 3, bytes: expect.any(Number) });
    expect(json.properties["shale.total-sst-files-size"]).toBe(
      json.levels.reduce((n, l) => n + l.bytes, 0),
    );
    expect(shale(["stats", dir, "--property", "shale.num-files-at-level0"]).stdout).toBe("3\n");
    const unknown = shale(["stats", dir, "-p", "shale.nope"]);
    expect(unknown.code).toBe(ExitCode.NotFound);
    expect(unknown.stderr).toContain('unknown property "shale.nope"');
  });
});
