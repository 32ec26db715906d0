import { MemoryFileSystem, ShaleError } from "@shale/base";
import { describe, expect, it } from "vitest";
import { parseCurrent, readCurrent } from "./current-file.js";
import { listColumnFamilies } from "./list-families.js";

const corruption = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return ShaleError.isInstance(e) ? `${e.code}: ${e.message}` : String(e);
  }
  return "no error";
};

describe("the CURRENT file", () => {
  it("names a MANIFEST by its number, with the newline RocksDB writes", () => {
    expect(parseCurrent("MANIFEST-000005\n")).toBe(5);
    expect(parseCurrent("MANIFEST-123456789\n")).toBe(123456789);
  });

  it("anything else is Corruption quoting the text", () => {
    for (const text of ["MANIFEST-000005", "", "\n", "000005.log\n", "MANIFEST-x\n", "CURRENT\n"])
      expect(corruption(() => parseCurrent(text))).toMatch(
        /^Corruption: .*does not name a MANIFEST/,
      );
  });

  it("readCurrent: a missing MANIFEST is Corruption only when it is required", () => {
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    fs.writeFile("/db/CURRENT", new TextEncoder().encode("MANIFEST-000007\n"));
    expect(readCurrent(fs, "/db")).toBe(7);
    expect(corruption(() => readCurrent(fs, "/db", true))).toMatch(
      /^Corruption: .*CURRENT names a missing MANIFEST-000007/,
    );
  });

  it("listing column families reads CURRENT as strictly as recovery", () => {
    const fs = new MemoryFileSystem();
    fs.mkdir("/db");
    fs.writeFile("/db/CURRENT", new TextEncoder().encode("not a manifest"));
    expect(corruption(() => listColumnFamilies(fs, "/db"))).toMatch(/does not name a MANIFEST/);
  });
});
