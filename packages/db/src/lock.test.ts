/**
 * The LOCK of a database directory (issue 14): a second open of the same directory by any
 * path — here through a symlink — is Busy and leaves the first handle's LOCK in place, so
 * the first handle's writes all survive.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "./db.js";

const tmp = mkdtempSync(join(tmpdir(), "shale-lock-db-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("the LOCK of a database directory", () => {
  it("a second open through a symlink is Busy, and the LOCK survives", async () => {
    const dir = join(tmp, "db");
    const link = join(tmp, "link");
    const db = await DB.open(dir);
    symlinkSync(dir, link, "dir");
    for (let i = 0; i < 200; i++) db.put(`k${i}`, `v${i}`, { sync: true });
    await expect(DB.open(link)).rejects.toMatchObject({ code: "Busy" });
    await expect(DB.open(`${link}/.`)).rejects.toMatchObject({ code: "Busy" });
    expect(readFileSync(join(dir, "LOCK"), "utf8")).toBe(`${process.pid}\n`);
    for (let i = 200; i < 400; i++) db.put(`k${i}`, `v${i}`, { sync: true });
    await db.flush();
    await db.close();
    expect(existsSync(join(dir, "LOCK"))).toBe(false);
    const again = await DB.open(link);
    for (let i = 0; i < 400; i++) expect(again.get(`k${i}`), `k${i}`).toBeDefined();
    await again.close();
  });
});
