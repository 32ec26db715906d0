/**
 * Micro-benchmark of @shale/wal on a real file (not a test; figures only).
 *
 *   npx tsc -b && node dist/bench/wal-bench.js [--num=1000000] [--size=140] [--rounds=3]
 *
 * Workloads, each on a fresh file in os.tmpdir() through NodeFileSystem:
 * - addRecord+flush: one record, then flush (a write(2) per record), as the db does for
 *   writes without `sync`;
 * - addRecord: records only, buffered by the file (64 KiB writes), one flush at the end;
 * - readRecord: reads the log back with a LogReader (PointInTime, checksums verified).
 *
 * Prints ns/op and MB/s (payload bytes) per round and the median of the rounds, by wall
 * clock and by the process's CPU time (user + system: steadier on a shared machine).
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NodeFileSystem } from "@shale/base";
import { LogReader } from "../reader.js";
import { LogWriter } from "../writer.js";

function flag(name: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg === undefined ? fallback : Number(arg.slice(name.length + 3));
}

const num = flag("num", 1_000_000);
const size = flag("size", 140);
const rounds = flag("rounds", 3);

const fs = new NodeFileSystem();
const dir = mkdtempSync(join(tmpdir(), "shale-wal-bench-"));
const path = join(dir, "000001.log");

/** A few distinct records so the payload is not one repeated buffer. */
const records: Uint8Array[] = [];
for (let i = 0; i < 16; i++) {
  const r = new Uint8Array(size);
  for (let j = 0; j < size; j++) r[j] = (i * 131 + j * 7) & 0xff;
  records.push(r);
}

function write(flushEach: boolean): void {
  const log = new LogWriter(fs.openWritable(path));
  for (let i = 0; i < num; i++) {
    log.addRecord(records[i & 15]!);
    if (flushEach) log.flush();
  }
  log.flush();
  log.close();
}

function read(): void {
  const file = fs.openSequential(path);
  const reader = new LogReader(file, { fileName: path });
  let n = 0;
  let bytes = 0;
  for (let r = reader.readRecord(); r !== undefined; r = reader.readRecord()) {
    n++;
    bytes += r.length;
  }
  file.close();
  if (n !== num || bytes !== num * size) throw new Error(`read back ${n} records, ${bytes} bytes`);
}

function measure(name: string, fn: () => void): void {
  const times: number[] = [];
  const cpuTimes: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    fn();
    const used = process.cpuUsage(cpu);
    const ns = Number(process.hrtime.bigint() - start);
    const cpuNs = (used.user + used.system) * 1000;
    times.push(ns);
    cpuTimes.push(cpuNs);
    console.log(`  ${name.padEnd(16)} round ${round + 1}: ${line(ns)}  cpu ${line(cpuNs)}`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    `${name.padEnd(18)}: ${line(median(times))}  cpu ${line(median(cpuTimes))} (median of ${rounds})`,
  );
}

function line(ns: number): string {
  const perOp = ns / num;
  const mbPerSec = (num * size) / 2 ** 20 / (ns / 1e9);
  return `${perOp.toFixed(1).padStart(8)} ns/op ${mbPerSec.toFixed(1).padStart(7)} MB/s`;
}

try {
  console.log(`@shale/wal: ${num} records of ${size} bytes, ${path}, node ${process.version}`);
  measure("addRecord+flush", () => write(true));
  measure("addRecord", () => write(false));
  measure("readRecord", read);
  console.log(`log size: ${fs.fileSize(path)} bytes`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
