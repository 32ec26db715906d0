/**
 * Blob files both ways with RocksDB 10.5.1 (rocksdb-native, `enable_blob_files`, one blob
 * per file since the binding's blob_file_size is 0): RocksDB writes, shale opens and reads
 * every key (get, getMany, getView, both scan directions, a snapshot), writes more, compacts
 * (blob indexes carried through, linked to their blob files) and closes; RocksDB reopens
 * shale's MANIFEST and reads everything, the old blobs included.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import {
  type ProducerStep,
  producerUnavailableReason,
  runProducer,
} from "../interop/producers.test-support.js";

const reason = producerUnavailableReason("rocksdb-native");
const hex = (s: string) => Buffer.from(s).toString("hex");
const text = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : Buffer.from(b).toString();
const family = { default: { enableBlobFiles: true, minBlobSize: 0, tableFormatVersion: 5 } };

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe.skipIf(reason !== undefined)("blob files with rocksdb-native", () => {
  it("shale reads RocksDB's blobs, compacts them and RocksDB reads shale's MANIFEST", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shale-blob-"));
    dirs.push(dir);
    const expected = new Map<string, string>();
    const steps: ProducerStep[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 6; i++) {
        const key = `k${i}`;
        const value = `v${round}-${i}-${"x".repeat(i * 7)}`;
        steps.push({ op: "put", key: hex(key), value: hex(value) });
        expected.set(key, value);
      }
      steps.push({ op: "delete", key: hex(`k${round}`) });
      expected.delete(`k${round}`);
      steps.push({ op: "flush" });
    }
    runProducer("rocksdb-native", { dir, columnFamilies: family, steps });
    expect(readdirSync(dir).filter((n) => n.endsWith(".blob")).length).toBeGreaterThan(5);

    const sorted = [...expected].sort((a, b) => (a[0] < b[0] ? -1 : 1));
    // rocksdb-native has no Snappy: shale writes uncompressed tables for it.
    const db = await DB.open(dir, { compression: "none" });
    try {
      expect(db.debugVersion().blobFiles.size).toBeGreaterThan(5);
      for (const [k, v] of expected) {
        expect(text(db.get(k))).toBe(v);
        expect(text(db.getView(k))).toBe(v);
      }
      expect(db.get("k2")).toBeUndefined(); // deleted after its last put
      expect(db.getMany(["k3", "k2", "k0", "nope"]).map(text)).toEqual([
        expected.get("k3"),
        undefined,
        expected.get("k0"),
        undefined,
      ]);
      const forward = [...db.iterator()].map(([k, v]) => [text(k), text(v)]);
      expect(forward).toEqual(sorted);
      const backward = [...db.iterator({ reverse: true })].map(([k, v]) => [text(k), text(v)]);
      expect(backward).toEqual([...sorted].reverse());
      // Cursor moves both ways over blob values.
      const it = db.iterator();
      it.seek("k4");
      expect(text(it.value())).toBe(expected.get("k4"));
      it.prev();
      expect(text(it.key())).toBe("k3");
      expect(text(it.value())).toBe(expected.get("k3"));
      it.close();

      const snap = db.snapshot();
      db.put("k3", "shale-new");
      db.put("z", "zed");
      expected.set("k3", "shale-new");
      expected.set("z", "zed");
      expect(text(db.get("k3", { snapshot: snap }))).toBe(sorted.find(([k]) => k === "k3")![1]);
      snap.release();
      await db.flush();
      await db.compactRange();
      // Still blob indexes after the compaction, linked to their files.
      expect(db.debugVersion().blobFiles.size).toBeGreaterThan(0);
      for (const [k, v] of expected) expect(text(db.get(k))).toBe(v);
    } finally {
      await db.close();
    }

    const final = [...expected]
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([k, v]) => [hex(k), hex(v)]);
    const [scan, back, gets] = runProducer("rocksdb-native", {
      dir,
      columnFamilies: family,
      steps: [
        { op: "scan" },
        { op: "scan", reverse: true },
        { op: "get", keys: ["k1", "k4", "k5"].map(hex) },
      ],
    });
    expect(scan).toEqual(final);
    expect(back).toEqual([...final].reverse());
    expect(gets).toEqual(
      ["k1", "k4", "k5"].map((k) => (expected.has(k) ? hex(expected.get(k)!) : null)),
    );
  });
});
