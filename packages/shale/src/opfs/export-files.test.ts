import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryFileSystem, open } from "../index.js";
import { exportFiles } from "./export-files.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("exportFiles", () => {
  it("returns every file of the database, which opens from a directory in Node", async () => {
    const fs = new MemoryFileSystem();
    const db = await open("db", { fs, writeBufferSize: 64 * 1024 });
    for (let i = 0; i < 2000; i++) db.put(`k${String(i).padStart(5, "0")}`, `value ${i}`);
    db.delete("k00007");
    await db.flush();
    fs.mkdir("db/sub");
    fs.writeFile("db/sub/note", new TextEncoder().encode("kept"));
    const files = exportFiles(fs, "db");
    await db.close();
    const names = files.map((f) => f.name);
    expect(names).toContain("CURRENT");
    expect(names).toContain("sub/note");
    expect(names).toEqual([...names].sort());
    expect(names.some((n) => n.endsWith(".sst"))).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), "shale-export-"));
    dirs.push(dir);
    for (const f of files) {
      mkdirSync(dirname(join(dir, f.name)), { recursive: true });
      writeFileSync(join(dir, f.name), f.bytes);
    }
    const copy = await open(dir);
    try {
      expect(copy.get("k00007")).toBeUndefined();
      expect(new TextDecoder().decode(copy.get("k01999"))).toBe("value 1999");
      let n = 0;
      for (const _ of copy.iterator()) n++;
      expect(n).toBe(1999);
    } finally {
      await copy.close();
    }
  });

  it("an unreadable entry that is no directory is an error", () => {
    const fs = new MemoryFileSystem();
    fs.mkdir("db");
    fs.writeFile("db/a", new Uint8Array([1]));
    const broken = Object.assign(Object.create(fs) as MemoryFileSystem, {
      readFile: (path: string): Uint8Array => {
        throw new Error(`cannot read ${path}`);
      },
      list: (path: string): string[] => {
        if (path === "db") return ["a"];
        throw new Error(`${path} is not a directory`);
      },
    });
    expect(() => exportFiles(broken, "db")).toThrow(/cannot read db\/a/);
  });
});
