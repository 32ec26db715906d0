/**
 * for-of-bench: the iterable protocol (`for (const [k, v] of db.iterator())`, caller-owned
 * copies) against the cursor loop (`key()`/`value()` views) over a compacted database, warm
 * (not a test; reports figures only).
 *
 *   cd packages/db && npx tsc -b && node dist/iterator/bench/for-of-bench.js [--num=300000]
 *
 * Data: `num` keys of 16 bytes, 100-byte values, compacted into L1 (compactRange), the block
 * cache large enough to hold it all, one untimed scan to warm it. Each of `rounds` (5)
 * alternating rounds times both loops; the medians are printed in ns per entry (wall, and CPU
 * time of the process, steadier on a loaded machine), with the ratio.
 *
 * Two more cursor loops split the difference into its parts: `pair` builds a `[key, value]`
 * array of the views per entry (what the iterable protocol's pair costs without copies), and
 * `copies` builds the pair of copies for-of yields (owned-bytes.ts's ownedPair) — so for-of
 * minus `copies` is what the protocol itself costs, and `copies` minus `pair` is the two
 * fresh Uint8Arrays and their bytes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ownedPair } from "../../core/owned-bytes.js";
import { DB } from "../../db.js";

function arg(name: string, fallback: string): string {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return a === undefined ? fallback : a.slice(name.length + 3);
}

const NUM = Number(arg("num", "300000"));
const ROUNDS = Number(arg("rounds", "5"));
const dir = mkdtempSync(join(tmpdir(), "shale-for-of-bench-"));
const db = await DB.open(dir, { blockCacheSize: 256 << 20 });
const key = new Uint8Array(16);
const value = new Uint8Array(100);
for (let i = 0; i < value.length; i++) value[i] = 32 + ((i * 7) % 95);
for (let i = 0; i < NUM; i++) {
  key.fill(0x30);
  new DataView(key.buffer).setUint32(4, i);
  value[0] = i & 0xff;
  db.put(key, value);
}
await db.compactRange();

function cursor(): number {
  const it = db.iterator();
  let sink = 0;
  for (it.seekToFirst(); it.valid(); it.next()) sink += it.key().length + it.value().length;
  it.close();
  return sink;
}

function cursorPair(): number {
  const it = db.iterator();
  let sink = 0;
  for (it.seekToFirst(); it.valid(); it.next()) {
    const [k, v] = [it.key(), it.value()];
    sink += k.length + v.length;
  }
  it.close();
  return sink;
}

function cursorCopies(): number {
  const it = db.iterator();
  let sink = 0;
  for (it.seekToFirst(); it.valid(); it.next()) {
    const [k, v] = ownedPair(it.key(), it.value());
    sink += k.length + v.length;
  }
  it.close();
  return sink;
}

function forOf(): number {
  let sink = 0;
  for (const [k, v] of db.iterator()) sink += k.length + v.length;
  return sink;
}

/** [wall, cpu] ns per entry (cpu: the process's user + system time, GC threads included). */
function time(body: () => number): [number, number] {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const sink = body();
  const wall = Number(process.hrtime.bigint() - t0) / NUM;
  const c = process.cpuUsage(c0);
  if (sink !== NUM * 116) throw new Error(`bad sink ${sink}`);
  return [wall, ((c.user + c.system) * 1000) / NUM];
}

cursor();
forOf();
cursorPair();
cursorCopies();
const a: [number, number][] = [];
const b: [number, number][] = [];
const pairs: [number, number][] = [];
const copies: [number, number][] = [];
for (let r = 0; r < ROUNDS; r++) {
  a.push(time(cursor));
  b.push(time(forOf));
  pairs.push(time(cursorPair));
  copies.push(time(cursorCopies));
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
for (const [i, what] of ["wall", "cpu"].entries()) {
  const ma = median(a.map((t) => t[i]!));
  const mb = median(b.map((t) => t[i]!));
  const mp = median(pairs.map((t) => t[i]!));
  const mc = median(copies.map((t) => t[i]!));
  console.log(
    `${NUM} keys, ${what}: cursor ${ma.toFixed(0)} ns/entry, for-of ${mb.toFixed(0)} ns/entry, ratio ${(mb / ma).toFixed(2)}` +
      ` (cursor + pair of views ${mp.toFixed(0)}, ${(mp / ma).toFixed(2)}; cursor + pair of copies ${mc.toFixed(0)}, ${(mc / ma).toFixed(2)})`,
  );
}
await db.close();
rmSync(dir, { recursive: true, force: true });
