/**
 * seek-bench: what db-bench's seekrandom costs per op, split into its parts, over an existing
 * database (not a test; reports figures only).
 *
 *   cd packages/db && npx tsc -b && node dist/iterator/bench/seek-bench.js --db=<dir>
 *     [--num=1000000] [--ops=200000] [--cache=1073741824] [--rounds=5] [--only=open,seek,reuse]
 *
 * `--db` is a shale database written by db-bench (`--db=<d> --engines=shale,...` keeps it in
 * `<d>/shale`): 16-byte db_bench keys (8 big-endian bytes of the index, then '0's) for indexes
 * below `num`. It is opened with a block cache of `cache` bytes and warmed by one scan. Each of
 * `rounds` alternating rounds times, in CPU ns per op (user + system time of the process):
 * - open:   `db.iterator()` then `close()` (the construction alone);
 * - seek:   a new iterator per op, a seek to a random key, 10 `next()` reading key() and
 *           value() (db-bench's seekrandom loop);
 * - reuse:  the same seeks and nexts on one iterator (what the seek itself costs).
 * Medians are printed.
 */
import { DB } from "../../db.js";

function arg(name: string, fallback: string): string {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return a === undefined ? fallback : a.slice(name.length + 3);
}

const DIR = arg("db", "");
if (DIR === "") throw new Error("--db=<dir> is required");
const NUM = Number(arg("num", "1000000"));
const OPS = Number(arg("ops", "200000"));
const ROUNDS = Number(arg("rounds", "5"));
const db = await DB.open(DIR, { blockCacheSize: Number(arg("cache", String(1 << 30))) });

const key = new Uint8Array(16).fill(0x30);
let seed = 301;
function randomKey(): Uint8Array {
  seed = (seed * 1103515245 + 12345) >>> 0;
  const n = seed % NUM;
  const view = new DataView(key.buffer);
  view.setUint32(0, Math.floor(n / 4294967296));
  view.setUint32(4, n >>> 0);
  return key;
}

let sink = 0;
function open(): void {
  for (let i = 0; i < OPS; i++) db.iterator().close();
}
function seek(): void {
  for (let i = 0; i < OPS; i++) {
    const it = db.iterator();
    it.seek(randomKey());
    for (let j = 0; j < 10 && it.valid(); j++) {
      sink += it.key().length + it.value().length;
      it.next();
    }
    it.close();
  }
}
function reuse(): void {
  const it = db.iterator();
  for (let i = 0; i < OPS; i++) {
    it.seek(randomKey());
    for (let j = 0; j < 10 && it.valid(); j++) {
      sink += it.key().length + it.value().length;
      it.next();
    }
  }
  it.close();
}

function cpu(body: () => void): number {
  const c0 = process.cpuUsage();
  body();
  const c = process.cpuUsage(c0);
  return ((c.user + c.system) * 1000) / OPS;
}

{
  const it = db.iterator();
  for (it.seekToFirst(); it.valid(); it.next()) sink += it.value().length;
  it.close();
}
const ONLY = arg("only", "open,seek,reuse").split(",");
const parts = (
  [
    ["open", open],
    ["seek", seek],
    ["reuse", reuse],
  ] as [string, () => void][]
).filter(([name]) => ONLY.includes(name));
for (const [, body] of parts) body();
const times = parts.map(() => [] as number[]);
for (let r = 0; r < ROUNDS; r++) {
  for (let i = 0; i < parts.length; i++) times[i]!.push(cpu(parts[i]![1]));
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
console.log(
  parts.map(([name], i) => `${name} ${median(times[i]!).toFixed(0)} ns/op`).join(", "),
  `(cpu, median of ${ROUNDS}; sink ${sink > 0})`,
);
await db.close();
