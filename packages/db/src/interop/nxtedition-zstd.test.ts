/**
 * zstd both ways with RocksDB 9.7 (@nxtedition/rocksdb, whose defaults are ZSTD tables with a
 * 16 KiB trained dictionary, a ZSTD-compressed WAL, XXH3 and table format_version 6). The
 * binding has no flush call, so it writes a few MiB with a small write buffer
 * (`compaction: "level"`, `memtableMemoryBudget`: levels 0 and 1 stay uncompressed, level 2
 * gets ZSTD tables with dictionaries), waits for its compactions, then leaves more writes
 * only in its compressed WAL. shale opens a copy, reads every key, scans both ways, verifies
 * every checksum and writes: once with `compression: "zstd"`, `zstdMaxDictBytes` and
 * `walCompression: "zstd"` (a flush and a full compaction, so that RocksDB reads shale's zstd
 * tables with their dictionaries and its compressed WAL), once
 * with its defaults (writes left in its uncompressed WAL: this build has no Snappy, so it
 * could not read shale's default tables). The binding reopens each result and must see
 * exactly shale's view. Skips, printing why, when the binding does not load here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { toHex } from "@shale/base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbOptions } from "../core/options.js";
import { DB } from "../db.js";
import {
  copyDir,
  fromHex,
  type HexEntry,
  shaleReverseScan,
  shaleScan,
  tempDir,
} from "./interop.test-support.js";
import {
  fillEntry,
  type ProducerStep,
  producerUnavailableReason,
  runProducer,
} from "./producers.test-support.js";

const unavailable = producerUnavailableReason("nxtedition-rocksdb");
if (unavailable !== undefined) console.log(`nxtedition zstd interop skipped: ${unavailable}`);

const tmp = tempDir("nxtedition-zstd");
afterAll(() => tmp.remove());

const hex = (s: string) => Buffer.from(s, "utf8").toString("hex");
/** The binding's options: a 256 KiB write buffer, so that a few MiB make tables of 3 levels. */
const BINDING = { compaction: "level", memtableMemoryBudget: 1 << 20 };
const PREFIX = hex("k");
const N = 30_000;
const VALUE_SIZE = 200;
const key = (i: number) => fillEntry(PREFIX, i, VALUE_SIZE)[0];
/** The zstd frame magic (little-endian 0xFD2FB528) and the trained dictionary's (0xEC30A437). */
const ZSTD_FRAME = Buffer.from("28b52ffd", "hex");
const META_DICT = Buffer.from("rocksdb.compression_dict");

function sorted(model: Map<string, string>): HexEntry[] {
  return [...model.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => ({ key: k, value: v }));
}

function rows(result: unknown): HexEntry[] {
  return (result as [string, string][]).map(([k, v]) => ({ key: k, value: v }));
}

function files(dir: string, suffix: string): Buffer[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(suffix))
    .sort()
    .map((f) => readFileSync(join(dir, f)));
}

/** The keys the binding and the test read back one by one (a plan stays under 128 KiB). */
function sampleKeys(model: Map<string, string>): string[] {
  const out = [key(0), key(N - 1), key(N), hex("zz-missing")];
  for (let i = 3; i < N; i += 37) out.push(key(i));
  for (const k of model.keys()) if (!k.startsWith(PREFIX)) out.push(k);
  return out;
}

/** What RocksDB wrote: the model of its history and the directory. */
let written: { dir: string; model: Map<string, string> } | undefined;

function writeWithBinding(): { dir: string; model: Map<string, string> } {
  const dir = join(tmp.path, "rocksdb");
  const model = new Map<string, string>();
  for (let i = 0; i < N; i++) {
    const [k, v] = fillEntry(PREFIX, i, VALUE_SIZE);
    model.set(k, v);
  }
  const steps: ProducerStep[] = [
    { op: "fill", prefix: PREFIX, count: N, valueSize: VALUE_SIZE },
    { op: "settle" },
  ];
  // Left only in the WAL: overwrites, deletes and new keys.
  for (let i = 11; i < N; i += 401) {
    steps.push({ op: "put", key: key(i), value: hex(`rocks-wal-${i}`) });
    model.set(key(i), hex(`rocks-wal-${i}`));
  }
  for (let i = 2; i < N; i += 503) {
    steps.push({ op: "delete", key: key(i) });
    model.delete(key(i));
  }
  for (let i = 0; i < 20; i++) {
    steps.push({ op: "put", key: hex(`wal-only-${i}`), value: hex(`w${i}`.repeat(i + 1)) });
    model.set(hex(`wal-only-${i}`), hex(`w${i}`.repeat(i + 1)));
  }
  steps.push({ op: "scan" });
  const [scanned] = runProducer("nxtedition-rocksdb", { dir, options: BINDING, steps });
  expect(rows(scanned)).toEqual(sorted(model));
  return { dir, model };
}

