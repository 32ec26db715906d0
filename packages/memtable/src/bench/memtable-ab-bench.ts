/**
 * This build's memtable against another build's (not a test), insert, get and create alone:
 * the two alternate in one process, each round building `reps` fresh memtables of N 16-byte
 * keys (random, or in order with `--keys=sequential`) with 100-byte values, then getting
 * every key in another order, then making CREATE_TABLES small tables (a new memtable, 16
 * adds, one get, released: what a program that makes many small tables pays) and as many
 * empty ones (made and released); CPU ns per op (create, empty: per table), median over
 * rounds, and the ratio this / other.
 *
 *   npx tsc -b && node dist/bench/memtable-ab-bench.js --baseline=DIR [--num=10000]
 *     [--rounds=15] [--keys=random|sequential] [--hash-index-from=N]
 *
 * `--hash-index-from` is passed to both builds as MemTableOptions.hashIndexFrom (a
 * database's write buffers use 64: each add then indexes its own entry).
 *
 * DIR holds the other build's compiled index.js. Unlike component-bench's memtable bench, no other
 * workload runs between the rounds.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { LookupResult, MAX_SEQ, ValueKind } from "@shale/base";
import { MemTable } from "../index.js";

function arg(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

const baseline = arg("baseline");
if (baseline === undefined) throw new Error("--baseline=DIR is required");
const num = Number(arg("num") ?? 10_000);
const rounds = Number(arg("rounds") ?? 15);
const reps = Math.max(1, Math.round(100_000 / num));
const sequential = (arg("keys") ?? "random") === "sequential";
if (!sequential && arg("keys") !== undefined && arg("keys") !== "random") {
  throw new Error("--keys must be random or sequential");
}
const hashIndexFrom = arg("hash-index-from");
const options = hashIndexFrom === undefined ? {} : { hashIndexFrom: Number(hashIndexFrom) };
/** Small tables made per round for the create figure, and their entries. */
const CREATE_TABLES = 2000;
const SMALL_ENTRIES = 16;
type MemTableClass = typeof MemTable;
const Other = (
  (await import(pathToFileURL(resolve(baseline, "index.js")).href)) as { MemTable: MemTableClass }
).MemTable;

let state = 0x2545f491;
function nextRandom(): number {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return state >>> 0;
}
const valueSource = new Uint8Array(1 << 20);
for (let i = 0; i < valueSource.length; i++) valueSource[i] = nextRandom();
const keys: Uint8Array[] = [];
const values: Uint8Array[] = [];
for (let i = 0; i < num; i++) {
  const k = new Uint8Array(16);
  if (sequential) new DataView(k.buffer).setUint32(12, i);
  else for (let j = 0; j < 16; j++) k[j] = nextRandom();
  keys.push(k);
  const v = (i * 997) % (valueSource.length - 100);
  values.push(valueSource.subarray(v, v + 100));
}

function cpuNs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

/** A new runner per build: its own closure, so its call sites see one MemTable class. */
function runner(): (Table: MemTableClass) => [number, number, number, number] {
  return (Table) => {
    const result = new LookupResult();
    let insert = 0;
    let get = 0;
    for (let r = 0; r < reps; r++) {
      const mem = new Table(options);
      let t = cpuNs();
      for (let i = 0; i < num; i++) mem.add(i + 1, ValueKind.Value, keys[i]!, values[i]!);
      insert += cpuNs() - t;
      t = cpuNs();
      for (let i = 0; i < num; i++) {
        result.reset();
        mem.get(keys[(i * 7919) % num]!, MAX_SEQ, result);
      }
      get += cpuNs() - t;
      mem.unref();
    }
    const t = cpuNs();
    for (let r = 0; r < CREATE_TABLES; r++) {
      const mem = new Table(options);
      for (let i = 0; i < SMALL_ENTRIES; i++) {
        mem.add(i + 1, ValueKind.Value, keys[i % num]!, values[i % num]!);
      }
      result.reset();
      mem.get(keys[(r % SMALL_ENTRIES) % num]!, MAX_SEQ, result);
      mem.unref();
    }
    const create = (cpuNs() - t) / CREATE_TABLES;
    const t2 = cpuNs();
    for (let r = 0; r < CREATE_TABLES; r++) new Table(options).unref();
    const empty = (cpuNs() - t2) / CREATE_TABLES;
    return [insert / (reps * num), get / (reps * num), create, empty];
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

const runThis = runner();
const runOther = runner();
const names = ["insert", "get", "create", "empty"];
const got = {
  this: names.map(() => [] as number[]),
  other: names.map(() => [] as number[]),
};
for (let r = 0; r < rounds; r++) {
  const o = r % 2 === 0 ? runOther(Other) : undefined;
  const a = runThis(MemTable);
  const b = o ?? runOther(Other);
  for (let w = 0; w < names.length; w++) {
    got.this[w]!.push(a[w]!);
    got.other[w]!.push(b[w]!);
  }
}
console.log(
  `${num} ${sequential ? "sequential" : "random"} keys${hashIndexFrom === undefined ? "" : `, hashIndexFrom ${hashIndexFrom}`}, ${rounds} rounds of ${reps} memtables ` +
    `and ${CREATE_TABLES} small tables, CPU ns/op (create, empty: per table), median:`,
);
for (let w = 0; w < names.length; w++) {
  const a = median(got.this[w]!);
  const b = median(got.other[w]!);
  console.log(
    `${names[w]}: this ${a.toFixed(0)}, other ${b.toFixed(0)}, this / other ${(a / b).toFixed(2)}`,
  );
}
