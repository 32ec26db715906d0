import {
  bytewiseComparator,
  ErrorCode,
  InternalKeyComparator,
  MemoryFileSystem,
  makeInternalKey,
  toBytes,
  ValueKind,
} from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TableFile } from "../compaction/build-table.js";
import { DB } from "../db.js";
import { repair } from "./repair.js";

const text = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : Buffer.from(v).toString();
const key = (i: number) => `key${String(i).padStart(5, "0")}`;

function contents(db: DB): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of db.iterator()) out.set(text(k)!, text(v)!);
  return out;
}

function removeManifest(fs: MemoryFileSystem, dir: string): void {
  for (const name of fs.list(dir))
    if (name === "CURRENT" || name.startsWith("MANIFEST-")) fs.remove(`${dir}/${name}`);
}

describe("repair(dir)", () => {
  it("after the MANIFEST and CURRENT are deleted, recovers every key (model-checked)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant("put" as const), k: fc.nat(300), v: fc.nat(1000) }),
            fc.record({ op: fc.constant("del" as const), k: fc.nat(300) }),
            fc.record({ op: fc.constant("range" as const), k: fc.nat(300), n: fc.nat(20) }),
            fc.record({ op: fc.constant("flush" as const) }),
            fc.record({ op: fc.constant("compact" as const) }),
          ),
          { maxLength: 120 },
        ),
        async (ops) => {
          const fs = new MemoryFileSystem();
          const db = await DB.open("/db", { fs, writeBufferSize: 64 * 1024 });
          const model = new Map<string, string>();
          for (const o of ops) {
            if (o.op === "put") {
              db.put(key(o.k), `v${o.v}-${"x".repeat(o.v % 50)}`);
              model.set(key(o.k), `v${o.v}-${"x".repeat(o.v % 50)}`);
            } else if (o.op === "del") {
              db.delete(key(o.k));
              model.delete(key(o.k));
            } else if (o.op === "range") {
              db.deleteRange(key(o.k), key(o.k + o.n));
              for (let i = o.k; i < o.k + o.n; i++) model.delete(key(i));
            } else if (o.op === "flush") await db.flush();
            else await db.compactRange();
          }
          await db.close();
          removeManifest(fs, "/db");
          const report = await repair("/db", { fs });
          expect(report.dropped).toEqual([]);
          const reopened = await DB.open("/db", { fs, createIfMissing: false });
          expect(contents(reopened)).toEqual(model);
          await reopened.close();
        },
      ),
      { numRuns: 25 },
    );
  });

  it("puts flush-only tables in L0 as RocksDB does", async () => {
    const fs = new MemoryFileSystem();
    let db = await DB.open("/a", { fs, writeBufferSize: 64 * 1024, disableAutoCompactions: true });
    for (let r = 0; r < 3; r++) {
      for (let i = 0; i < 500; i++) db.put(key(i), `r${r}`);
      await db.flush();
    }
    db.put(key(1), "in the WAL");
    await db.close();
    removeManifest(fs, "/a");
    const report = await repair("/a", { fs });
    expect(report.compacted).toBe(false);
    expect(report.tables.map((t) => t.kind).sort()).toEqual(["kept", "kept", "kept", "log"]);
    expect(report.logs.length).toBeGreaterThan(0);
    expect(report.moved.some((m) => m.file.endsWith(".log"))).toBe(true);
    db = await DB.open("/a", { fs, createIfMissing: false });
    expect(db.getProperty("shale.num-files-at-level0")).toBe("4");
    expect(text(db.get(key(1)))).toBe("in the WAL");
    expect(text(db.get(key(2)))).toBe("r2");
    await db.close();
    expect(fs.readFile("/a/LOG").length).toBeGreaterThan(0);
  });

  it("compacts when tables share keys and sequence ranges (L0 order would be wrong)", async () => {
    // What compactions leave: an L2 table holding an old `a` and a later `z` (moved down
    // through another L1 file), and an L1 table holding a newer `a`. By largest sequence the
    // L2 table would be searched first.
    const fs = new MemoryFileSystem();
    fs.mkdir("/e");
    const icmp = new InternalKeyComparator(bytewiseComparator);
    const write = (n: number, entries: [string, number, string][]) => {
      const t = new TableFile(fs, "/e", n, { comparator: bytewiseComparator });
      for (const [k, seq, v] of entries)
        t.add(makeInternalKey(toBytes(k), seq, ValueKind.Value), toBytes(v));
      t.finish();
    };
    write(7, [
      ["a", 1, "old"],
      ["z", 150, "z"],
    ]);
    write(9, [["a", 100, "new"]]);
    const report = await repair("/e", { fs });
    expect(icmp.name).toBe(bytewiseComparator.name);
    const db = await DB.open("/e", { fs, createIfMissing: false });
    expect(text(db.get("a"))).toBe("new");
    expect(report.compacted).toBe(true);
    expect(report.lastSequence).toBe(150);
    expect(text(db.get("z"))).toBe("z");
    expect(db.getProperty("shale.num-files-at-level0")).toBe("0");
    await db.close();
  });

  it("salvages a table damaged in the middle, drops one that does not open, and says so", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/c", { fs, writeBufferSize: 4 << 20, compression: "none" });
    for (let i = 0; i < 3000; i++) db.put(key(i), `value-${i}-${"y".repeat(40)}`);
    await db.flush();
    for (let i = 3000; i < 3100; i++) db.put(key(i), "second");
    await db.flush();
    await db.close();
    const tables = fs.list("/c").filter((n) => n.endsWith(".sst"));
    expect(tables.length).toBe(2);
    const [big, small] = tables.sort((a, b) => fs.fileSize(`/c/${b}`) - fs.fileSize(`/c/${a}`));
    // A flipped byte half way through the big table's data blocks.
    const bytes = fs.readFile(`/c/${big}`);
    bytes[Math.floor(bytes.length / 3)]! ^= 0xff;
    fs.writeFile(`/c/${big}`, bytes);
    // The small one loses its footer.
    const cut = fs.readFile(`/c/${small}`);
    fs.writeFile(`/c/${small}`, cut.subarray(0, cut.length - 20));
    removeManifest(fs, "/c");
    const report = await repair("/c", { fs });
    expect(report.dropped).toEqual([
      { file: small, reason: expect.stringMatching(/does not open/) },
    ]);
    const salvaged = report.tables.find((t) => t.kind === "salvaged")!;
    expect(salvaged.source).toBe(big);
    expect(salvaged.reason).toMatch(/read fails after \d+ entries/);
    expect(salvaged.entries).toBeGreaterThan(100);
    expect(salvaged.entries).toBeLessThan(3000);
    expect(report.moved.map((m) => m.file)).toEqual(expect.arrayContaining([big, small]));
    expect(fs.exists(`/c/lost/${big}`)).toBe(true);
    expect(report.lines.join("\n")).toMatch(/salvaged/);
    const reopened = await DB.open("/c", { fs, createIfMissing: false });
    expect(text(reopened.get(key(0)))).toBe(`value-0-${"y".repeat(40)}`);
    let n = 0;
    for (const _ of reopened.iterator()) n++;
    expect(n).toBe(salvaged.entries);
    await reopened.close();
  });

  it("refuses an open database, a directory without one, and options that do not apply", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/d", { fs });
    await expect(repair("/d", { fs })).rejects.toMatchObject({ code: ErrorCode.Busy });
    await db.close();
    fs.mkdir("/empty");
    await expect(repair("/empty", { fs })).rejects.toMatchObject({
      code: ErrorCode.InvalidArgument,
    });
    await expect(repair("/d", { fs, readOnly: true } as never)).rejects.toThrow(/readOnly/);
    await expect(repair("")).rejects.toThrow(TypeError);
  });
});
