/**
 * seek-ab: db-bench's seekrandom loop (per op a new iterator, a seek to a random key, 10
 * `next()` reading key() and value()) for two builds of @shale/db IN ONE PROCESS, alternating
 * rounds — an A/B that a loaded machine disturbs less than two processes run one after the
 * other (not a test; reports figures only).
 *
 *   node dist/iterator/bench/seek-ab.js <distA> <distB> --dbA=<dir> --dbB=<dir>
 *     [--num=1000000] [--ops=40000] [--rounds=11] [--cache=1073741824]
 *
 * `distA`/`distB` are the `dist` folders of two builds (e.g. a baseline worktree's
 * packages/db/dist and this one's); `dbA`/`dbB` two copies of the same shale database written
 * by db-bench (`--db=<d>` keeps it in `<d>/shale`; copy it: one directory opens once). Each
 * build is warmed by a full scan and one untimed round; then `rounds` rounds time both (A
 * first in even rounds, B first in odd ones), in CPU ns per op. Printed: both medians and the
 * median of the per-round ratios B/A. The build imported second tends to run a few percent
 * faster: run both orders and take the geometric mean of ratio(A,B) and 1/ratio(B,A).
 */

interface Iter {
  seek(k: Uint8Array): void;
  seekToFirst(): void;
  valid(): boolean;
  next(): void;
  key(): Uint8Array;
  value(): Uint8Array;
  close(): void;
}
interface Db {
  iterator(): Iter;
  close(): Promise<void>;
}
interface DbModule {
  DB: { open(dir: string, options: { blockCacheSize: number }): Promise<Db> };
}

function arg(name: string, fallback: string): string {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return a === undefined ? fallback : a.slice(name.length + 3);
}

const [distA, distB] = process.argv.slice(2).filter((s) => !s.startsWith("--"));
if (distA === undefined || distB === undefined) throw new Error("usage: seek-ab <distA> <distB>");
const NUM = Number(arg("num", "1000000"));
const OPS = Number(arg("ops", "40000"));
const ROUNDS = Number(arg("rounds", "11"));
const CACHE = Number(arg("cache", String(1 << 30)));
const modA = (await import(`${distA}/db.js`)) as DbModule;
const modB = (await import(`${distB}/db.js`)) as DbModule;
const dbA = await modA.DB.open(arg("dbA", ""), { blockCacheSize: CACHE });
const dbB = await modB.DB.open(arg("dbB", ""), { blockCacheSize: CACHE });

const key = new Uint8Array(16).fill(0x30);
const view = new DataView(key.buffer);
let sink = 0;

function run(db: Db, seed: number): void {
  let s = seed;
  for (let i = 0; i < OPS; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    const n = s % NUM;
    view.setUint32(0, Math.floor(n / 4294967296));
    view.setUint32(4, n >>> 0);
    const it = db.iterator();
    it.seek(key);
    for (let j = 0; j < 10 && it.valid(); j++) {
      sink += it.key().length + it.value().length;
      it.next();
    }
    it.close();
  }
}

function cpu(db: Db, seed: number): number {
  const c0 = process.cpuUsage();
  run(db, seed);
  const c = process.cpuUsage(c0);
  return ((c.user + c.system) * 1000) / OPS;
}

for (const db of [dbA, dbB]) {
  const it = db.iterator();
  for (it.seekToFirst(); it.valid(); it.next()) sink += it.value().length;
  it.close();
  run(db, 7);
}
const ta: number[] = [];
const tb: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const seed = 1000 + r;
  if (r & 1) {
    tb.push(cpu(dbB, seed));
    ta.push(cpu(dbA, seed));
  } else {
    ta.push(cpu(dbA, seed));
    tb.push(cpu(dbB, seed));
  }
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
const ratios = ta.map((a, i) => tb[i]! / a);
console.log(
  `A ${median(ta).toFixed(0)} ns/op, B ${median(tb).toFixed(0)} ns/op, B/A per-round median ${median(ratios).toFixed(3)}` +
    ` (rounds ${ROUNDS}, ops ${OPS}, cache ${CACHE}; sink ${sink > 0})`,
);
await dbA.close();
await dbB.close();
