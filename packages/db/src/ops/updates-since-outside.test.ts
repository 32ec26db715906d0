/**
 * The change feed read from outside the database (`updatesSinceIn`, `readBatchData` of
 * internal.ts, as @shale/replication's publisher worker reads it): the same batches as
 * `db.getUpdatesSince`, byte for byte, while the database goes on writing, rolling and
 * archiving its WALs; `readBatchData` returns each batch once, then undefined, and throws
 * Closed once the feed is closed; a sequence past the last one the caller knows is NotFound.
 */
import { MemoryFileSystem, ShaleError } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { fileSystemOf, readBatchData, updatesSinceIn } from "../internal.js";
import { WriteBatch } from "../write/write-batch.js";

const options = { writeBufferSize: 64 * 1024, walTtlSeconds: 3600 } as const;

describe("updatesSinceIn / readBatchData", () => {
  it("reads the batches db.getUpdatesSince reads, while the database writes on", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(50), fc.nat(2000), fc.boolean()), {
          minLength: 1,
          maxLength: 120,
        }),
        fc.nat(),
        async (writes, pick) => {
          const fs = new MemoryFileSystem();
          const db = await DB.open("/db", { fs, ...options });
          expect(fileSystemOf(db)).toBe(fs);
          const from = 1 + (pick % writes.length);
          let outside: ReturnType<typeof updatesSinceIn> | undefined;
          const got: Uint8Array[] = [];
          for (let i = 0; i < writes.length; i++) {
            const [k, n, batch] = writes[i]!;
            // Large values now and then: memtable switches and WAL rolls mid-run.
            const value = "v".repeat(n % 5 === 0 ? n * 20 : 8);
            if (batch) db.write(new WriteBatch().put(`k${k}`, value).delete(`k${k + 1}`));
            else db.put(`k${k}`, value);
            if (i === from - 1) outside = updatesSinceIn("/db", fs, from, db.latestSequence);
            if (outside !== undefined && i % 7 === 0) {
              for (let d = readBatchData(outside); d !== undefined; d = readBatchData(outside))
                got.push(d.slice());
              if (i % 3 === 0) await db.flush(); // WALs move into the archive meanwhile
            }
          }
          for (let d = readBatchData(outside!); d !== undefined; d = readBatchData(outside!))
            got.push(d.slice());
          outside!.close();
          const want = [...db.getUpdatesSince(from)].map((u) => u.batch.data());
          expect(got).toEqual(want);
          await db.close();
        },
      ),
      { numRuns: 30 },
    );
  }, 120_000);

  it("returns each batch once, then undefined; refuses a closed feed and a later sequence", async () => {
    const fs = new MemoryFileSystem();
    const db = await DB.open("/db", { fs, ...options });
    db.put("a", "1");
    db.put("b", "2");
    const feed = updatesSinceIn("/db", fs, 1, db.latestSequence);
    expect(WriteBatch.fromData(readBatchData(feed)!.slice()).sequence).toBe(1);
    expect(WriteBatch.fromData(readBatchData(feed)!.slice()).sequence).toBe(2);
    expect(readBatchData(feed)).toBeUndefined();
    feed.close();
    expect(() => readBatchData(feed)).toThrow(/closed/);
    try {
      updatesSinceIn("/db", fs, 4, db.latestSequence);
      expect.unreachable();
    } catch (e) {
      expect(ShaleError.isInstance(e) && e.code).toBe("NotFound");
    }
    await db.close();
  });
});
