/**
 * The FileSystem conformance suite: one set of vitest checks that every `FileSystem` must
 * pass (the contract of fs/file-system.ts), run against each implementation.
 *
 * ```ts
 * describeFileSystemConformance("memory", () => ({ fs: new MemoryFileSystem(), root: "/db" }));
 * ```
 *
 * `makeFs` is called before every test; `root` is created (mkdir) if missing and every path
 * the suite touches lies under it. `cleanup`, if given, runs after every test.
 */

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ErrorCode, isShaleError } from "../errors.js";
import { type FileSystem, joinPath } from "../fs/file-system.js";
import { errorCode, expectIoError, thrown } from "./expect-error.js";

export interface FileSystemUnderTest {
  fs: FileSystem;
  /** A directory the suite may use freely. */
  root: string;
  cleanup?: () => void;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const text = (s: string): Uint8Array => encoder.encode(s);
const str = (b: Uint8Array): string => decoder.decode(b);

/** `n` deterministic pseudo-random bytes. */
function pattern(n: number, seed = 1): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** Asserts equal bytes, cheaply (deep equality on large arrays is slow) and type-blind. */
function expectBytes(actual: Uint8Array, expected: Uint8Array): void {
  let mismatch = -1;
  const n = Math.min(actual.length, expected.length);
  for (let i = 0; i < n && mismatch < 0; i++) if (actual[i] !== expected[i]) mismatch = i;
  expect({ length: actual.length, mismatch }).toEqual({ length: expected.length, mismatch: -1 });
}

/** What a file system under test can do, where the contract lets it decline. */
export interface FileSystemCapabilities {
  /**
   * `link` makes hard links. Default: true. When false the suite checks that `link` is
   * IOError ENOTSUP, as the contract asks of storage without hard links.
   */
  hardLinks?: boolean;
}

export function describeFileSystemConformance(
  name: string,
  makeFs: () => FileSystemUnderTest,
  capabilities: FileSystemCapabilities = {},
): void {
  describe(`FileSystem conformance: ${name}`, () => {
    let fs: FileSystem;
    let root: string;
    let cleanup: (() => void) | undefined;
    const at = (...parts: string[]): string => joinPath(root, ...parts);

    beforeEach(() => {
      const made = makeFs();
      fs = made.fs;
      root = made.root;
      cleanup = made.cleanup;
      fs.mkdir(root);
    });

    afterEach(() => cleanup?.());

    describe("WritableFile", () => {
      it("appends, flushes and reads back; size counts unflushed bytes", () => {
        const file = fs.openWritable(at("a"));
        expect(file.size).toBe(0);
        file.append(text("hello"));
        file.append(text(">> world <<"), 2, 8);
        expect(file.size).toBe(11);
        file.flush();
        expect(str(fs.readFile(at("a")))).toBe("hello world");
        file.append(text("!"));
        file.close();
        expect(str(fs.readFile(at("a")))).toBe("hello world!");
        expect(fs.fileSize(at("a"))).toBe(12);
      });

      it("writes appends of every size with any buffer size", () => {
        const data = pattern(200_000);
        for (const bufferSize of [0, 1, 7, 4096, undefined]) {
          const path = at(`buf-${bufferSize}`);
          const file = fs.openWritable(path, bufferSize === undefined ? {} : { bufferSize });
          let pos = 0;
          for (let step = 1; pos < data.length; step = (step * 7 + 3) % 10_007) {
            const end = Math.min(data.length, pos + step);
            file.append(data, pos, end);
            pos = end;
          }
          expect(file.size).toBe(data.length);
          file.close();
          expectBytes(fs.readFile(path), data);
        }
      });

      it("sync makes the data readable and the file stays appendable", () => {
        const file = fs.openWritable(at("s"));
        file.append(text("one"));
        file.sync();
        expect(str(fs.readFile(at("s")))).toBe("one");
        file.append(text("two"));
        file.sync();
        file.close();
        expect(str(fs.readFile(at("s")))).toBe("onetwo");
      });

      it("truncates an existing file by default and continues it with append", () => {
        fs.writeFile(at("t"), text("abc"));
        const appended = fs.openWritable(at("t"), { append: true });
        expect(appended.size).toBe(3);
        appended.append(text("de"));
        expect(appended.size).toBe(5);
        appended.close();
        expect(str(fs.readFile(at("t")))).toBe("abcde");
        fs.openWritable(at("t")).close();
        expect(fs.fileSize(at("t"))).toBe(0);
        const created = fs.openWritable(at("new"), { append: true });
        created.append(text("x"));
        created.close();
        expect(str(fs.readFile(at("new")))).toBe("x");
      });

      it("creates empty files", () => {
        fs.openWritable(at("empty")).close();
        expect(fs.exists(at("empty"))).toBe(true);
        expect(fs.readFile(at("empty")).length).toBe(0);
      });

      it("close is idempotent; writing after close is an IOError", () => {
        const file = fs.openWritable(at("c"));
        file.append(text("x"));
        file.close();
        file.close();
        expectIoError(() => file.append(text("y")), "EBADF");
        expect(str(fs.readFile(at("c")))).toBe("x");
      });

      it("rejects bad ranges, offsets and sizes as InvalidArgument", () => {
        const file = fs.openWritable(at("r"));
        expect(errorCode(() => file.append(text("abc"), 2, 5))).toBe(ErrorCode.InvalidArgument);
        expect(errorCode(() => file.append(text("abc"), 2, 1))).toBe(ErrorCode.InvalidArgument);
        file.append(text("abc"));
        file.close();
        const dst = new Uint8Array(4);
        const ra = fs.openRandomAccess(at("r"));
        expect(errorCode(() => ra.read(-1, 1, dst))).toBe(ErrorCode.InvalidArgument);
        expect(errorCode(() => ra.read(0, 4, dst, 1))).toBe(ErrorCode.InvalidArgument);
        ra.close();
        const seq = fs.openSequential(at("r"));
        expect(errorCode(() => seq.skip(-1))).toBe(ErrorCode.InvalidArgument);
        expect(errorCode(() => seq.read(dst, 5))).toBe(ErrorCode.InvalidArgument);
        seq.close();
        expect(errorCode(() => fs.truncate(at("r"), -1))).toBe(ErrorCode.InvalidArgument);
        expect(errorCode(() => fs.openWritable(at("x"), { bufferSize: -1 }))).toBe(
          ErrorCode.InvalidArgument,
        );
      });
    });

    describe("RandomAccessFile", () => {
      it("reads at offsets; short counts past the end", () => {
        const data = pattern(1000, 7);
        fs.writeFile(at("ra"), data);
        const file = fs.openRandomAccess(at("ra"));
        expect(file.size).toBe(1000);
        const dst = new Uint8Array(100);
        expect(file.read(10, 50, dst)).toBe(50);
        expectBytes(dst.subarray(0, 50), data.subarray(10, 60));
        expect(file.read(500, 20, dst, 30)).toBe(20);
        expectBytes(dst.subarray(30, 50), data.subarray(500, 520));
        expect(file.read(950, 100, dst)).toBe(50);
        expectBytes(dst.subarray(0, 50), data.subarray(950));
        expect(file.read(1000, 10, dst)).toBe(0);
        expect(file.read(5000, 10, dst)).toBe(0);
        expect(file.read(0, 0, dst)).toBe(0);
        file.close();
      });

      it("reads a large file at random offsets", () => {
        const data = pattern(300_000, 3);
        fs.writeFile(at("big"), data);
        const file = fs.openRandomAccess(at("big"));
        const dst = new Uint8Array(70_000);
        for (let i = 0; i < 40; i++) {
          const offset = (i * 104_729) % data.length;
          const length = (i * 7_919) % dst.length;
          const n = file.read(offset, length, dst);
          expect(n).toBe(Math.min(length, data.length - offset));
          expectBytes(dst.subarray(0, n), data.subarray(offset, offset + n));
        }
        file.close();
      });
    });

    describe("SequentialFile", () => {
      it("reads forward, skips, and returns 0 at the end", () => {
        const data = pattern(100, 9);
        fs.writeFile(at("seq"), data);
        const file = fs.openSequential(at("seq"));
        const dst = new Uint8Array(30);
        expect(file.read(dst)).toBe(30);
        expectBytes(dst, data.subarray(0, 30));
        file.skip(10);
        expect(file.read(dst, 5, 20)).toBe(20);
        expectBytes(dst.subarray(5, 25), data.subarray(40, 60));
        expect(file.read(dst, 10)).toBe(20);
        expectBytes(dst.subarray(10, 30), data.subarray(60, 80));
        expect(file.read(dst)).toBe(20);
        expectBytes(dst.subarray(0, 20), data.subarray(80, 100));
        expect(file.read(dst)).toBe(0);
        file.close();
      });

      it("skipping past the end reads nothing", () => {
        fs.writeFile(at("seq2"), text("abc"));
        const file = fs.openSequential(at("seq2"));
        file.skip(10);
        expect(file.read(new Uint8Array(4))).toBe(0);
        file.close();
      });
    });

    describe("whole files", () => {
      it("writeFile and readFile round-trip, replace, and copy", () => {
        const input = text("first version");
        fs.writeFile(at("w"), input);
        input[0] = 0;
        const read = fs.readFile(at("w"));
        expect(str(read)).toBe("first version");
        read[0] = 0;
        expect(str(fs.readFile(at("w")))).toBe("first version");
        fs.writeFile(at("w"), text("v2"), { sync: true });
        expect(str(fs.readFile(at("w")))).toBe("v2");
        fs.writeFile(at("e"), new Uint8Array(0), { sync: true });
        expect(fs.fileSize(at("e"))).toBe(0);
      });
    });

    describe("metadata", () => {
      it("exists and fileSize", () => {
        expect(fs.exists(at("f"))).toBe(false);
        fs.writeFile(at("f"), pattern(123));
        expect(fs.exists(at("f"))).toBe(true);
        expect(fs.fileSize(at("f"))).toBe(123);
        fs.mkdir(at("d"));
        expect(fs.exists(at("d"))).toBe(true);
        expect(fs.exists(root)).toBe(true);
      });

      it("rename moves a file and replaces the target", () => {
        fs.writeFile(at("from"), text("new"));
        fs.writeFile(at("to"), text("old contents"));
        fs.rename(at("from"), at("to"));
        expect(fs.exists(at("from"))).toBe(false);
        expect(str(fs.readFile(at("to")))).toBe("new");
        fs.mkdir(at("sub"));
        fs.rename(at("to"), at("sub", "moved"));
        expect(str(fs.readFile(at("sub", "moved")))).toBe("new");
        expect(fs.list(root)).toEqual(["sub"]);
      });

      it("link gives a file a second name (removing one keeps the other), or is ENOTSUP", () => {
        fs.writeFile(at("orig"), text("shared"));
        if (capabilities.hardLinks === false) {
          expectIoError(() => fs.link(at("orig"), at("alias")), "ENOTSUP");
          expect(fs.list(root)).toEqual(["orig"]);
          return;
        }
        fs.link(at("orig"), at("alias"));
        expect(str(fs.readFile(at("alias")))).toBe("shared");
        expectIoError(() => fs.link(at("orig"), at("alias")), "EEXIST");
        expectIoError(() => fs.link(at("missing"), at("x")), "ENOENT");
        fs.remove(at("orig"));
        expect(str(fs.readFile(at("alias")))).toBe("shared");
        expect(fs.list(root)).toEqual(["alias"]);
      });

      it("removeDir removes an empty directory only", () => {
        fs.mkdir(at("rd", "inner"));
        expectIoError(() => fs.removeDir(at("rd")), "ENOTEMPTY");
        fs.removeDir(at("rd", "inner"));
        fs.removeDir(at("rd"));
        expect(fs.exists(at("rd"))).toBe(false);
        expectIoError(() => fs.removeDir(at("rd")), "ENOENT");
      });

      it("remove deletes a file", () => {
        fs.writeFile(at("gone"), text("x"));
        fs.remove(at("gone"));
        expect(fs.exists(at("gone"))).toBe(false);
        expect(fs.list(root)).toEqual([]);
      });

      it("truncate shrinks and zero-extends", () => {
        fs.writeFile(at("tr"), text("abcdef"));
        fs.truncate(at("tr"), 2);
        expect(str(fs.readFile(at("tr")))).toBe("ab");
        fs.truncate(at("tr"), 5);
        expectBytes(fs.readFile(at("tr")), new Uint8Array([97, 98, 0, 0, 0]));
        fs.truncate(at("tr"), 0);
        expect(fs.fileSize(at("tr"))).toBe(0);
      });

      it("list returns sorted names of files and directories", () => {
        for (const n of ["b", "a", "c10", "c9", "A", "000012.log"]) fs.writeFile(at(n), text(n));
        fs.mkdir(at("sub", "deeper"));
        fs.writeFile(at("sub", "inner"), text("x"));
        expect(fs.list(root)).toEqual(["000012.log", "A", "a", "b", "c10", "c9", "sub"]);
        expect(fs.list(at("sub"))).toEqual(["deeper", "inner"]);
        expect(fs.list(at("sub", "deeper"))).toEqual([]);
      });

      it("mkdir creates parents and accepts existing directories", () => {
        fs.mkdir(at("x", "y", "z"));
        fs.mkdir(at("x", "y", "z"));
        fs.mkdir(at("x"));
        fs.writeFile(at("x", "y", "z", "f"), text("deep"));
        expect(str(fs.readFile(at("x", "y", "z", "f")))).toBe("deep");
      });

      it("syncDir accepts directories", () => {
        fs.mkdir(at("sd"));
        fs.writeFile(at("sd", "f"), text("x"), { sync: true });
        fs.syncDir(at("sd"));
        fs.syncDir(root);
      });
    });

    describe("errors", () => {
      it("missing files are IOError ENOENT", () => {
        const missing = at("missing");
        expectIoError(() => fs.openRandomAccess(missing), "ENOENT");
        expectIoError(() => fs.openSequential(missing), "ENOENT");
        expectIoError(() => fs.readFile(missing), "ENOENT");
        expectIoError(() => fs.fileSize(missing), "ENOENT");
        expectIoError(() => fs.remove(missing), "ENOENT");
        expectIoError(() => fs.truncate(missing, 0), "ENOENT");
        expectIoError(() => fs.rename(missing, at("other")), "ENOENT");
      });

      it("missing directories are IOError ENOENT", () => {
        const dir = at("nodir");
        expectIoError(() => fs.list(dir), "ENOENT");
        expectIoError(() => fs.syncDir(dir), "ENOENT");
        expectIoError(() => fs.openWritable(joinPath(dir, "f")), "ENOENT");
        expectIoError(() => fs.writeFile(joinPath(dir, "f"), text("x")), "ENOENT");
        expect(fs.exists(dir)).toBe(false);
      });

      it("the error names the file", () => {
        const err = thrown(() => fs.readFile(at("missing")));
        expect(isShaleError(err) && err.file).toContain("missing");
      });
    });

    describe("lock", () => {
      it("a held lock is Busy until released", () => {
        const path = at("LOCK");
        const lock = fs.lock(path);
        expect(lock.path).toBe(path);
        expect(fs.exists(path)).toBe(true);
        expect(errorCode(() => fs.lock(path))).toBe(ErrorCode.Busy);
        lock.release();
        lock.release();
        const again = fs.lock(path);
        again.release();
      });

      it("different lock files are independent", () => {
        fs.mkdir(at("other"));
        const a = fs.lock(at("LOCK"));
        const b = fs.lock(at("other", "LOCK"));
        a.release();
        b.release();
      });

      it("locking in a missing directory is an IOError", () => {
        expectIoError(() => fs.lock(at("nodir", "LOCK")), "ENOENT");
      });
    });
  });
}
