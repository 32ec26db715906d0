/**
 * get-ab-bench: the fully cached point read (`db.getView`) of two builds of the engine in one
 * process, on copies of the same tree, CPU time per get — and, on request, lmdb's
 * `getBinaryFast` on the same keys and values (not a test; reports figures only).
 *
 *   cd packages/db && npx tsc -b && node dist/bench/get-ab-bench.js
 *     [--b=<another build's packages/db/dist/index.js>[,<another>...]] [--lmdb=<lmdb's module file>]
 *     [--num=1000000] [--reads=300000] [--rounds=7] [--shape=l0|compacted]
 *     [--only=a|b|lmdb] [--count] [--variants=<JSON array of open options>]
 *     [--read-variants=<JSON array of open options>] [--b-options=<JSON open options>]
 *
 * Data: db_bench's fillrandom: `num` puts of 16-byte keys (a random n < num in the first
 * 8 bytes, big-endian, then '0's) with 100-byte values, at the default options, then a
 * flush, written by build A in a child process (so that no contender's code was warmed by
 * the write path); `--shape=l0` (Default) leaves the tables where the load put them (at 1M
 * keys: three L0 files), `compacted` runs compactRange. The directory is copied for each
 * build B; each build opens its copy with a 1 GiB block cache and reads every key once
 * (every block cached). Then `rounds` rounds of `reads` gets of random n < num (about 63 %
 * found, as db_bench's readrandom) through each contender, each with a loop of its own, the
 * order rotated every round; printed: the median CPU ns per get of each, and the median of
 * the per-round ratios to A. `--only` runs one contender (for `--cpu-prof`); `--count`
 * prints what build A's gets did (statistics: tables probed, filter checks, cache hits).
 * `--variants='[{"blockRestartInterval":1}]'` adds, for each element, a tree of the same puts
 * written by build A with those options (table options such as the restart interval or the
 * data block index) and read by build A: contenders A1, A2, ...
 * `--read-variants='[{"sharedBlockCache":true}]'` adds, for each element, a copy of A's tree
 * read by build A opened with those options (read-path options such as the shared block
 * cache): contenders R1, R2, ...
 * `--b-options='{"sharedBlockCache":true}'` opens every build B with those options, so a
 * change to a read path an option turns on is measured against another build on that path.
 *
 * Calibrate before reading a ratio: two copies of one build (`--b=<copy A>,<copy B>`)
 * differ by up to ~5 % on a loaded machine, by their place in the process.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Histogram, Statistics, Ticker } from "@shale/base";
import { DB } from "../db.js";

function arg(name: string, fallback: string): string {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return a === undefined ? fallback : a.slice(name.length + 3);
}

const NUM = Number(arg("num", "1000000"));
const READS = Number(arg("reads", "300000"));
const ROUNDS = Number(arg("rounds", "7"));
const SHAPE = arg("shape", "l0");
const ONLY = arg("only", "");
const B_PATH = arg("b", "");
const LMDB_PATH = arg("lmdb", "");
const COUNT = process.argv.includes("--count");
const VARIANTS = JSON.parse(arg("variants", "[]")) as object[];
if (!Array.isArray(VARIANTS)) throw new TypeError("--variants must be a JSON array of options");
const READ_VARIANTS = JSON.parse(arg("read-variants", "[]")) as object[];
if (!Array.isArray(READ_VARIANTS))
  throw new TypeError("--read-variants must be a JSON array of options");
const B_OPTIONS = JSON.parse(arg("b-options", "{}")) as object;
if (typeof B_OPTIONS !== "object" || B_OPTIONS === null || Array.isArray(B_OPTIONS))
  throw new TypeError("--b-options must be a JSON object of options");
const VALUE_SIZE = 100;

/** The part of a build's DB class the bench uses. */
interface ReadDB {
  getView(key: Uint8Array): Uint8Array | undefined;
  close(): Promise<void>;
}
interface DBClass {
  open(dir: string, options: object): Promise<ReadDB>;
}

