// `shale wal` on a log holding a batch across column families: every family's operations,
// those outside `default` named by their family id.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { DB, WriteBatch } from "@shale/db";
import { describe, expect, it } from "vitest";
import { jsonLines, shale, tempDir } from "./bin.test-support.js";

describe("wal with column families", { timeout: 120_000 }, () => {
  it("prints the operations of every family of a cross-family batch", async () => {
    const dir = join(tempDir(), "db");
    const db = await DB.open(dir, {
      createMissingColumnFamilies: true,
      columnFamilies: { users: {} },
    });
    const users = db.columnFamily("users");
    db.write(new WriteBatch().put("d", "1").put("u", "2", users).delete("x", users));
    await db.close();
    const logs = readdirSync(dir).filter((f) => f.endsWith(".log"));
    const texts = logs.map((f) => shale(["wal", join(dir, f)]).stdout);
    const text = texts.find((t) => t.includes("count 3"));
    expect(text, texts.join("\n---\n")).toBeDefined();
    expect(text).toContain("  PUT d => 1\n");
    expect(text).toContain(`  PUT u => 2 (column family ${users.id})\n`);
    expect(text).toContain(`  DELETE x (column family ${users.id})\n`);
    const log = logs[texts.indexOf(text!)]!;
    const json = jsonLines(shale(["--json", "wal", join(dir, log)]).stdout) as {
      ops?: { op: string; columnFamily?: number }[];
    }[];
    const ops = json.find((r) => r.ops?.length === 3)!.ops!;
    expect(ops.map((o) => [o.op, o.columnFamily])).toEqual([
      ["PUT", undefined],
      ["PUT", users.id],
      ["DELETE", users.id],
    ]);
  });
});
