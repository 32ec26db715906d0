/**
 * Rename in a power cut (FaultInjectionFileSystem): atomic — a file renamed over a durable
 * one without a `syncDir` since gives the old one back, never leaves the name empty.
 */
import { describe, expect, it } from "vitest";
import { FaultInjectionFileSystem } from "./fault-fs.js";
import { MemoryFileSystem } from "./memory-fs.js";

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const bytes = (s: string) => new TextEncoder().encode(s);

describe("FaultInjectionFileSystem rename and power cut", () => {
  it("write-temp-then-rename over a durable file, cut before syncDir: the old file is back", () => {
    const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
    fs.mkdir("/d");
    fs.writeFile("/d/CURRENT", bytes("old\n"), { sync: true });
    fs.syncDir("/d");
    fs.writeFile("/d/tmp", bytes("new\n"), { sync: true });
    fs.rename("/d/tmp", "/d/CURRENT");
    fs.dropUnsyncedData();
    expect(text(fs.readFile("/d/CURRENT"))).toBe("old\n");
    expect(fs.exists("/d/tmp")).toBe(false);
  });

  it("after the syncDir the new file stays", () => {
    const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
    fs.mkdir("/d");
    fs.writeFile("/d/CURRENT", bytes("old\n"), { sync: true });
    fs.syncDir("/d");
    fs.writeFile("/d/tmp", bytes("new\n"), { sync: true });
    fs.rename("/d/tmp", "/d/CURRENT");
    fs.syncDir("/d");
    fs.dropUnsyncedData();
    expect(text(fs.readFile("/d/CURRENT"))).toBe("new\n");
  });

  it("renamed over a file that was never durable itself: the name goes (nothing durable to restore)", () => {
    const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
    fs.mkdir("/d");
    fs.writeFile("/d/a", bytes("a"), { sync: true });
    fs.writeFile("/d/b", bytes("b"), { sync: true });
    fs.rename("/d/b", "/d/a");
    fs.dropUnsyncedData();
    expect(fs.exists("/d/a")).toBe(false);
  });
});
