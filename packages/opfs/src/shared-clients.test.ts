import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type OpfsClientHandle, OpfsFileSystem } from "./opfs-file-system.js";
import { openFakeOpfsFileSystem } from "./testing/index.js";

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const str = (b: Uint8Array): string => new TextDecoder().decode(b);

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), "shale-opfs-clients-"));
  dirs.push(d);
  return d;
}

describe("OpfsFileSystem clients for other workers (shareWithWorker / connect)", () => {
  it("each client has its own channel: interleaved calls, long replies and reads see each other's files", async () => {
    // A small transfer size: long reads, writes and JSON replies go in several rounds.
    const fs = await openFakeOpfsFileSystem("shared", { dir: scratch() }, { transferSize: 64 });
    try {
      const a = fs.shareWithWorker();
      const b = fs.shareWithWorker();
      const handleA = a.handle as OpfsClientHandle;
      expect(a.transfer).toEqual([handleA.port]);
      const one = OpfsFileSystem.connect(handleA);
      const two = OpfsFileSystem.connect(b.handle as OpfsClientHandle);
      expect(one.name).toBe("shared");
      const big = "x".repeat(1000);
      const w0 = fs.openWritable("from-owner");
      const w1 = one.openWritable("from-one");
      for (let i = 0; i < 20; i++) {
        w0.append(text(`${i}:${big}|`));
        w1.append(text(`${i}|`));
      }
      w0.close();
      w1.close();
      two.writeFile("from-two", text("two"), { sync: true });
      for (let i = 0; i < 40; i++) one.writeFile(`many-${String(i).padStart(3, "0")}`, text("m"));
      // The list is longer than the data area: its replyChunk rounds use the asker's buffer.
      expect(two.list("").length).toBe(43);
      expect(fs.list("").length).toBe(43);
      expect(str(two.readFile("from-owner")).split("|")[19]).toBe(`19:${big}`);
      expect(str(fs.readFile("from-one"))).toContain("19|");
      expect(str(one.readFile("from-two"))).toBe("two");
      await one.close();
      // A closed client fails; the others go on.
      expect(() => one.exists("from-two")).toThrow(/closed/);
      expect(two.exists("from-one")).toBe(true);
      await two.close();
      expect(fs.exists("from-two")).toBe(true);
    } finally {
      await fs.close();
    }
  });

  it("connect refuses what shareWithWorker did not make; a closed file system shares nothing", async () => {
    expect(() => OpfsFileSystem.connect({} as never)).toThrow(TypeError);
    expect(() => OpfsFileSystem.connect(null as never)).toThrow(TypeError);
    const fs = await openFakeOpfsFileSystem("gone", { dir: scratch() });
    const client = OpfsFileSystem.connect(fs.shareWithWorker().handle as OpfsClientHandle);
    expect(() => client.shareWithWorker()).toThrow(/cannot share itself/);
    await client.close();
    await fs.close();
    expect(() => fs.shareWithWorker()).toThrow(/closed/);
  });

  it("background worker options: validated; none by default over a caller's I/O worker", async () => {
    const fs = await openFakeOpfsFileSystem("bg", { dir: scratch() });
    expect(fs.startBackgroundWorker()).toBeUndefined();
    await fs.close();
    await expect(
      openFakeOpfsFileSystem("bg", { dir: scratch() }, { backgroundWorkerUrl: 5 as never }),
    ).rejects.toThrow(TypeError);
    await expect(
      openFakeOpfsFileSystem("bg", { dir: scratch() }, { startBackgroundWorker: "x" as never }),
    ).rejects.toThrow(TypeError);
    let started = 0;
    const withStart = await openFakeOpfsFileSystem(
      "bg",
      { dir: scratch() },
      {
        startBackgroundWorker: () => {
          started++;
          return { postMessage() {}, terminate() {} };
        },
      },
    );
    expect(withStart.startBackgroundWorker()).toBeDefined();
    expect(started).toBe(1);
    await withStart.close();
  });
});
