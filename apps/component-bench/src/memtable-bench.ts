/**
 * @shale/memtable beside the sorted maps npm users pick as in-memory ordered key-value
 * stores (memtable-peers.ts: each by reference, and sorted-btree and js-sdsl storing copies
 * as `NAME+copy`, and also handing out in scans what `key()` and `value()` do, a key copy
 * and a value view, as `NAME+copy+kv`; the memtable's two scan styles in memtable-shale.ts).
 * A memtable must own its bytes, so the fair comparison is with the copying peers, and for
 * scans through `key()` / `value()` with the `+kv` ones; every ratio is printed.
 *
 *   node --expose-gc dist/main.js memtable [--sizes=10000,50000,500000] [--huge]
 *     [--keys=random,sequential] [--rounds=5] [--only=NAME,...] [--create=0] [--quick]
 *
 * `--huge` adds 5,000,000 entries. Data: memtable-data.ts (16-byte keys, 100-byte values).
 * Contenders run one after another within a round, in an order that rotates every round,
 * each on a fresh store, after one uncounted warm-up round each; the figure is the median
 * over rounds of CPU ns per operation, with its spread (min-max).
 *
 * Workloads (per size N, each contender on a fresh store every round; below 100k entries a
 * workload is repeated on as many stores as make 100k operations, 10k with --quick):
 *   insert      N inserts, ns/insert
 *   scan-first  the first full scan of the store just built, ns/entry
 *   scan        a later full scan (median of 3), ns/entry
 *   get-hit     N gets of present keys in random order, ns/get
 *   get-miss    N gets of absent keys, ns/get
 *   seek+10     min(N, 100k) seeks to present keys, each followed by reading 10 entries,
 *               ns/seek
 *   create      a new store, 16 inserts, 1 get, dropped: ns per table (batches of 64 for
 *               100 ms of CPU time, at most 4096 tables), in rounds of their own after the
 *               other workloads (their garbage would weigh on them)
 *   memory      bytes per entry retained by a store built from fresh key and value copies
 *               (heap + array buffers after a full GC; 116 of them are the key and value
 *               bytes), measured in the first round (needs --expose-gc)
 */
import { Args } from "./args.js";
import { cpuNs, fmt, gc, heapBytes, median, rotated, type Write, withSpread } from "./measure.js";
import type { Contender } from "./memtable-contender.js";
import { type Data, type KeyShape, makeData } from "./memtable-data.js";
import { handsOutCopies, peerContenders, storesCopies } from "./memtable-peers.js";
import { shaleContenders } from "./memtable-shale.js";

const WORKLOADS = [
  "insert",
  "scan-first",
  "scan",
  "get-hit",
  "get-miss",
  "seek+10",
  "create",
  "memory",
] as const;
type Workload = (typeof WORKLOADS)[number];

const SMALL_TABLES_BATCH = 64;
const SMALL_TABLES_NS = 100e6;
const MAX_SMALL_TABLES = 4096;

let sink = 0;

/** `own`'s median over the best median of `peers` for workload `w`, with that peer's name. */
function ratioCell(
  results: Map<string, Map<Workload, number[]>>,
  own: string,
  peers: readonly Contender[],
  w: Workload,
): string {
  const mine = results.get(own)!.get(w)!;
  if (mine.length === 0) return "-";
  let best = Number.POSITIVE_INFINITY;
  let who = "";
  for (const p of peers) {
    const xs = results.get(p.name)!.get(w)!;
    if (xs.length > 0 && median(xs) < best) {
      best = median(xs);
      who = p.name;
    }
  }
  return who === "" ? "-" : `${fmt(median(mine) / best)}x ${who}`;
}
/** The store being measured, held here so that no liveness analysis frees it early. */
let measured: unknown;

/** Every workload but `create` and `memory` on fresh stores: ns/op. */
function runRound(c: Contender, d: Data, minOps: number): Map<Workload, number> {
  const out = new Map<Workload, number>();
  // The previous contender's garbage is collected before, not during, this one's workloads.
  gc?.();
  const reps = Math.max(1, Math.round(minOps / d.n));
  let insert = 0;
  let first = 0;
  for (let r = 0; r < reps; r++) {
    c.reset();
    let t = cpuNs();
    c.insertAll(d);
    insert += cpuNs() - t;
    t = cpuNs();
    sink += c.scan();
    first += cpuNs() - t;
  }
  out.set("insert", insert / (reps * d.n));
  out.set("scan-first", first / (reps * d.n));
  const scans: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = cpuNs();
    for (let r = 0; r < reps; r++) sink += c.scan();
    scans.push((cpuNs() - t) / (reps * d.n));
  }
  out.set("scan", median(scans));
  let t = cpuNs();
  for (let r = 0; r < reps; r++) {
    if (c.getAll(d, d.keys) !== d.n) throw new Error(`${c.name}: a get of a present key missed`);
  }
  out.set("get-hit", (cpuNs() - t) / (reps * d.n));
  t = cpuNs();
  for (let r = 0; r < reps; r++) {
    if (c.getAll(d, d.missing) !== 0) throw new Error(`${c.name}: a get of an absent key hit`);
  }
  out.set("get-miss", (cpuNs() - t) / (reps * d.n));
  t = cpuNs();
  for (let r = 0; r < reps; r++) sink += c.seekScans(d);
  out.set("seek+10", (cpuNs() - t) / (reps * d.seeks));
  c.reset();
  return out;
}

