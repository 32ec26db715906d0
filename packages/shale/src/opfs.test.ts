import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openFakeOpfsFileSystem } from "@shale/opfs/testing";
import { afterEach, describe, expect, it } from "vitest";
import { isShaleError, open } from "./index.js";
import type { OpfsFileSystem } from "./opfs/index.js";

const dirs: string[] = [];
const fileSystems: OpfsFileSystem[] = [];
afterEach(async () => {
  for (const fs of fileSystems.splice(0)) await fs.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), "shale-opfs-db-"));
  dirs.push(d);
  return d;
}

async function opfs(
  dir: string,
  quota?: number,
  move: "atomic" | "none" = "atomic",
): Promise<OpfsFileSystem> {
  const fs = await openFakeOpfsFileSystem(
    "app",
    quota === undefined ? { dir, move } : { dir, move, quota },
    {
      maxOpenHandles: 8,
    },
  );
  fileSystems.push(fs);
  return fs;
}

const key = (i: number): string => `key${String(i).padStart(6, "0")}`;
const value = (i: number): string => `value-${i}-${"x".repeat(i % 50)}`;
const text = (b: Uint8Array | undefined): string | undefined =>
  b === undefined ? undefined : new TextDecoder().decode(b);

describe("shale on OpfsFileSystem (fake OPFS)", () => {
  for (const move of ["atomic", "none"] as const) {
    it(`writes, flushes, compacts, closes and reads everything back after a reopen (move: ${move})`, async () => {
      const dir = scratch();
      const fs = await opfs(dir, undefined, move);
      const db = await open("db", { fs, writeBufferSize: 64 * 1024 });
      for (let i = 0; i < 4000; i++) db.put(key(i), value(i));
      for (let i = 0; i < 4000; i += 7) db.delete(key(i));
      await db.flush();
      await db.compactRange();
      for (let i = 4000; i < 4500; i++) db.put(key(i), value(i), { sync: true });
      expect(fs.stats().peakOpenHandles).toBeLessThanOrEqual(8);
      await db.close();
      await fs.close();

      const again = await opfs(dir, undefined, move);
      const db2 = await open("db", { fs: again });
      for (let i = 0; i < 4500; i++) {
        expect(text(db2.get(key(i)))).toBe(i < 4000 && i % 7 === 0 ? undefined : value(i));
      }
      let n = 0;
      for (const _ of db2.iterator()) n++;
      expect(n).toBe(4500 - Math.ceil(4000 / 7));
      await db2.close();
    });
  }

  it("a second open of the same database is Busy", async () => {
    const dir = scratch();
    const db = await open("db", { fs: await opfs(dir) });
    await expect(open("db", { fs: await opfs(dir) })).rejects.toSatisfy((e) =>
      isShaleError(e, "Busy"),
    );
    await db.close();
    const db2 = await open("db", { fs: await opfs(dir) });
    await db2.close();
  });

  it("quota exceeded mid-write: IOError with the quota, writes stop, nothing acknowledged is lost", async () => {
    const dir = scratch();
    const fs = await opfs(dir, 400_000);
    const db = await open("db", { fs, writeBufferSize: 64 * 1024 });
    let acknowledged = 0;
    let failure: unknown;
    for (let i = 0; i < 100_000; i++) {
      try {
        db.put(key(i), value(i).padEnd(200, "v"));
        acknowledged = i + 1;
      } catch (e) {
        failure = e;
        break;
      }
    }
    expect(isShaleError(failure, "IOError")).toBe(true);
    expect((failure as Error).message).toMatch(/quota/);
    expect(() => db.put("after", "x")).toThrow();
    await db.close().catch(() => undefined);
    await fs.close();

    const again = await opfs(dir);
    const db2 = await open("db", { fs: again });
    for (let i = 0; i < acknowledged; i++)
      expect(text(db2.get(key(i)))).toBe(value(i).padEnd(200, "v"));
    db2.put("after", "x");
    await db2.close();
  });
});
