import { describe, expect, it } from "vitest";
import { ErrorCode, isShaleError } from "../errors.js";
import { MemoryFileSystem } from "./memory-fs.js";
import { normalizePath } from "./normalize-path.js";

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const str = (b: Uint8Array): string => new TextDecoder().decode(b);

function causeCode(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    expect(isShaleError(err, ErrorCode.IOError)).toBe(true);
    return (err as { cause?: { code?: unknown } }).cause?.code;
  }
  throw new Error("expected the call to throw");
}

describe("normalizePath", () => {
  it.each([
    ["/a//b/./c/", "/a/b/c"],
    ["a/b/../c", "a/c"],
    ["/../a", "/a"],
    ["../a", "../a"],
    [".", ""],
    ["/", "/"],
  ])("%s -> %s", (input, expected) => {
    expect(normalizePath(input)).toBe(expected);
  });
});

describe("MemoryFileSystem", () => {
  it("resolves differently spelled paths to the same file", () => {
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    fs.writeFile("/db//x", text("x"));
    expect(str(fs.readFile("/db/./x"))).toBe("x");
    expect(fs.list("/db/")).toEqual(["x"]);
  });

  it("handles follow the file across rename and remove, as inodes do", () => {
    const fs = new MemoryFileSystem();
    const w = fs.openWritable("/a");
    w.append(text("one"));
    fs.rename("/a", "/b");
    w.append(text("two"));
    expect(str(fs.readFile("/b"))).toBe("onetwo");
    const r = fs.openRandomAccess("/b");
    fs.remove("/b");
    const dst = new Uint8Array(6);
    expect(r.read(0, 6, dst)).toBe(6);
    expect(str(dst)).toBe("onetwo");
  });

  it("renames directories with their contents", () => {
    const fs = new MemoryFileSystem();
    fs.mkdir("/a/b");
    fs.writeFile("/a/b/f", text("f"));
    fs.rename("/a", "/z");
    expect(fs.exists("/a")).toBe(false);
    expect(str(fs.readFile("/z/b/f"))).toBe("f");
    expect(causeCode(() => fs.rename("/z", "/z/b/c"))).toBe("EINVAL");
  });

  it("appends many small pieces (amortised growth)", () => {
    const fs = new MemoryFileSystem();
    const w = fs.openWritable("/big");
    const piece = new Uint8Array([1, 2, 3, 4, 5, 6, 7]);
    for (let i = 0; i < 300_000; i++) w.append(piece);
    expect(fs.fileSize("/big")).toBe(2_100_000);
    const tail = new Uint8Array(7);
    fs.openRandomAccess("/big").read(2_099_993, 7, tail);
    expect(tail).toEqual(piece);
  });

  it("zero-fills when growing a file that shrank", () => {
    const fs = new MemoryFileSystem();
    fs.writeFile("/t", text("abcdef"));
    fs.truncate("/t", 1);
    fs.truncate("/t", 3);
    expect([...fs.readFile("/t")]).toEqual([97, 0, 0]);
  });

  it("reports directory misuse with Node's codes", () => {
    const fs = new MemoryFileSystem();
    fs.mkdir("/d");
    fs.writeFile("/f", text("x"));
    expect(causeCode(() => fs.readFile("/d"))).toBe("EISDIR");
    expect(causeCode(() => fs.remove("/d"))).toBe("EISDIR");
    expect(causeCode(() => fs.openWritable("/d"))).toBe("EISDIR");
    expect(causeCode(() => fs.list("/f"))).toBe("ENOTDIR");
    expect(causeCode(() => fs.mkdir("/f"))).toBe("EEXIST");
    expect(causeCode(() => fs.mkdir("/f/g"))).toBe("ENOTDIR");
    expect(causeCode(() => fs.writeFile("/f/g", text("x")))).toBe("ENOTDIR");
  });
});
