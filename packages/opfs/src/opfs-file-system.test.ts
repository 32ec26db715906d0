import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ErrorCode, ShaleError } from "@shale/base";
import { describeFileSystemConformance, errorCode, expectIoError } from "@shale/base/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { OpfsFileSystem } from "./opfs-file-system.js";
import { encodeRenameJournal, RENAME_JOURNAL } from "./rename-journal.js";
import { FakeOpfs, type FakeOpfsOptions, openFakeOpfsFileSystem } from "./testing/index.js";

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const str = (b: Uint8Array): string => new TextDecoder().decode(b);

const dirs: string[] = [];
function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), "shale-opfs-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

for (const move of ["atomic", "no-overwrite", "none"] as const) {
  let fs: OpfsFileSystem;
  let n = 0;
  beforeAll(async () => {
    fs = await openFakeOpfsFileSystem("conformance", { dir: scratch(), move });
  });
  afterAll(() => fs.close());
  describeFileSystemConformance(
    `OpfsFileSystem over a fake OPFS (move: ${move})`,
    () => ({ fs, root: `t${n++}` }),
    { hardLinks: false },
  );
}

describe("OpfsFileSystem", () => {
  const open: OpfsFileSystem[] = [];
  async function openFs(
    name: string,
    fake: FakeOpfsOptions,
    maxOpenHandles?: number,
  ): Promise<OpfsFileSystem> {
    const fs = await openFakeOpfsFileSystem(
      name,
      fake,
      maxOpenHandles === undefined ? {} : { maxOpenHandles },
    );
    open.push(fs);
    return fs;
  }
  afterEach(async () => {
    for (const fs of open.splice(0)) await fs.close();
  });

  it("keeps at most maxOpenHandles sync handles open, reopening closed ones on demand", async () => {
    const fs = await openFs("pool", { dir: scratch(), maxHandles: 8 }, 4);
    const writers = [];
    for (let i = 0; i < 30; i++) {
      const w = fs.openWritable(`f${i}`, { bufferSize: 0 });
      w.append(text(`first ${i};`));
      writers.push(w);
    }
    const readers = [];
    for (let i = 0; i < 30; i++) {
      writers[i]!.append(text(`second ${i}`));
      writers[i]!.sync();
      readers.push(fs.openRandomAccess(`f${i}`));
    }
    for (let i = 29; i >= 0; i--) {
      const r = readers[i]!;
      const dst = new Uint8Array(r.size);
      expect(str(dst.subarray(0, r.read(0, r.size, dst)))).toBe(`first ${i};second ${i}`);
      r.close();
      writers[i]!.close();
    }
    const stats = fs.stats();
    expect(stats.openHandles).toBeLessThanOrEqual(4);
    expect(stats.peakOpenHandles).toBe(4);
  });

  it("a reply larger than the transfer area (a listing, an error) arrives whole", async () => {
    const fs = await openFakeOpfsFileSystem("big", { dir: scratch() }, { transferSize: 32 });
    open.push(fs);
    const names = Array.from({ length: 40 }, (_, i) => `table-${String(i).padStart(6, "0")}.sst`);
    for (const n of names) fs.writeFile(n, text(n));
    expect(fs.list("")).toEqual(names);
    expect(fs.stats().openHandles).toBeGreaterThan(0);
    expectIoError(() => fs.readFile(`missing-${"x".repeat(100)}`), "ENOENT");
  });

  it("is NotSupported outside a browser's dedicated worker, naming what to use instead", async () => {
    const err = await OpfsFileSystem.open("x").catch((e: unknown) => e);
    expect(ShaleError.isInstance(err) && err.code).toBe(ErrorCode.NotSupported);
    expect((err as Error).message).toMatch(/navigator\.storage\.getDirectory.*MemoryFileSystem/);
  });

  it("checks its name and options", async () => {
    const code = async (p: Promise<unknown>): Promise<unknown> =>
      p.then(
        () => "resolved",
        (e: unknown) =>
          ShaleError.isInstance(e) ? e.code : e instanceof TypeError ? "TypeError" : e,
      );
    expect(await code(OpfsFileSystem.open("a/b"))).toBe(ErrorCode.InvalidArgument);
    expect(await code(OpfsFileSystem.open(".."))).toBe(ErrorCode.InvalidArgument);
    expect(await code(OpfsFileSystem.open(7 as unknown as string))).toBe("TypeError");
    expect(await code(OpfsFileSystem.open("a", { bogus: 1 } as never))).toBe(
      ErrorCode.InvalidArgument,
    );
    expect(await code(OpfsFileSystem.open("a", { maxOpenHandles: 0 }))).toBe(
      ErrorCode.InvalidArgument,
    );
    expect(await code(OpfsFileSystem.open("a", { maxOpenHandles: "9" as never }))).toBe(
      "TypeError",
    );
  });

  it("a held lock is Busy for a second file system over the same OPFS directory", async () => {
    const dir = scratch();
    const a = await openFs("db", { dir });
    const b = await openFs("db", { dir });
    const lock = a.lock("LOCK");
    const busy = (() => {
      try {
        b.lock("LOCK");
      } catch (e) {
        return e;
      }
    })();
    expect(ShaleError.isInstance(busy) && busy.code).toBe(ErrorCode.Busy);
    expect((busy as Error).message).toMatch(/another tab or worker/);
    lock.release();
    b.lock("LOCK").release();
    const other = await openFs("other", { dir });
    other.lock("LOCK").release();
  });

  it("close releases the locks it holds", async () => {
    const dir = scratch();
    const a = await openFakeOpfsFileSystem("db", { dir });
    a.lock("LOCK");
    await a.close();
    expect(errorCode(() => a.exists("LOCK"))).toBe(ErrorCode.IOError);
    const b = await openFs("db", { dir });
    b.lock("LOCK").release();
  });

  it("replays a complete rename journal left by a crash, and drops a torn one", async () => {
    const dir = scratch();
    const fake = new FakeOpfs({ dir, move: "none" });
    const origin = await fake.environment().getDirectory();
    const root = await origin.getDirectoryHandle("db", { create: true });
    const put = async (name: string, bytes: Uint8Array): Promise<void> => {
      const sah = await (await root.getFileHandle(name, { create: true })).createSyncAccessHandle();
      sah.truncate(0);
      sah.write(bytes, { at: 0 });
      sah.close();
    };
    await put("CURRENT", text("MANIFEST-000001\n"));
    await put("CURRENT.dbtmp", text("MANIFEST-000007\n"));
    // The crash came after the journal was flushed: the switch is redone on open.
    await put(
      RENAME_JOURNAL,
      encodeRenameJournal({
        from: "CURRENT.dbtmp",
        to: "CURRENT",
        data: text("MANIFEST-000007\n"),
      }),
    );
    let fs = await openFs("db", { dir, move: "none" });
    expect(fs.list("")).toEqual(["CURRENT"]);
    expect(str(fs.readFile("CURRENT"))).toBe("MANIFEST-000007\n");
    await fs.close();
    open.pop();

    // A torn journal (the crash came while writing it): dropped, both files as they were.
    await put("CURRENT.dbtmp", text("MANIFEST-000009\n"));
    const torn = encodeRenameJournal({
      from: "CURRENT.dbtmp",
      to: "CURRENT",
      data: text("MANIFEST-000009\n"),
    });
    await put(RENAME_JOURNAL, torn.subarray(0, torn.length - 3));
    fs = await openFs("db", { dir, move: "none" });
    expect(fs.list("")).toEqual(["CURRENT", "CURRENT.dbtmp"]);
    expect(str(fs.readFile("CURRENT"))).toBe("MANIFEST-000007\n");
    expect(fs.exists(RENAME_JOURNAL)).toBe(false);
  });

  it("renames with move() where it works, else through the journal", async () => {
    for (const move of ["atomic", "no-overwrite", "none"] as const) {
      const fs = await openFs("db", { dir: scratch(), move });
      expect(fs.atomicMove).toBe(move !== "none");
      fs.writeFile("CURRENT", text("MANIFEST-000001\n"));
      for (let i = 2; i < 6; i++) {
        fs.writeFile("CURRENT.dbtmp", text(`MANIFEST-00000${i}\n`), { sync: true });
        fs.rename("CURRENT.dbtmp", "CURRENT");
        expect(str(fs.readFile("CURRENT"))).toBe(`MANIFEST-00000${i}\n`);
        expect(fs.list("")).toEqual(["CURRENT"]);
      }
      const { moves, journaledRenames } = fs.stats();
      expect({ moves, journaledRenames }).toEqual(
        move === "atomic" ? { moves: 4, journaledRenames: 0 } : { moves: 0, journaledRenames: 4 },
      );
    }
  });

  it("a write past the quota is IOError ENOSPC naming usage and quota; written data stays", async () => {
    const dir = scratch();
    const fs = await openFs("db", { dir, quota: 10_000 });
    const w = fs.openWritable("wal", { bufferSize: 0 });
    w.append(new Uint8Array(6000).fill(1));
    w.sync();
    const err = (() => {
      try {
        w.append(new Uint8Array(6000).fill(2));
      } catch (e) {
        return e;
      }
    })();
    expectIoError(() => {
      throw err;
    }, "ENOSPC");
    expect((err as Error).message).toMatch(/quota.*6000 of 10000 bytes/);
    expect(w.size).toBe(6000);
    expectIoError(() => w.append(text("x")), "ENOSPC");
    w.close();
    expect(fs.readFile("wal")).toEqual(new Uint8Array(6000).fill(1));
  });
});
