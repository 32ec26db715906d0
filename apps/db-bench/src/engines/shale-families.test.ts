/** --num_column_families on the shale engine: each key in its family, reads find it there. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DB } from "shale";
import { afterEach, describe, expect, it } from "vitest";
import { KeyGenerator } from "../generators.js";
import { BatchOps, PUT, type ReadTally } from "./engine.js";
import { ShaleEngine } from "./shale.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const OPTIONS = {
  sync: false,
  disableWal: false,
  writeBufferSize: 1 << 20,
  statistics: false,
  cacheSize: 1 << 20,
  bloomBits: -1,
  blockSize: 4096,
  compression: "none" as const,
  mergeOperator: undefined,
  disableAutoCompactions: false,
};

describe("shale engine with --num_column_families", () => {
  it("puts key i into family i mod n (puts and batches), and reads it back from there", async () => {
    const dir = mkdtempSync(join(tmpdir(), "db-bench-cf-"));
    dirs.push(dir);
    const engine = new ShaleEngine();
    await engine.open(dir, { ...OPTIONS, numColumnFamilies: 3 });
    const keys = new KeyGenerator(16);
    const value = new Uint8Array(10).fill(7);
    for (let i = 0; i < 30; i++) engine.put(keys.key(i), value);
    const batch = new BatchOps();
    for (let i = 30; i < 60; i++) {
      batch.kinds.push(PUT);
      batch.keys.push(Uint8Array.from(keys.key(i)));
      batch.values.push(value);
    }
    engine.write(batch);
    for (let i = 0; i < 60; i++) expect(engine.get(keys.key(i))).toBe(10);
    expect(engine.get(keys.key(60))).toBe(-1);
    const tally: ReadTally = { found: 0, bytes: 0 };
    engine.getMany(
      [0, 1, 2, 61].map((i) => Uint8Array.from(keys.key(i))),
      tally,
    );
    expect(tally.found).toBe(3);
    await engine.close();

    const db = await DB.open(dir);
    try {
      expect(db.listColumnFamilies()).toEqual(["default", "cf1", "cf2"]);
      for (let i = 0; i < 60; i++) {
        const home = i % 3 === 0 ? "default" : `cf${i % 3}`;
        for (const name of db.listColumnFamilies()) {
          const v = db.columnFamily(name).get(keys.key(i));
          expect(v === undefined ? "absent" : "found", `key ${i} in ${name}`).toBe(
            name === home ? "found" : "absent",
          );
        }
      }
    } finally {
      await db.close();
    }
  });
});
