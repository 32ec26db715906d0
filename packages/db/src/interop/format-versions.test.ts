/**
 * Table format_version 6 and 7 both ways with RocksDB 10.5.1 (rocksdb-native): it writes a
 * database at format 6 (its default) or 7 (`tableFormatVersion: 7`); shale opens it, reads
 * every key, scans both ways, verifies every checksum, writes, flushes and compacts with
 * `formatVersion` 6 / 7, `checksum: "xxh3"` and no compression (the binding has no Snappy),
 * so that only shale's tables remain; rocksdb-native reopens the result and must see exactly
 * shale's view. Where RocksDB 7.8.3's tools are installed, `sst_dump --command=check` must
 * accept a table shale wrote at format 5 and refuse the same data at 6 (7.8.3 reads 2-5).
 * Skips, printing why, when the binding or the tools do not load here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getFixed32, toHex } from "@shale/base";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import {
  filesEnding,
  fromHex,
  type HexEntry,
  missingToolsReason,
  runTool,
  shaleReverseScan,
  shaleScan,
  tempDir,
} from "./interop.test-support.js";
import {
  type ProducerStep,
  producerUnavailableReason,
  runProducer,
} from "./producers.test-support.js";

const unavailable = producerUnavailableReason("rocksdb-native");
if (unavailable !== undefined) console.log(`format-versions interop skipped: ${unavailable}`);
const toolsMissing = missingToolsReason();

const tmp = tempDir("format-versions");
afterAll(() => tmp.remove());

const hex = (s: string) => Buffer.from(s, "utf8").toString("hex");
const key = (i: number) => hex(`k${String(i).padStart(5, "0")}`);
const value = (i: number, tag: string) => hex(`${tag}-${i}-${"v".repeat(i % 12)}`);
/** Keys RocksDB writes: several data blocks per table, a plan under the 128 KiB argv limit. */
const N = 800;

/** The footer fields of every table in `dir`: [formatVersion, checksumType]. */
function tableFooters(dir: string): [number, number][] {
  return filesEnding(dir, ".sst").map((f) => {
    const bytes = readFileSync(join(dir, f));
    return [getFixed32(bytes, bytes.length - 12), bytes[bytes.length - 53]!];
  });
}

function rows(result: unknown): HexEntry[] {
  return (result as [string, string][]).map(([k, v]) => ({ key: k, value: v }));
}

describe.skipIf(unavailable !== undefined)(
  "table format_version 6 and 7 with RocksDB 10.5.1",
  () => {
    for (const version of [6, 7]) {
      it(`format ${version}: RocksDB writes, shale reads and rewrites, RocksDB reads shale's tables`, async () => {
        const dir = join(tmp.path, `fv${version}`);
        const family = { default: { tableFormatVersion: version } };
        const steps: ProducerStep[] = [];
        const model = new Map<string, string>();
        for (let i = 0; i < N; i++) {
          steps.push({ op: "put", key: key(i), value: value(i, "rocks") });
          model.set(key(i), value(i, "rocks"));
        }
        steps.push({ op: "flush" });
        for (let i = 0; i < N; i += 7) {
          steps.push({ op: "put", key: key(i), value: value(i, "again") });
          model.set(key(i), value(i, "again"));
        }
        for (let i = 3; i < N; i += 11) {
          steps.push({ op: "delete", key: key(i) });
          model.delete(key(i));
        }
        steps.push({ op: "flush" });
        steps.push({ op: "put", key: key(5000), value: value(5000, "wal") });
        model.set(key(5000), value(5000, "wal"));
        steps.push({ op: "scan" }, { op: "close" });
        const [scanned] = runProducer("rocksdb-native", { dir, columnFamilies: family, steps });
        const sortedModel = () =>
          [...model.entries()]
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([k, v]) => ({ key: k, value: v }));
        expect(rows(scanned)).toEqual(sortedModel());
        expect(tableFooters(dir).every(([v, c]) => v === version && c === 4)).toBe(true);

        const options = {
          createIfMissing: false,
          formatVersion: version,
          checksum: "xxh3" as const,
          compression: "none" as const,
        };
        const db = await DB.open(dir, options);
        try {
          expect(shaleScan(db)).toEqual(sortedModel());
          expect(shaleReverseScan(db)).toEqual(sortedModel().reverse());
          for (let i = 0; i < N; i++) {
            const got = db.get(fromHex(key(i)));
            expect(got === undefined ? undefined : toHex(got)).toBe(model.get(key(i)));
          }
          const report = db.verifyChecksums();
          expect(report.ok).toBe(true);
          expect(report.tables).toBe(2);
          for (let i = 0; i < N; i += 5) {
            db.put(fromHex(key(i)), fromHex(value(i, "shale")));
            model.set(key(i), value(i, "shale"));
          }
          for (let i = 1; i < N; i += 13) {
            db.delete(fromHex(key(i)));
            model.delete(key(i));
          }
          await db.flush();
          await db.compactRange();
          expect(shaleScan(db)).toEqual(sortedModel());
          expect(db.verifyChecksums().ok).toBe(true);
        } finally {
          await db.close();
        }
        // Only shale's tables are left, at the asked version, XXH3.
        const footers = tableFooters(dir);
        expect(footers.length).toBeGreaterThan(0);
        expect(footers.every(([v, c]) => v === version && c === 4)).toBe(true);

        const keys = Array.from({ length: N }, (_, i) => key(i));
        const [forward, backward, got] = runProducer("rocksdb-native", {
          dir,
          columnFamilies: family,
          steps: [
            { op: "scan" },
            { op: "scan", reverse: true },
            { op: "get", keys },
            { op: "close" },
          ],
        });
        expect(rows(forward)).toEqual(sortedModel());
        expect(rows(backward)).toEqual(sortedModel().reverse());
        expect(got).toEqual(keys.map((k) => model.get(k) ?? null));
      });
    }
  },
);

describe.skipIf(toolsMissing !== undefined)("RocksDB 7.8.3's sst_dump and shale's format 6", () => {
  it("checks a format-5 table shale wrote and refuses the same table at format 6", async () => {
    for (const version of [5, 6]) {
      const dir = join(tmp.path, `sst-dump-fv${version}`);
      const db = await DB.open(dir, { formatVersion: version, checksum: "xxh3" });
      try {
        for (let i = 0; i < 500; i++) db.put(fromHex(key(i)), fromHex(value(i, "s")));
        await db.flush();
      } finally {
        await db.close();
      }
      const [table] = filesEnding(dir, ".sst");
      const r = runTool("sst_dump", [`--file=${join(dir, table!)}`, "--command=check"]);
      if (version === 5) {
        expect(r.status).toBe(0);
        expect(r.stdout + r.stderr).not.toMatch(/Corruption|error/i);
      } else {
        expect(r.stdout + r.stderr).toMatch(/unsupported format_version: 6/);
      }
    }
  });
});