const key = new Uint8Array(16).fill(0x30);
function keyOf(n: number): Uint8Array {
  key[4] = n >>> 24;
  key[5] = n >>> 16;
  key[6] = n >>> 8;
  key[7] = n;
  return key;
}
let seed = 12345;
function random(): number {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed;
}
const value = new Uint8Array(VALUE_SIZE);
for (let i = 0; i < VALUE_SIZE; i++) value[i] = 32 + (random() % 95);
const reads = new Uint32Array(READS);
for (let i = 0; i < READS; i++) reads[i] = random() % NUM;

const root = arg("fill", "") !== "" ? "" : mkdtempSync(join(tmpdir(), "shale-get-ab-bench-"));
const dirA = join(root, "a");
const dirB = join(root, "b");

// The tree, written by build A in a child process (a load would leave this process's copy
// of the engine warmed by the write path, and its heap fuller, than B's).
const FILL = arg("fill", "");
if (FILL !== "") {
  const db = await DB.open(FILL, JSON.parse(arg("fill-options", "{}")) as object);
  for (let i = 0; i < NUM; i++) db.put(keyOf(random() % NUM), value);
  await db.flush();
  if (SHAPE === "compacted") await db.compactRange();
  await db.waitForCompactions();
  const shape = [];
  for (let level = 0; level < 7; level++) {
    const n = Number(db.getProperty(`shale.num-files-at-level${level}`));
    if (n > 0) shape.push(`L${level}=${n}`);
  }
  console.log(`tree: ${shape.join(" ")} (${NUM} puts, --shape=${SHAPE})`);
  await db.close();
  process.exit(0);
}
const child = spawnSync(
  process.execPath,
  [
    fileURLToPath(import.meta.url),
    `--fill=${dirA}`,
    `--num=${NUM}`,
    `--reads=${READS}`,
    `--shape=${SHAPE}`,
  ],
  { stdio: "inherit" },
);
if (child.status !== 0) throw new Error(`the load failed (${child.status})`);
for (let i = 0; i < VARIANTS.length; i++) {
  const variant = spawnSync(
    process.execPath,
    [
      fileURLToPath(import.meta.url),
      `--fill=${dirA}${i + 1}`,
      `--num=${NUM}`,
      `--reads=${READS}`,
      `--shape=${SHAPE}`,
      `--fill-options=${JSON.stringify(VARIANTS[i])}`,
    ],
    { stdio: "inherit" },
  );
  if (variant.status !== 0)
    throw new Error(`the load of variant ${i + 1} failed (${variant.status})`);
}
const bPaths = B_PATH === "" ? [] : B_PATH.split(",");
for (let i = 0; i < bPaths.length; i++) cpSync(dirA, `${dirB}${i}`, { recursive: true });
for (let i = 0; i < READ_VARIANTS.length; i++) cpSync(dirA, `${dirA}-r${i}`, { recursive: true });

type Loop = () => number;
const contenders: { name: string; loop: Loop; close: () => Promise<void> | void }[] = [];

/** The loop body, compiled once per contender (`new Function`): each has its own call site. */
function loopSource(method: string): string {
  return `
  let found = 0;
  for (let i = 0; i < n; i++) {
    const v = db.${method}(keyOf(reads[i]));
    if (v !== undefined) found += v.length;
  }
  return found;`;
}

/**
 * A loop of `target[method](key)` gets. Each call makes a new function, lmdb's too: one
 * shared loop would see every build's DB class at its call site (polymorphic) and favour
 * some over others, and a loop written out for one contender only would be compiled
 * differently from the others'.
 */
function getLoop(target: object, method: "getView" | "getBinaryFast"): Loop {
  const loop = new Function("db", "keyOf", "reads", "n", loopSource(method)) as (
    db: object,
    keyOf: (n: number) => Uint8Array,
    reads: Uint32Array,
    n: number,
  ) => number;
  return () => loop(target, keyOf, reads, READS);
}

function dbLoop(db: ReadDB): Loop {
  return getLoop(db, "getView");
}

async function openBuild(name: string, cls: DBClass, dir: string, options: object = {}) {
  const db = await cls.open(dir, { blockCacheSize: 1 << 30, ...options });
  for (let n = 0; n < NUM; n++) db.getView(keyOf(n));
  contenders.push({ name, loop: dbLoop(db), close: () => db.close() });
}

