/**
 * Micro-benchmark of the memtable (not a test): insert and get of N random 16-byte keys
 * with 100-byte values, several rounds, each on a fresh memtable; prints ns/op per round
 * and the median.
 *
 *   npx tsc -b && node dist/bench/memtable-bench.js [--num=1000000] [--rounds=3] [--keys=hash]
 *     [--hash_index=1]
 *
 * As in RocksDB's db_bench, a key is made from a number when it is needed, written into one
 * reused buffer (the memtable copies it):
 *   --keys=hash      key(i) is 16 bytes of a hash of i (default)
 *   --keys=db_bench  key(i) is db_bench's: the number p(i) as 8 big-endian bytes, padded
 *                    with '0' to 16 bytes, where p is a random permutation of 0 .. N-1
 *                    (fillrandom's key space, without repeats)
 *   --hash_index=0   memtables without the hash index (MemTableOptions.hashIndex false)
 *
 * insert: `add(i + 1, Value, key(i), value)` for i = 0 .. N-1; values are 100-byte views
 *         into a pre-generated random buffer.
 * get:    `get(key(j), MAX_SEQ, result)` for j in a shuffled order of 0 .. N-1 (all found),
 *         reusing one LookupResult.
 * insert-seq (extra): `add` of N keys in ascending order (i as 16 big-endian bytes), as a
 *         db_bench fillseq would; the skiplist's splice makes these O(1).
 *
 * Besides wall time it prints the thread's CPU time per op, which a busy machine disturbs
 * less.
 */
import { LookupResult, LookupState, MAX_SEQ, ValueKind } from "@shale/base";
import { MemTable } from "../index.js";

function arg(name: string, fallback: number): number {
  const prefix = `--${name}=`;
  const found = process.argv.find((a) => a.startsWith(prefix));
  return found === undefined ? fallback : Number(found.slice(prefix.length));
}

const num = arg("num", 1_000_000);
const dbBenchKeys = process.argv.includes("--keys=db_bench");
const options = { hashIndex: arg("hash_index", 1) !== 0 };
const rounds = arg("rounds", 3);
const KEY_SIZE = 16;
const VALUE_SIZE = 100;

/** A 32-bit mix (murmur3's finaliser). */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Writes key(i) into `out` (16 bytes). */
function makeKey(i: number, out: Uint8Array): void {
  if (dbBenchKeys) {
    const n = permutation[i]!;
    out.fill(0x30, 8);
    out[0] = 0;
    out[1] = 0;
    out[2] = 0;
    out[3] = 0;
    out[4] = n >>> 24;
    out[5] = n >>> 16;
    out[6] = n >>> 8;
    out[7] = n;
    return;
  }
  for (let w = 0; w < 4; w++) {
    const r = mix(i * 4 + w + 0x9e3779b9);
    out[w * 4] = r >>> 24;
    out[w * 4 + 1] = r >>> 16;
    out[w * 4 + 2] = r >>> 8;
    out[w * 4 + 3] = r;
  }
}

let state = 0x2545f491;
function nextRandom(): number {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return state >>> 0;
}

const valueBytes = new Uint8Array(1 << 20);
for (let i = 0; i < valueBytes.length; i++) valueBytes[i] = nextRandom();

/** A random permutation of 0 .. n-1. */
function shuffled(n: number): Int32Array {
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = nextRandom() % (i + 1);
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  return order;
}
const order = shuffled(num);
const permutation = dbBenchKeys ? shuffled(num) : order;

/** CPU time of this thread (user + system) in ns. */
function cpuNs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

const key = new Uint8Array(KEY_SIZE);
const wall = { insert: [] as number[], get: [] as number[], seq: [] as number[] };
const cpu = { insert: [] as number[], get: [] as number[], seq: [] as number[] };
for (let round = 0; round < rounds; round++) {
  const mem = new MemTable(options);
  let c0 = cpuNs();
  let t0 = process.hrtime.bigint();
  for (let i = 0; i < num; i++) {
    makeKey(i, key);
    const v = (i * 997) % (valueBytes.length - VALUE_SIZE);
    mem.add(i + 1, ValueKind.Value, key, valueBytes.subarray(v, v + VALUE_SIZE));
  }
  wall.insert.push(Number(process.hrtime.bigint() - t0) / num);
  cpu.insert.push((cpuNs() - c0) / num);

  const result = new LookupResult();
  let found = 0;
  c0 = cpuNs();
  t0 = process.hrtime.bigint();
  for (let i = 0; i < num; i++) {
    makeKey(order[i]!, key);
    result.reset();
    mem.get(key, MAX_SEQ, result);
    if (result.state === LookupState.Found) found++;
  }
  wall.get.push(Number(process.hrtime.bigint() - t0) / num);
  cpu.get.push((cpuNs() - c0) / num);
  const mib = (mem.approximateMemoryUsage() / 1048576).toFixed(1);

  const seqMem = new MemTable(options);
  key.fill(0);
  c0 = cpuNs();
  t0 = process.hrtime.bigint();
  for (let i = 0; i < num; i++) {
    key[12] = i >>> 24;
    key[13] = i >>> 16;
    key[14] = i >>> 8;
    key[15] = i;
    const v = (i * 997) % (valueBytes.length - VALUE_SIZE);
    seqMem.add(i + 1, ValueKind.Value, key, valueBytes.subarray(v, v + VALUE_SIZE));
  }
  wall.seq.push(Number(process.hrtime.bigint() - t0) / num);
  cpu.seq.push((cpuNs() - c0) / num);
  console.log(
    `round ${round + 1}: insert ${wall.insert[round]!.toFixed(0)} ns/op (cpu ${cpu.insert[round]!.toFixed(0)}), ` +
      `get ${wall.get[round]!.toFixed(0)} ns/op (cpu ${cpu.get[round]!.toFixed(0)}), ` +
      `insert-seq ${wall.seq[round]!.toFixed(0)} ns/op (cpu ${cpu.seq[round]!.toFixed(0)}); ` +
      `${found} of ${num} found, ${mib} MiB arena`,
  );
}
console.log(
  `median of ${rounds}: insert ${median(wall.insert).toFixed(0)} ns/op (cpu ${median(cpu.insert).toFixed(0)}), ` +
    `get ${median(wall.get).toFixed(0)} ns/op (cpu ${median(cpu.get).toFixed(0)}), ` +
    `insert-seq ${median(wall.seq).toFixed(0)} ns/op (cpu ${median(cpu.seq).toFixed(0)}) ` +
    `[${num} random ${KEY_SIZE}-byte ${dbBenchKeys ? "db_bench" : "hash"} keys, ${VALUE_SIZE}-byte values` +
    `${options.hashIndex ? "" : ", no hash index"}]`,
);
