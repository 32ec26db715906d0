import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  isShaleError,
  MemoryFileSystem,
  open,
  ShaleError,
  WriteBatch,
  WriteBufferManager,
} from "./index.js";

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

  it("re-exports WriteBufferManager: two databases share its budget", async () => {
    const manager = new WriteBufferManager(1 << 20);
    const a = await open("/a", { fs: new MemoryFileSystem(), writeBufferManager: manager });
    const b = await open("/b", { fs: new MemoryFileSystem(), writeBufferManager: manager });
    a.put("k", "v");
    b.put("k", "v");
    const both = manager.memoryUsage();
    expect(both).toBe(
      Number(a.getProperty("shale.size-all-mem-tables")) +
        Number(b.getProperty("shale.size-all-mem-tables")),
    );
    await a.close();
    expect(manager.memoryUsage()).toBe(Number(b.getProperty("shale.size-all-mem-tables")));
    await b.close();
    expect(manager.memoryUsage()).toBe(0);
  });

  it("validates the options of open and of every call, and string keys", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shale-top-"));
    dirs.push(dir);
    await expect(open(dir, "fast" as never)).rejects.toThrow(TypeError);
    await expect(open(dir, { compression: null } as never)).rejects.toThrow(TypeError);
    await expect(open(dir, { walRecoveryMode: "toString" } as never)).rejects.toSatisfy((e) =>
      isShaleError(e, "InvalidArgument"),
    );
    await expect(open(dir, { bogus: 1 } as never)).rejects.toThrow(/bogus/);
    const db = await open(dir);
    try {
      expect(() => db.put("a", "1", { sync: "yes" } as never)).toThrow(TypeError);
      expect(() => db.put("a", "1", "sync" as never)).toThrow(TypeError);
      expect(() => db.put("\ud800", "1")).toThrow(TypeError);
      expect(() => db.get("a", { snapshott: 1 } as never)).toThrow(/snapshott/);
    } finally {
      await db.close();
    }
  });
});
