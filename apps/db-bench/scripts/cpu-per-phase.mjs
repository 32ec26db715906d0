// CPU time per benchmark of a db_bench-style run (Linux only): runs the command given, reads
// its output, and at each result line (`readseq : 0.5 micros/op ...`) reads the process's
// CPU time so far (user + system of every thread, /proc/<pid>/stat, 10 ms ticks); prints
// `<benchmark> <CPU µs/op> <wall µs/op> <main-thread CPU µs/op>`, the CPU being the time
// since the previous result line divided by the line's operations, the main thread's the same
// for the process's first thread alone (/proc/<pid>/task/<pid>/stat: db-bench's writes, reads
// and memtable inserts run there, its flushes and compactions in worker threads; RocksDB's
// db_bench runs its benchmark in another thread, so the column says little for it). Works for RocksDB's db_bench and for db-bench
// alike, so both are compared by CPU on a machine too loaded for wall-clock ratios (other
// processes' load stretches the wall time of whichever ran during it; it stretches CPU time
// far less). The first benchmark's figure includes the start-up and the open.
//
//   node scripts/cpu-per-phase.mjs db_bench --db=DIR --benchmarks=readrandom,readseq ...
//   node scripts/cpu-per-phase.mjs node dist/main.js --engines=shale --db=DIR --benchmarks=...
//
// Operations per line: db_bench's "N operations", db-bench's "(N entries)" for scans and
// "(F of N found)" for point reads; else (db-bench's fills) the command's --num (default
// 1000000).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  console.error("usage: node scripts/cpu-per-phase.mjs <command> [args...]");
  process.exit(2);
}
const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });

/** CPU microseconds of `stat` (a /proc stat file) so far (utime + stime, in ticks of 10 ms). */
function cpuMicros(stat) {
  const s = readFileSync(stat, "utf8");
  const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10000;
}

const numFlag = args.find((a) => a.startsWith("--num="));
const num = numFlag === undefined ? 1000000 : Number(numFlag.slice(6));

function operations(line) {
  const found = /\((\d+) of (\d+) found/.exec(line);
  if (found) return Number(found[2]);
  const entries = /\((\d+) entries\)/.exec(line);
  if (entries) return Number(entries[1]);
  const ops = / (\d+) operations/.exec(line);
  return ops ? Number(ops[1]) : num;
}

let last = 0;
let lastMain = 0;
createInterface({ input: child.stdout }).on("line", (line) => {
  const m = /^([a-z0-9_]+) +: +([0-9.]+) micros\/op/.exec(line);
  if (m === null) return;
  const n = operations(line);
  let now;
  let main;
  try {
    now = cpuMicros(`/proc/${child.pid}/stat`);
    main = cpuMicros(`/proc/${child.pid}/task/${child.pid}/stat`);
  } catch {
    console.log(`${m[1]} n/a ${m[2]}`); // the process ended before its line was read
    return;
  }
  console.log(
    `${m[1]} ${((now - last) / n).toFixed(3)} ${m[2]} ${((main - lastMain) / n).toFixed(3)}`,
  );
  last = now;
  lastMain = main;
});
child.on("exit", (code) => {
  process.exitCode = code ?? 1;
});
