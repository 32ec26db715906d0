/**
 * Blob files in two column families with rocksdb-native (RocksDB 10.5.1): the binding writes
 * `default` and `photos` with `enableBlobFiles` (photos: only values of 40 bytes or more, one
 * blob per file; default: every value, blob files of up to 1 MiB) and `plain` without, with
 * overwrites, deletes, a compaction of photos (its blob garbage collection rewrites old blobs
 * into new files and records garbage) and writes left in the WAL. shale opens the directory
 * and reads every key of every family (get, getMany, both scan directions), checks that each
 * family's version lists blob files whose headers name that family, writes into each family,
 * flushes and compacts them (blob indexes carried through), reopens and reads again; the
 * binding reopens shale's MANIFEST and reads every family back. Skipped, with the reason
 * printed, where the binding does not load.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { getFixed32, toHex } from "@shale/base";
import { FormatVersion } from "@shale/sstable";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import {
  filesEnding,
  fromHex,
  shaleReverseScan,
  shaleScan,
  sortedEntries,
  tempDir,
} from "../interop/interop.test-support.js";
import {
  type ProducerPlan,
  type ProducerStep,
  producerUnavailableReason,
  runProducer,
} from "../interop/producers.test-support.js";

const unavailable = producerUnavailableReason("rocksdb-native");
if (unavailable !== undefined)
  console.log(`blob files in column families with rocksdb-native: skipped — ${unavailable}`);

const tableFormatVersion = Math.min(6, FormatVersion.LATEST);
const tmp = tempDir("blob-cf");
afterAll(() => tmp.remove());

const hex = (s: string) => toHex(new TextEncoder().encode(s));
type Model = Map<string, string>;
type Family = Pick<DB, "get" | "getMany" | "iterator" | "pinCurrentVersion">;

/** Every get, one getMany and both scans of `family` equal `model`. */
function expectFamily(name: string, family: Family, model: Model): void {
  const want = sortedEntries(model);
  expect(shaleScan(family), `${name} forwards`).toEqual(want);
  expect(shaleReverseScan(family), `${name} backwards`).toEqual([...want].reverse());
  for (const { key, value } of want) {
    const got = family.get(fromHex(key));
    expect(got === undefined ? undefined : toHex(got), `${name} get`).toBe(value);
  }
  const keys = [...model.keys(), hex("no-such-key")];
  expect(
    family.getMany(keys.map(fromHex)).map((v) => (v === undefined ? undefined : toHex(v))),
    `${name} getMany`,
  ).toEqual([...model.values(), undefined]);
}

function blobFilesOf(family: Family): number[] {
  const pin = family.pinCurrentVersion();
  try {
    return [...pin.version.blobFiles.keys()];
  } finally {
    pin.release();
  }
}

/** The column family id in blob file `number`'s header (bytes 8..11). */
function headerFamily(dir: string, number: number): number {
  const fd = openSync(join(dir, `${String(number).padStart(6, "0")}.blob`), "r");
  try {
    const b = new Uint8Array(12);
    readSync(fd, b, 0, 12, 0);
    return getFixed32(b, 8);
  } finally {
    closeSync(fd);
  }
}

/** Steps that put `n` keys into `cf` (values of `size` bytes), recorded in its model. */
function puts(cf: string, model: Model, prefix: string, n: number, size: number): ProducerStep[] {
  const steps: ProducerStep[] = [];
  for (let i = 0; i < n; i++) {
    const key = hex(`${prefix}${String(i).padStart(4, "0")}`);
    const value = hex(`${cf}/${prefix}/${i}/`.padEnd(size, String.fromCharCode(97 + (i % 26))));
    steps.push({ op: "put", cf, key, value });
    model.set(key, value);
  }
  return steps;
}

