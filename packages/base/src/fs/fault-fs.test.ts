import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ErrorCode } from "../errors.js";
import { errorCode, expectIoError } from "../testing/expect-error.js";
import { FaultInjectionFileSystem } from "./fault-fs.js";
import { type FileSystem, joinPath } from "./file-system.js";
import { MemoryFileSystem } from "./memory-fs.js";
import { NodeFileSystem } from "./node-fs.js";

const bytes = (n: number, fill: number): Uint8Array => new Uint8Array(n).fill(fill);
const text = (s: string): Uint8Array => new TextEncoder().encode(s);

const inners: [string, () => { inner: FileSystem; root: string; cleanup: () => void }][] = [
  ["memory", () => ({ inner: new MemoryFileSystem(), root: "/db", cleanup: () => {} })],
  [
    "node",
    () => {
      const root = mkdtempSync(join(tmpdir(), "shale-fault-"));
      return {
        inner: new NodeFileSystem(),
        root,
        cleanup: () => rmSync(root, { recursive: true, force: true }),
      };
    },
  ],
];

describe.each(inners)("FaultInjectionFileSystem over %s", (_name, make) => {
  let inner: FileSystem;
  let fs: FaultInjectionFileSystem;
  let root: string;
  let cleanup: () => void;
  const at = (...parts: string[]): string => joinPath(root, ...parts);

  beforeEach(() => {
    ({ inner, root, cleanup } = make());
    inner.mkdir(root);
    fs = new FaultInjectionFileSystem(inner);
  });
  afterEach(() => cleanup());

  describe("power cut", () => {
    it("a hard link is a new name: lost in a power cut unless its directory was synced", () => {
      fs.writeFile(at("000005.sst"), bytes(64, 9), { sync: true });
      fs.syncDir(root);
      fs.mkdir(at("ck"));
      fs.link(at("000005.sst"), at("ck", "000005.sst"));
      fs.link(at("000005.sst"), at("kept.sst"));
      fs.syncDir(root);
      fs.dropUnsyncedData();
      expect(inner.exists(at("ck", "000005.sst"))).toBe(false);
      expect(inner.readFile(at("kept.sst"))).toEqual(bytes(64, 9));
      expect(inner.readFile(at("000005.sst"))).toEqual(bytes(64, 9));
      fs.setFilesystemActive(false);
      expectIoError(() => fs.link(at("000005.sst"), at("other.sst")), "EIO");
      expectIoError(() => fs.removeDir(at("ck")), "EIO");
    });

    it("drops exactly the unsynced tail and kills open handles", () => {
      const wal = fs.openWritable(at("000001.log"));
      wal.append(bytes(100, 1));
      wal.sync();
      fs.syncDir(root);
      wal.append(bytes(50, 2));
      wal.flush();
      wal.append(bytes(7, 3)); // still buffered in the handle
      expect(inner.fileSize(at("000001.log"))).toBe(150);
      fs.dropUnsyncedData();
      expect(inner.readFile(at("000001.log"))).toEqual(bytes(100, 1));
      expectIoError(() => wal.append(bytes(1, 4)), "EIO");
      expectIoError(() => wal.sync(), "EIO");
      wal.close(); // does not throw, writes nothing
      expect(inner.fileSize(at("000001.log"))).toBe(100);
    });

    it("keeps synced data and files that existed before", () => {
      inner.writeFile(at("old"), text("durable already"));
      fs.writeFile(at("synced"), text("synced"), { sync: true });
      fs.syncDir(root);
      fs.dropUnsyncedData();
      expect(new TextDecoder().decode(inner.readFile(at("old")))).toBe("durable already");
      expect(new TextDecoder().decode(inner.readFile(at("synced")))).toBe("synced");
    });

    it("deletes new files whose directory was never synced, even with synced data", () => {
      fs.mkdir(at("sub"));
      const f = fs.openWritable(at("sub", "new"));
      f.append(text("data"));
      f.sync();
      f.close();
      fs.writeFile(at("kept"), text("k"), { sync: true });
      fs.syncDir(root); // syncs root, not sub
      fs.dropUnsyncedData();
      expect(inner.exists(at("sub", "new"))).toBe(false);
      expect(inner.exists(at("kept"))).toBe(true);
    });

    it("a file rewritten without sync loses its contents", () => {
      fs.writeFile(at("CURRENT"), text("MANIFEST-1"), { sync: true });
      fs.syncDir(root);
      fs.writeFile(at("CURRENT"), text("MANIFEST-2"));
      fs.dropUnsyncedData();
      expect(inner.fileSize(at("CURRENT"))).toBe(0);
    });

    it("an append-mode reopen keeps the durable prefix", () => {
      fs.writeFile(at("log"), text("abc"), { sync: true });
      fs.syncDir(root);
      const f = fs.openWritable(at("log"), { append: true });
      f.append(text("def"));
      f.close();
      fs.dropUnsyncedData();
      expect(new TextDecoder().decode(inner.readFile(at("log")))).toBe("abc");
    });

    it("rename carries state: temp-then-rename needs a syncDir", () => {
      fs.writeFile(at("CURRENT.tmp"), text("MANIFEST-7"), { sync: true });
      fs.rename(at("CURRENT.tmp"), at("CURRENT"));
      fs.dropUnsyncedData();
      expect(inner.exists(at("CURRENT"))).toBe(false);

      fs.writeFile(at("CURRENT.tmp"), text("MANIFEST-8"), { sync: true });
      fs.rename(at("CURRENT.tmp"), at("CURRENT"));
      fs.syncDir(root);
      fs.dropUnsyncedData();
      expect(new TextDecoder().decode(inner.readFile(at("CURRENT")))).toBe("MANIFEST-8");
    });

    it("writing goes on after a power cut through new handles", () => {
      const f = fs.openWritable(at("w"));
      f.append(text("lost"));
      fs.dropUnsyncedData();
      const g = fs.openWritable(at("w"));
      g.append(text("again"));
      g.sync();
      g.close();
      fs.syncDir(root);
      fs.dropUnsyncedData();
      expect(new TextDecoder().decode(inner.readFile(at("w")))).toBe("again");
    });
  });

  describe("failAfter", () => {
    it("fails the n-th write and every later one with the errno, until cleared", () => {
      const f = fs.openWritable(at("f"), { bufferSize: 0 });
      fs.failAfter("write", 3, "ENOSPC");
      f.append(text("a"));
      f.append(text("b"));
      expectIoError(() => f.append(text("c")), "ENOSPC");
      expectIoError(() => f.append(text("d")), "ENOSPC");
      expectIoError(() => fs.writeFile(at("g"), text("x")), "ENOSPC");
      expect(f.size).toBe(2);
      f.sync(); // syncs are not affected; nothing buffered to write
      fs.clearFaults();
      f.append(text("e"));
      f.close();
      expect(new TextDecoder().decode(inner.readFile(at("f")))).toBe("abe");
      expect(inner.exists(at("g"))).toBe(false);
    });

    it("fails the n-th sync, including syncDir, with the errno", () => {
      const f = fs.openWritable(at("f"));
      fs.failAfter("sync", 2, "EIO");
      f.append(text("a"));
      f.sync();
      f.append(text("b"));
      expectIoError(() => f.sync(), "EIO");
      expectIoError(() => fs.syncDir(root), "EIO");
      expectIoError(() => fs.writeFile(at("g"), text("x"), { sync: true }), "EIO");
      f.append(text("c")); // writes still work
      f.flush();
      expect(new TextDecoder().decode(inner.readFile(at("f")))).toBe("abc");
      f.close();
      fs.clearFaults();
      fs.syncDir(root);
      fs.dropUnsyncedData();
      expect(new TextDecoder().decode(inner.readFile(at("f")))).toBe("a");
    });

    it("'any' counts writes and syncs together; counters see every attempt", () => {
      const before = fs.counters;
      const f = fs.openWritable(at("f"));
      fs.failAfter("any", 3, "EIO");
      f.append(text("a")); // write 1
      f.append(text("b")); // write 2
      expectIoError(() => f.sync(), "EIO"); // its flush is write 3
      expectIoError(() => fs.syncDir(root), "EIO"); // sync 1
      const after = fs.counters;
      expect(after.writes - before.writes).toBe(3);
      expect(after.syncs - before.syncs).toBe(1);
      fs.clearFaults();
      f.close();
    });

    it("rejects n < 1", () => {
      expect(errorCode(() => fs.failAfter("write", 0, "EIO"))).toBe(ErrorCode.InvalidArgument);
    });
  });

  describe("short writes", () => {
    it("a chosen OS write accepts a prefix; the handle sends the rest once", () => {
      const f = fs.openWritable(at("f"), { bufferSize: 64 });
      const data = bytes(40, 7);
      const calls = fs.counters.osWrites;
      fs.shortWriteAt(1, 5);
      f.append(data);
      f.flush();
      expect(fs.counters.osWrites - calls).toBe(2); // 5 bytes, then the other 35
      f.close();
      expect(inner.readFile(at("f"))).toEqual(data);
    });

    it("random short writes never change what lands (buffered and direct appends)", () => {
      fs.shortWrites({ probability: 0.7, seed: 42 });
      const f = fs.openWritable(at("f"), { bufferSize: 100 });
      const expected: number[] = [];
      for (let i = 0; i < 60; i++) {
        const chunk = bytes(1 + ((i * 37) % 250), i);
        f.append(chunk);
        expected.push(...chunk);
        if (i % 7 === 0) f.flush();
      }
      f.sync();
      f.close();
      expect([...inner.readFile(at("f"))]).toEqual(expected);
      expect(fs.counters.osWrites).toBeGreaterThan(60);
    });

    it("property: whatever the short writes, buffer size and flushes, the file is the bytes once", () => {
      let n = 0;
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 1_000_000 }),
          fc.double({ min: 0, max: 1, noNaN: true }),
          fc.integer({ min: 0, max: 300 }),
          fc.array(fc.tuple(fc.integer({ min: 0, max: 500 }), fc.boolean()), { maxLength: 25 }),
          (seed, probability, bufferSize, appends) => {
            fs.shortWrites({ probability, seed });
            const path = at(`p${n++}`);
            const f = fs.openWritable(path, { bufferSize });
            const expected: number[] = [];
            appends.forEach(([size, flush], i) => {
              const chunk = bytes(size, i);
              f.append(chunk);
              expected.push(...chunk);
              if (flush) f.flush();
            });
            f.close();
            fs.clearFaults();
            expect([...inner.readFile(path)]).toEqual(expected);
          },
        ),
        { numRuns: 60 },
      );
    });

    it("validates its arguments", () => {
      expect(errorCode(() => fs.shortWrites({ probability: 2 }))).toBe(ErrorCode.InvalidArgument);
      expect(errorCode(() => fs.shortWriteAt(0))).toBe(ErrorCode.InvalidArgument);
      expect(errorCode(() => fs.shortWriteAt(1, 0))).toBe(ErrorCode.InvalidArgument);
    });
  });

  describe("full disk (failWritesAfterBytes)", () => {
    it("lands the bytes that fit, then ENOSPC; the handle never sends them again", () => {
      const f = fs.openWritable(at("f"), { bufferSize: 64 });
      f.append(bytes(10, 1));
      f.flush();
      fs.failWritesAfterBytes(25);
      f.append(bytes(40, 2)); // buffered: 40 bytes
      expectIoError(() => f.flush(), "ENOSPC");
      const landed = [...bytes(10, 1), ...bytes(40, 2).subarray(0, 25)];
      expect([...inner.readFile(at("f"))]).toEqual(landed);
      expect(f.size).toBe(35);
      fs.clearFaults(); // space freed: the failed handle still writes nothing
      expectIoError(() => f.flush(), "ENOSPC");
      expectIoError(() => f.append(text("x")), "ENOSPC");
      expectIoError(() => f.sync(), "ENOSPC");
      f.close(); // releases the handle quietly
      expect([...inner.readFile(at("f"))]).toEqual(landed);
    });

    it("counts bytes over every file and fails a write past the limit with nothing", () => {
      const a = fs.openWritable(at("a"), { bufferSize: 0 });
      const b = fs.openWritable(at("b"), { bufferSize: 0 });
      fs.failWritesAfterBytes(30, "EIO");
      a.append(bytes(20, 1));
      expectIoError(() => b.append(bytes(20, 2)), "EIO");
      expect(inner.fileSize(at("b"))).toBe(10);
      const c = fs.openWritable(at("c"), { bufferSize: 0 });
      expectIoError(() => c.append(bytes(1, 3)), "EIO");
      expect(inner.fileSize(at("c"))).toBe(0);
      for (const f of [a, b, c]) f.close();
    });

    it("writeFile keeps the prefix that fits, synced or not", () => {
      fs.failWritesAfterBytes(8);
      fs.writeFile(at("w"), bytes(5, 1));
      expectIoError(() => fs.writeFile(at("x"), bytes(5, 2), { sync: true }), "ENOSPC");
      expect(inner.readFile(at("w"))).toEqual(bytes(5, 1));
      expect(inner.readFile(at("x"))).toEqual(bytes(5, 2).subarray(0, 3));
      expectIoError(() => fs.writeFile(at("y"), bytes(1, 3)), "ENOSPC");
      expect(inner.fileSize(at("y"))).toBe(0);
    });

    it("rejects a negative limit", () => {
      expect(errorCode(() => fs.failWritesAfterBytes(-1))).toBe(ErrorCode.InvalidArgument);
    });
  });

  describe("inactive file system", () => {
    it("fails writes, syncs and metadata changes but not reads", () => {
      fs.writeFile(at("a"), text("a"), { sync: true });
      const f = fs.openWritable(at("b"));
      fs.setFilesystemActive(false);
      expectIoError(() => f.append(text("x")), "EIO");
      expectIoError(() => f.sync(), "EIO");
      expectIoError(() => fs.syncDir(root), "EIO");
      expectIoError(() => fs.openWritable(at("c")), "EIO");
      expectIoError(() => fs.writeFile(at("c"), text("c")), "EIO");
      expectIoError(() => fs.rename(at("a"), at("c")), "EIO");
      expectIoError(() => fs.remove(at("a")), "EIO");
      expectIoError(() => fs.truncate(at("a"), 0), "EIO");
      expectIoError(() => fs.mkdir(at("d")), "EIO");
      expect(new TextDecoder().decode(fs.readFile(at("a")))).toBe("a");
      expect(fs.list(root)).toEqual(["a", "b"]);
      fs.setFilesystemActive(true);
      f.append(text("x"));
      f.close();
      expect(fs.fileSize(at("b"))).toBe(1);
    });

    it("uses the given errno", () => {
      fs.setFilesystemActive(false, "ENOSPC");
      expectIoError(() => fs.writeFile(at("a"), text("a")), "ENOSPC");
      fs.clearFaults();
      fs.writeFile(at("a"), text("a"));
    });
  });

  describe("corrupt", () => {
    it("flips the byte at the offset, and only it", () => {
      fs.writeFile(at("t"), new Uint8Array([0x00, 0x0f, 0xaa, 0x55]), { sync: true });
      const writes = fs.counters.writes;
      fs.corrupt(at("t"), 2);
      expect(inner.readFile(at("t"))).toEqual(new Uint8Array([0x00, 0x0f, 0x55, 0x55]));
      fs.corrupt(at("t"), 1, 0x01);
      expect(inner.readFile(at("t"))).toEqual(new Uint8Array([0x00, 0x0e, 0x55, 0x55]));
      expect(fs.counters.writes).toBe(writes);
      expect(errorCode(() => fs.corrupt(at("t"), 4))).toBe(ErrorCode.InvalidArgument);
    });
  });
});