describe.skipIf(unavailable !== undefined)("zstd with RocksDB 9.7 (@nxtedition/rocksdb)", () => {
  beforeAll(() => {
    written = writeWithBinding();
  }, 60_000);

  it("the binding wrote dictionary-compressed tables and keys only in its compressed WAL", () => {
    const { dir } = written!;
    const tables = files(dir, ".sst");
    expect(tables.some((t) => t.includes(META_DICT))).toBe(true);
    const logs = files(dir, ".log");
    const live = logs[logs.length - 1]!;
    // A SetCompressionType record (type 9 at byte 6 of the first header), then zstd streams.
    expect(live[6]).toBe(9);
    expect(live.includes(ZSTD_FRAME)).toBe(true);
  });

  const cases: { name: string; options: DbOptions; flush: boolean }[] = [
    {
      name: "zstd tables with dictionaries and WAL",
      options: { compression: "zstd", zstdMaxDictBytes: 16_384, walCompression: "zstd" },
      flush: true,
    },
    { name: "defaults (uncompressed WAL)", options: {}, flush: false },
  ];
  for (const c of cases) {
    it(`shale reads everything and writes with ${c.name}; the binding reads shale's writes`, async () => {
      const dir = copyDir(written!.dir, join(tmp.path, c.name.replace(/\W+/g, "-")));
      const model = new Map(written!.model);
      const db = await DB.open(dir, { createIfMissing: false, ...c.options });
      try {
        expect(shaleScan(db)).toEqual(sorted(model));
        expect(shaleReverseScan(db)).toEqual(sorted(model).reverse());
        for (let i = 0; i < N; i++) {
          const got = db.get(fromHex(key(i)));
          expect(got === undefined ? undefined : toHex(got)).toBe(model.get(key(i)));
        }
        expect(db.verifyChecksums().ok).toBe(true);
        for (let i = 5; i < N; i += 97) {
          db.put(fromHex(key(i)), fromHex(hex(`shale-${i}`)));
          model.set(key(i), hex(`shale-${i}`));
        }
        for (let i = 7; i < N; i += 211) {
          db.delete(fromHex(key(i)));
          model.delete(key(i));
        }
        if (c.flush) {
          await db.flush();
          await db.compactRange();
        }
        for (let i = 0; i < 10; i++) {
          db.put(fromHex(hex(`shale-wal-${i}`)), fromHex(hex(`in shale's WAL ${i}`)));
          model.set(hex(`shale-wal-${i}`), hex(`in shale's WAL ${i}`));
        }
        expect(shaleScan(db)).toEqual(sorted(model));
      } finally {
        await db.close();
      }
      const logs = files(dir, ".log");
      const live = logs[logs.length - 1]!;
      if (c.options.walCompression === "zstd") {
        expect(live[6]).toBe(9);
        // Only shale's zstd tables are left after its compaction, each with its dictionary.
        for (const t of files(dir, ".sst")) {
          expect(t.includes(ZSTD_FRAME)).toBe(true);
          expect(t.includes(META_DICT)).toBe(true);
        }
      } else {
        expect(live.includes(ZSTD_FRAME)).toBe(false);
      }

      const keys = sampleKeys(model);
      const [forward, backward, got] = runProducer("nxtedition-rocksdb", {
        dir,
        options: BINDING,
        steps: [
          { op: "scan" },
          { op: "scan", reverse: true },
          { op: "get", keys },
          { op: "close" },
        ],
      });
      expect(rows(forward)).toEqual(sorted(model));
      expect(rows(backward)).toEqual(sorted(model).reverse());
      expect(got).toEqual(keys.map((k) => model.get(k) ?? null));
    }, 60_000);
  }
});
