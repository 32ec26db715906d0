/**
 * get-view-bench: `db.get` (a copy the caller owns) against `db.getView` (zero copy) in one
 * process, CPU time per op — steadier than db-bench's wall time on a loaded machine (not a
 * test; reports figures only).
 *
 *   cd packages/db && npx tsc -b && node dist/bench/get-view-bench.js [--value_size=100]
 *     [--bytes=16777216] [--reads=200000] [--rounds=7]
 *
 * Data: `bytes / value_size` keys of 16 bytes, compacted (compactRange) into a 256 MiB block
 * cache that holds them all; one untimed round of each first. Then `rounds` rounds of
 * `reads` random gets through each call, the order flipped every round; medians printed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DB } from "../db.js";

function arg(name: string, fallback: string): number {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return Number(a === undefined ? fallback : a.slice(name.length + 3));
}

const VALUE_SIZE = arg("value_size", "100");
const NUM = Math.max(1000, Math.floor(arg("bytes", String(16 << 20)) / VALUE_SIZE));
const READS = arg("reads", "200000");
const ROUNDS = arg("rounds", "7");

const dir = mkdtempSync(join(tmpdir(), "shale-get-view-bench-"));
const db = await DB.open(dir, { blockCacheSize: 256 << 20 });
const key = new Uint8Array(16);
const view = new DataView(key.buffer);
const keyOf = (i: number) => {
  key.fill(0x30);
  view.setUint32(4, i);
  return key;
};
const value = new Uint8Array(VALUE_SIZE).fill(0x41);
for (let i = 0; i < NUM; i++) db.put(keyOf(i), value);
await db.compactRange();

let seed = 12345;
const next = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed % NUM;
};
const loops: Record<string, () => number> = {
  getView() {
    let sink = 0;
    for (let i = 0; i < READS; i++) sink += db.getView(keyOf(next()))!.length;
    return sink;
  },
  get() {
    let sink = 0;
    for (let i = 0; i < READS; i++) sink += db.get(keyOf(next()))!.length;
    return sink;
  },
};
const cpu: Record<string, number[]> = { getView: [], get: [] };
for (const f of Object.values(loops)) f();
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 === 0 ? ["getView", "get"] : ["get", "getView"];
  for (const name of order) {
    const c0 = process.cpuUsage();
    if (loops[name]!() !== READS * VALUE_SIZE) throw new Error("bad sink");
    const c = process.cpuUsage(c0);
    cpu[name]!.push((c.user + c.system) / READS);
  }
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
const v = median(cpu.getView!);
const g = median(cpu.get!);
console.log(
  `${VALUE_SIZE} B x ${NUM} keys: getView ${v.toFixed(3)} µs, get ${g.toFixed(3)} µs CPU per op; get/getView ${(g / v).toFixed(3)}`,
);
await db.close();
rmSync(dir, { recursive: true, force: true });
