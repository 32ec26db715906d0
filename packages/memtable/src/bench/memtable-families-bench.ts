/**
 * What db-bench's `--num_column_families` costs the memtables alone (not a test): the
 * inserts of db-bench's fillseq, fillrandom and overwrite (N 16-byte keys each, 100-byte
 * values; key i into table i mod T, as db_bench puts key i into column family i mod T), with
 * a table that reaches its write buffer replaced by a new one, as a database switches it.
 * No WAL, no flush, one thread: only the memtable work. CPU ns per insert of each phase,
 * median over rounds; the layouts alternate within each round.
 *
 *   npx tsc -b && node dist/bench/memtable-families-bench.js [--num=1000000] [--rounds=3]
 *     [--layouts=1x64,4x64,1x256,4x16]
 *
 * A layout `TxM` is T tables of an M MiB write buffer each. 4x64 against 1x64 is
 * `--num_column_families=4` against 1 at db-bench's default write buffer; 1x256 holds as much
 * memtable memory as 4x64 in one table, 4x16 as little as 1x64 in four.
 */
import { ValueKind } from "@shale/base";
import { MemTable } from "../index.js";

function arg(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

const num = Number(arg("num") ?? 1_000_000);
const rounds = Number(arg("rounds") ?? 3);
const layouts = (arg("layouts") ?? "1x64,4x64,1x256,4x16").split(",").map((s) => {
  const m = /^(\d+)x(\d+)$/.exec(s);
  if (m === null) throw new Error(`--layouts: "${s}" is not TxM (tables x MiB)`);
  return { name: s, tables: Number(m[1]), bufferBytes: Number(m[2]) * 1048576 };
});
/** A database's write buffers index every entry in the hash index (db's memtable options). */
const OPTIONS = { hashIndexFrom: 64 };
const PHASES = ["fillseq", "fillrandom", "overwrite"] as const;

const key = new Uint8Array(16);
const value = new Uint8Array(100).fill(0x61);

function cpuNs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

/** One run of the three phases on `tables` tables: CPU ns per insert of each. */
function run(tables: number, bufferBytes: number): number[] {
  const mems: MemTable[] = [];
  for (let t = 0; t < tables; t++) mems.push(new MemTable(OPTIONS));
  let seq = 1;
  let state = 0x2545f491;
  const out: number[] = [];
  for (let phase = 0; phase < PHASES.length; phase++) {
    const t0 = cpuNs();
    for (let i = 0; i < num; i++) {
      let k = i;
      if (phase > 0) {
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        k = (state >>> 0) % num;
      }
      // db-bench's key: the number big-endian in bytes 0..7, the rest zero.
      key[4] = k >>> 24;
      key[5] = (k >>> 16) & 255;
      key[6] = (k >>> 8) & 255;
      key[7] = k & 255;
      const t = k % tables;
      const mem = mems[t]!;
      mem.add(seq++, ValueKind.Value, key, value);
      if (mem.approximateMemoryUsage() >= bufferBytes) {
        mem.unref();
        mems[t] = new MemTable(OPTIONS);
      }
    }
    out.push((cpuNs() - t0) / num);
  }
  for (const mem of mems) mem.unref();
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

const got = layouts.map(() => PHASES.map(() => [] as number[]));
for (let r = 0; r < rounds; r++) {
  for (let l = 0; l < layouts.length; l++) {
    const ns = run(layouts[l]!.tables, layouts[l]!.bufferBytes);
    for (let p = 0; p < PHASES.length; p++) got[l]![p]!.push(ns[p]!);
  }
}
console.log(`num=${num} rounds=${rounds}: CPU ns per insert, median (÷ ${layouts[0]!.name})`);
console.log(["layout", ...PHASES].join("\t"));
for (let l = 0; l < layouts.length; l++) {
  const cells = PHASES.map((_, p) => {
    const m = median(got[l]![p]!);
    const base = median(got[0]![p]!);
    return `${m.toFixed(0)} (${(m / base).toFixed(2)})`;
  });
  console.log([layouts[l]!.name, ...cells].join("\t"));
}
