/**
 * scan-after-gc-bench: seeks and reverse scans right after full collections that find no
 * iterator alive, as in an application that scans now and then (not a test; reports figures
 * only). Such a collection frees the hidden classes that no live object has, and with them
 * the optimized code compiled against them (iterator-shape.ts keeps one DB iterator alive
 * for that); the batch after it shows whether the code survived.
 *
 *   cd packages/db && npx tsc -b && node --expose-gc dist/iterator/bench/scan-after-gc-bench.js
 *     [--num=50000] [--rounds=15]
 *
 * Data: `num` keys of 13 bytes with 100-byte values, flushed to one table, then every third
 * key written again (100 bytes) into the memtable, so iterators merge a memtable and a table.
 * After five warm-up rounds, each of `rounds` rounds runs three full collections, then 2,000
 * seeks of 10 nexts each (a new iterator per seek, as db_bench's seekrandom), then three full
 * collections and a 20,000-entry reverse scan. Prints the medians of CPU time per seek (µs)
 * and per reverse entry (ns).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DB } from "../../db.js";

function arg(name: string, fallback: string): string {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return a === undefined ? fallback : a.slice(name.length + 3);
}

const NUM = Number(arg("num", "50000"));
const ROUNDS = Number(arg("rounds", "15"));
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with node --expose-gc");

const enc = new TextEncoder();
const keyOf = (i: number) => enc.encode(`k${String(i).padStart(12, "0")}`);
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

const dir = mkdtempSync(join(tmpdir(), "scan-after-gc-"));
const db = await DB.open(dir, { createIfMissing: true });
try {
  const value = enc.encode("value".repeat(20));
  for (let i = 0; i < NUM; i++) db.put(keyOf(i), value);
  await db.flush();
  const again = enc.encode("v2".repeat(50));
  for (let i = 0; i < NUM; i += 3) db.put(keyOf(i), again);
  const keys: Uint8Array[] = [];
  for (let i = 0; i < 4096; i++) keys.push(keyOf((i * 7919) % NUM));
  let sink = 0;
  const seeks = (n: number) => {
    for (let i = 0; i < n; i++) {
      const it = db.iterator();
      it.seek(keys[i & 4095]!);
      for (let j = 0; j < 10 && it.valid(); j++) {
        sink += it.value().length;
        it.next();
      }
      it.close();
    }
  };
  const reverse = (n: number) => {
    const it = db.iterator();
    let k = 0;
    for (it.seekToLast(); it.valid() && k < n; it.prev()) {
      sink += it.key().length;
      k++;
    }
    it.close();
  };
  for (let r = 0; r < 5; r++) {
    seeks(4000);
    reverse(20000);
  }
  const seekMicros: number[] = [];
  const reverseNanos: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (let g = 0; g < 3; g++) gc();
    let t = cpu();
    seeks(2000);
    seekMicros.push((cpu() - t) / 2000);
    for (let g = 0; g < 3; g++) gc();
    t = cpu();
    reverse(20000);
    reverseNanos.push(((cpu() - t) * 1000) / 20000);
  }
  console.log(
    `seek ${median(seekMicros).toFixed(2)} µs CPU, reverse ${median(reverseNanos).toFixed(0)} ns CPU/entry (sink ${sink > 0})`,
  );
} finally {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
