/**
 * Invariants mode reports what was not closed: a database closed with an iterator still open
 * says so (ShaleUnclosedWarning naming the directory and where the iterator was opened), and
 * table readers and iterators not closed are listed by `unclosedResources`.
 */
import { MemoryFileSystem, unclosedResources } from "@shale/base";
import { TableBuilder, TableReader } from "@shale/sstable";
import { describe, expect, it } from "vitest";
import { DB } from "./db.js";

function warnings(run: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (w: Error) => {
    if (w.name === "ShaleUnclosedWarning") seen.push(w.message);
  };
  process.on("warning", listener);
  return run()
    .then(() => new Promise((resolve) => setImmediate(resolve)))
    .then(() => {
      process.off("warning", listener);
      return seen;
    });
}

describe("unclosed iterators and readers (invariants)", () => {
  it("a database closed with an open iterator warns, naming it", async () => {
    const fs = new MemoryFileSystem();
    const seen = await warnings(async () => {
      const db = await DB.open("/leaky", { fs });
      db.put("a", "1");
      const it = db.iterator();
      it.seekToFirst();
      const closedOne = db.iterator();
      closedOne.close();
      await db.close();
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(
      /database \/leaky closed with 1 iterator\(s\) not closed: DBIterator \(opened at /,
    );
    expect(seen[0]).toContain("unclosed-iterators.test.ts");
  });

  it("a database whose iterators are closed does not", async () => {
    const fs = new MemoryFileSystem();
    const seen = await warnings(async () => {
      const db = await DB.open("/tidy", { fs });
      db.put("a", "1");
      for (const _ of db.iterator()) {
        // for-of closes it
      }
      await db.close();
    });
    expect(seen).toEqual([]);
  });

  it("a table reader and its iterator are listed until closed", () => {
    const fs = new MemoryFileSystem();
    const file = fs.openWritable("/t.sst");
    const b = new TableBuilder(file, {});
    b.add(new Uint8Array([0x61, 1, 0, 0, 0, 0, 0, 0, 0]), new Uint8Array([1]));
    b.finish();
    file.close();
    const reader = TableReader.open(fs.openRandomAccess("/t.sst"), {
      fileName: "/t.sst",
      fileSize: fs.fileSize("/t.sst"),
    });
    const it = reader.newIterator();
    const mine = () => unclosedResources((r) => r === reader || r === it);
    expect(mine().map((d) => d.split(" (")[0])).toEqual([
      "TableReader /t.sst",
      "table iterator of /t.sst",
    ]);
    it.close();
    reader.close();
    expect(mine()).toEqual([]);
  });
});
