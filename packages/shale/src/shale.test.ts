import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isShaleError, open, ShaleError, WriteBatch } from "./index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("shale", () => {
  it("opens a database on the node file system with defaults", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shale-top-"));
    dirs.push(dir);
    const db = await open(dir);
    db.write(new WriteBatch().put("a", "1").put("b", "2"));
    expect(new TextDecoder().decode(db.get("b"))).toBe("2");
    await expect(open(dir)).rejects.toSatisfy(
      (e) => isShaleError(e, "Busy") && e instanceof ShaleError,
    );
    await db.close();
    const again = await open(dir);
    expect(new TextDecoder().decode(again.get("a"))).toBe("1");
    await again.close();
  });
});