describe.skipIf(unavailable !== undefined)(
  "blob files in column families with rocksdb-native",
  () => {
    it("the binding writes blob files into two families; shale reads, writes and compacts every family; the binding reads back", async () => {
      const dir = join(tmp.path, "db");
      const families = ["default", "photos", "plain"];
      const blobFamilies = ["default", "photos"];
      const models = new Map<string, Model>(families.map((cf) => [cf, new Map()]));
      const columnFamilies: ProducerPlan["columnFamilies"] = {
        default: {
          tableFormatVersion,
          enableBlobFiles: true,
          minBlobSize: 0,
          blobFileSize: 1 << 20,
        },
        photos: { tableFormatVersion, enableBlobFiles: true, minBlobSize: 40, blobFileSize: 0 },
        plain: { tableFormatVersion },
      };
      const steps: ProducerStep[] = [];
      for (const cf of families) {
        // photos: every 3rd value under minBlobSize, so its tables mix blob indexes and values.
        const model = models.get(cf)!;
        for (let i = 0; i < 24; i++)
          steps.push(
            ...puts(cf, model, `k${String(i).padStart(2, "0")}-`, 1, i % 3 === 0 ? 20 : 90),
          );
        steps.push({ op: "flush", cf });
      }
      for (const cf of families) {
        const model = models.get(cf)!;
        steps.push(...puts(cf, model, "k05-", 1, 120)); // an overwrite
        steps.push({ op: "delete", cf, key: hex("k07-0000") });
        model.delete(hex("k07-0000"));
        steps.push(...puts(cf, model, "later-", 6, 70));
        steps.push({ op: "flush", cf });
      }
      steps.push({ op: "compact", cf: "photos" });
      // Left in the WAL: values the next flush (shale's) writes inline.
      for (const cf of families) steps.push(...puts(cf, models.get(cf)!, "wal-", 3, 80));
      runProducer("rocksdb-native", {
        dir,
        options: { createIfMissing: true, createMissingColumnFamilies: true },
        columnFamilies,
        steps,
      });
      expect(filesEnding(dir, ".blob").length).toBeGreaterThan(10);

      const check = (db: DB) => {
        expect(db.listColumnFamilies().sort()).toEqual([...families].sort());
        for (const cf of families) expectFamily(cf, db.columnFamily(cf), models.get(cf)!);
      };
      let db = await DB.open(dir, { createIfMissing: false, compression: "none" });
      try {
        check(db);
        // Each blob family's version lists its own blob files, and their headers say so.
        for (const cf of families) {
          const h = db.columnFamily(cf);
          const files = blobFilesOf(h);
          if (!blobFamilies.includes(cf)) {
            expect(files, cf).toEqual([]);
            continue;
          }
          expect(files.length, cf).toBeGreaterThan(0);
          for (const n of files) expect(headerFamily(dir, n), `${cf} ${n}`).toBe(h.id);
        }

        // shale writes (inline values), flushes and compacts each family.
        for (const cf of families) {
          const h = db.columnFamily(cf);
          const model = models.get(cf)!;
          for (let i = 0; i < 5; i++) {
            const key = hex(`shale-${i}`);
            const value = hex(`${cf} from shale ${i}`.padEnd(100, "s"));
            h.put(fromHex(key), fromHex(value));
            model.set(key, value);
          }
          h.delete(fromHex(hex("k10-0000")));
          model.delete(hex("k10-0000"));
          await h.flush();
          await h.compactRange();
        }
        check(db);
        for (const cf of blobFamilies)
          expect(blobFilesOf(db.columnFamily(cf)).length).toBeGreaterThan(0);
      } finally {
        await db.close();
      }
      db = await DB.open(dir, { createIfMissing: false, compression: "none" });
      try {
        check(db);
      } finally {
        await db.close();
      }

      // The binding reopens shale's MANIFEST (its blob records per family) and reads back.
      const readBack: ProducerStep[] = [];
      for (const [cf, model] of models) {
        readBack.push({ op: "scan", cf }, { op: "scan", cf, reverse: true });
        readBack.push({ op: "get", cf, keys: [...model.keys()] });
      }
      const results = runProducer("rocksdb-native", {
        dir,
        options: { createIfMissing: false },
        columnFamilies,
        steps: readBack,
      });
      let i = 0;
      for (const [cf, model] of models) {
        const want = sortedEntries(model).map(({ key, value }) => [key, value]);
        expect(results[i++], `rocksdb-native scan ${cf}`).toEqual(want);
        expect(results[i++], `rocksdb-native reverse scan ${cf}`).toEqual([...want].reverse());
        expect(results[i++], `rocksdb-native get ${cf}`).toEqual([...model.values()]);
      }
    });
  },
);
