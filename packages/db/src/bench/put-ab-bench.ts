/**
 * put-ab-bench: the write path (`db.put` into the memtable, WAL appended) of two builds of
 * the engine in one process, CPU time per put (not a test; reports figures only).
 *
 *   cd packages/db && npx tsc -b && node dist/bench/put-ab-bench.js
 *     --b=<another build's packages/db/dist/index.js> [--num=300000] [--rounds=9]
 *     [--variants=<JSON array of open options for build A>]
 *
 * Each round, each contender in turn (the order rotated every round) opens a new database
 * in a temporary directory at the default options (64 MiB write buffer: no flush during the
 * loop), puts `num` keys of db_bench's fillrandom (16 bytes: a random n < num big-endian in
 * the first 8, then '0's; 100-byte values), and closes it; the loop's process CPU time
 * (`process.cpuUsage`) is what counts. Printed: each contender's median CPU ns per put and
 * the median of its per-round ratios to A. `--variants='[{"dbWriteBufferSize":1073741824}]'`
 * adds build A opened with those options (contenders A1, A2, ...).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { DB } from "../db.js";

function arg(name: string, fallback: string): string {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return a === undefined ? fallback : a.slice(name.length + 3);
}

const NUM = Number(arg("num", "300000"));
const ROUNDS = Number(arg("rounds", "9"));
const B_PATH = arg("b", "");
const VARIANTS = JSON.parse(arg("variants", "[]")) as object[];

interface Opener {
  open(
    dir: string,
    options: object,
  ): Promise<{ put(k: Uint8Array, v: Uint8Array): void; close(): Promise<void> }>;
}

interface Contender {
  name: string;
  db: Opener;
  options: object;
  nsPerPut: number[];
}

const contenders: Contender[] = [
  { name: "A", db: DB as unknown as Opener, options: {}, nsPerPut: [] },
];
if (B_PATH !== "") {
  const mod = (await import(pathToFileURL(resolve(B_PATH)).href)) as { DB: Opener };
  contenders.push({ name: "B", db: mod.DB, options: {}, nsPerPut: [] });
}
for (const [i, options] of VARIANTS.entries())
  contenders.push({ name: `A${i + 1}`, db: DB as unknown as Opener, options, nsPerPut: [] });

// The keys and values, made once: every contender puts the same bytes in the same order.
const keys: Uint8Array[] = [];
let seed = 301;
for (let i = 0; i < NUM; i++) {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  const k = new Uint8Array(16).fill(0x30);
  const n = seed % NUM;
  new DataView(k.buffer).setUint32(4, n);
  keys.push(k);
}
const value = new Uint8Array(100).fill(0x76);

async function runOnce(c: Contender): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "shale-put-ab-"));
  try {
    const db = await c.db.open(dir, c.options);
    const t0 = process.cpuUsage();
    for (let i = 0; i < NUM; i++) db.put(keys[i]!, value);
    const t = process.cpuUsage(t0);
    c.nsPerPut.push(((t.user + t.system) * 1000) / NUM);
    await db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (let r = 0; r < ROUNDS; r++) {
  for (let j = 0; j < contenders.length; j++)
    await runOnce(contenders[(r + j) % contenders.length]!);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
};
const a = contenders[0]!;
console.log(
  `${NUM} puts a round, ${ROUNDS} rounds, CPU ns per put (median), ratio to A (median of rounds)`,
);
for (const c of contenders) {
  const ratios = c.nsPerPut.map((x, i) => x / a.nsPerPut[i]!);
  console.log(
    `${c.name.padEnd(4)} ${median(c.nsPerPut).toFixed(0).padStart(6)}  ${median(ratios).toFixed(3)}  ${JSON.stringify(c.options)}  rounds ${c.nsPerPut.map((x) => x.toFixed(0)).join(" ")}`,
  );
}