/**
 * Bytes per entry retained by a store built from fresh copies. It starts in a task of its
 * own: objects held only through WeakRefs (the memtable's spare chunks) are kept until the
 * task that last read them ends, and would otherwise count as there before the store.
 */
async function measureMemory(c: Contender, d: Data): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  const before = heapBytes();
  measured = c.buildCopies(d);
  const after = heapBytes();
  sink += measured === undefined ? 0 : 1;
  measured = undefined;
  return (after - before) / d.n;
}

function runCreate(c: Contender, d: Data, budgetNs: number): number {
  gc?.();
  const t = cpuNs();
  let tables = 0;
  while (tables < MAX_SMALL_TABLES && cpuNs() - t < budgetNs) {
    sink += c.smallTables(d, SMALL_TABLES_BATCH);
    tables += SMALL_TABLES_BATCH;
  }
  return (cpuNs() - t) / tables;
}

/** Runs the memtable bench with `argv` (flags only), writing its report through `write`. */
export async function runMemtableBench(argv: readonly string[], write: Write): Promise<void> {
  const args = new Args(argv, ["sizes", "huge", "keys", "rounds", "only", "create", "quick"]);
  const quick = args.flag("quick");
  const sizes = args.numbers("sizes", quick ? [2000] : [10_000, 50_000, 500_000]);
  if (args.flag("huge")) sizes.push(5_000_000);
  const shapes = (args.names("keys", ["random", "sequential"]) ?? [
    "random",
    "sequential",
  ]) as KeyShape[];
  const rounds = args.number("rounds", quick ? 1 : 5);
  const only = args.names("only", [
    "shale",
    "shale-offsets",
    "sorted-btree",
    "js-sdsl",
    "frbt",
    "sorted-btree+copy",
    "js-sdsl+copy",
    "sorted-btree+copy+kv",
    "js-sdsl+copy+kv",
  ]);
  const withCreate = (args.names("create", ["0", "1"]) ?? ["1"])[0] === "1";
  const createBudget = quick ? 5e6 : SMALL_TABLES_NS;
  const minOps = quick ? 10_000 : 100_000;
  const contenders = [...shaleContenders(), ...peerContenders()].filter(
    (c) => only === undefined || only.includes(c.name),
  );
  const peers = contenders.filter((c) => !c.name.startsWith("shale"));

  write("## memtable: 16-byte keys, 100-byte values, one JavaScript bytewise comparator");
  write(
    `node ${process.version}; ${peers.map((p) => p.label).join(", ")}; ${rounds} rounds, CPU ns/op (memory: bytes/entry), median (min-max)` +
      (gc === undefined ? "; no --expose-gc: memory not measured" : ""),
  );
  for (const shape of shapes) {
    for (const n of sizes) {
      const d = makeData(n, shape);
      const results = new Map<string, Map<Workload, number[]>>();
      for (const c of contenders) {
        results.set(c.name, new Map(WORKLOADS.map((w) => [w, [] as number[]])));
      }
      // One uncounted warm-up round per contender: the JIT has seen every loop before.
      for (const c of contenders) runRound(c, d, minOps);
      for (let r = 0; r < rounds; r++) {
        for (const c of rotated(contenders, r)) {
          for (const [w, v] of runRound(c, d, minOps)) results.get(c.name)!.get(w)!.push(v);
          if (r === 0 && gc !== undefined) {
            results
              .get(c.name)!
              .get("memory")!
              .push(await measureMemory(c, d));
          }
        }
      }
      for (let r = 0; r < rounds && withCreate; r++) {
        for (const c of rotated(contenders, r)) {
          results
            .get(c.name)!
            .get("create")!
            .push(runCreate(c, d, createBudget));
        }
      }
      write("");
      write(`### ${n.toLocaleString("en-US")} entries, ${shape} keys`);
      write("");
      write(`| contender | ${WORKLOADS.join(" | ")} |`);
      write(`| --- | ${WORKLOADS.map(() => "---").join(" | ")} |`);
      for (const c of contenders) {
        const cells = WORKLOADS.map((w) => withSpread(results.get(c.name)!.get(w)!));
        write(`| ${c.label} | ${cells.join(" | ")} |`);
      }
      const byReference = peers.filter((p) => !storesCopies(p));
      const copying = peers.filter((p) => storesCopies(p) && !handsOutCopies(p));
      const handingOut = peers.filter(handsOutCopies);
      for (const s of contenders.filter((c) => c.name.startsWith("shale"))) {
        for (const [group, what] of [
          [byReference, "best peer"],
          [copying, "best copying peer"],
          [s.name === "shale" ? handingOut : [], "best copying peer scanning as key()/value()"],
        ] as const) {
          if (group.length === 0) continue;
          const cells = WORKLOADS.map((w) => ratioCell(results, s.name, group, w));
          write(`| ${s.name} / ${what} | ${cells.join(" | ")} |`);
        }
      }
    }
  }
  write("");
  write(
    "Ratios: the memtable's median over the best peer's (below 1: less time or fewer bytes); " +
      "the best peer keeps references to the caller's arrays, the best copying peer (+copy) " +
      "stores copies, as the memtable does; the +kv peers' scans also hand out a key copy and " +
      "a value view per entry, as the memtable's key() and value() do.",
  );
  if (sink === 0.5) write(String(sink));
}
