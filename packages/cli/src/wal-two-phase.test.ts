// `shale wal` on a log holding two-phase commit markers (a TransactionDB's prepared and then
// committed or rolled-back transactions): each marker printed with the transaction's name.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { DB } from "@shale/db";
import { describe, expect, it } from "vitest";
import { jsonLines, shale, tempDir } from "./bin.test-support.js";

describe("wal with two-phase commit markers", { timeout: 120_000 }, () => {
  it("prints BEGIN_PREPARE, END_PREPARE, COMMIT and ROLLBACK with the transaction's name", async () => {
    const dir = join(tempDir(), "db");
    const db = await DB.open(dir, { transactionDB: {} });
    const kept = db.beginTransaction();
    kept.setName("kept");
    await kept.put("a", "1");
    kept.prepare();
    kept.commit();
    const dropped = db.beginTransaction();
    dropped.setName("dropped");
    await dropped.put("b", "2");
    dropped.prepare();
    dropped.rollback();
    await db.close();
    const logs = readdirSync(dir).filter((f) => f.endsWith(".log"));
    const runs = logs.map((f) => shale(["wal", join(dir, f)]));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const text = runs.map((r) => r.stdout).join("");
    expect(text).toContain("  BEGIN_PREPARE\n  PUT a => 1\n  END_PREPARE kept\n");
    expect(text).toContain("  COMMIT kept\n");
    expect(text).toContain("  END_PREPARE dropped\n");
    expect(text).toContain("  ROLLBACK dropped\n");
    const json = logs.flatMap(
      (f) => jsonLines(shale(["--json", "wal", join(dir, f)]).stdout) as { ops?: unknown[] }[],
    );
    const ops = json.flatMap((r) => r.ops ?? []);
    expect(ops).toContainEqual({ op: "COMMIT", xid: "kept" });
    expect(ops).toContainEqual({ op: "ROLLBACK", xid: "dropped" });
  });
});