if (ONLY === "" || ONLY === "a") await openBuild("A", DB as unknown as DBClass, dirA);
for (let i = 0; i < VARIANTS.length && (ONLY === "" || ONLY === `a${i + 1}`); i++) {
  await openBuild(`A${i + 1}`, DB as unknown as DBClass, `${dirA}${i + 1}`);
}
for (let i = 0; i < READ_VARIANTS.length && (ONLY === "" || ONLY === `r${i + 1}`); i++) {
  await openBuild(`R${i + 1}`, DB as unknown as DBClass, `${dirA}-r${i}`, READ_VARIANTS[i]);
}
for (let i = 0; i < bPaths.length && (ONLY === "" || ONLY === "b"); i++) {
  const mod = (await import(pathToFileURL(resolve(bPaths[i]!)).href)) as { DB: DBClass };
  await openBuild(bPaths.length === 1 ? "B" : `B${i + 1}`, mod.DB, `${dirB}${i}`, B_OPTIONS);
}
if (LMDB_PATH !== "" && (ONLY === "" || ONLY === "lmdb")) {
  type Lmdb = {
    open(options: object): {
      putSync(k: Uint8Array, v: Uint8Array): void;
      transactionSync(f: () => void): void;
      getBinaryFast(k: Uint8Array): Uint8Array | undefined;
      close(): Promise<void>;
    };
  };
  const lmdb = (await import(pathToFileURL(resolve(LMDB_PATH)).href)) as Lmdb;
  const env = lmdb.open({ path: join(root, "lmdb"), keyEncoding: "binary", encoding: "binary" });
  seed = 12345;
  for (let i = 0; i < VALUE_SIZE + READS; i++) random(); // the same keys as the tree's
  env.transactionSync(() => {
    for (let i = 0; i < NUM; i++) env.putSync(keyOf(random() % NUM), value);
  });
  for (let n = 0; n < NUM; n++) env.getBinaryFast(keyOf(n));
  contenders.push({
    name: "lmdb",
    loop: getLoop(env, "getBinaryFast"),
    close: () => env.close(),
  });
}

const cpu = contenders.map(() => [] as number[]);
const ratios = contenders.map(() => [] as number[]);
const sinks = new Set<number>();
for (const c of contenders) sinks.add(c.loop()); // warm-up round
for (let r = 0; r < ROUNDS; r++) {
  const perRound: number[] = [];
  for (let k = 0; k < contenders.length; k++) {
    const i = (k + r) % contenders.length;
    const c0 = process.cpuUsage();
    sinks.add(contenders[i]!.loop());
    const c = process.cpuUsage(c0);
    perRound[i] = ((c.user + c.system) * 1000) / READS;
  }
  for (let i = 0; i < contenders.length; i++) {
    cpu[i]!.push(perRound[i]!);
    ratios[i]!.push(perRound[i]! / perRound[0]!);
  }
}
if (sinks.size !== 1) console.log(`warning: the contenders found different values: ${[...sinks]}`);
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
for (let i = 0; i < contenders.length; i++) {
  const c = contenders[i]!;
  console.log(
    `${c.name.padEnd(5)} ${median(cpu[i]!).toFixed(0).padStart(6)} ns/get CPU (median of ${ROUNDS})` +
      `  ÷ ${contenders[0]!.name}: ${median(ratios[i]!).toFixed(3)}` +
      `  rounds: ${cpu[i]!.map((x) => x.toFixed(0)).join(" ")}`,
  );
}
for (const c of contenders) await c.close();

if (COUNT) {
  const stats = new Statistics();
  const db = await DB.open(dirA, { blockCacheSize: 1 << 30, statistics: stats });
  for (let n = 0; n < NUM; n++) db.getView(keyOf(n));
  stats.reset();
  dbLoop(db)();
  const per = (t: Ticker) => (stats.getTicker(t) / READS).toFixed(3);
  const tables = stats.histogram(Histogram.TablesPerGet);
  console.log(
    `per get: tables probed ${tables.average.toFixed(3)}, filter checks ${per(Ticker.BloomChecked)}` +
      ` (ruled out ${per(Ticker.BloomUseful)}), block cache hits ${per(Ticker.BlockCacheHit)}` +
      `, misses ${per(Ticker.BlockCacheMiss)}, memtable hits ${per(Ticker.MemtableHit)}`,
  );
  await db.close();
}
rmSync(root, { recursive: true, force: true });
